package e2e

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/heraldhq/herald/test/fakemeta"
)

// TestStopFailsAQueuedMessage: a message accepted while live sends are
// held back (Meta refused the token for another send, so the dispatcher
// waits a minute before calling Meta again) is still waiting when its
// contact writes STOP. The STOP fails it at once with Herald's code
// contact_opted_out, and it never reaches the Cloud API. Through the built
// binary, on SQLite and PostgreSQL.
func TestStopFailsAQueuedMessage(t *testing.T) {
	t.Parallel()
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			stopFailsAQueuedMessage(t, engine)
		})
	}
}

func stopFailsAQueuedMessage(t *testing.T, engine string) {
	in := newInstance(t, engine)
	var key struct{ Token string }
	in.cli(&key, "keys", "create", "--name", "live", "--mode", "live")
	var camp struct{ ID, Category string }
	in.cli(&camp, "campaigns", "create", "--name", "Promo", "--template-name", "welcome", "--language", "en_US",
		"--body", "Hi {{1}}, your code is {{2}}", "--category", "marketing", "--activate")
	if camp.Category != "MARKETING" {
		t.Fatalf("campaigns create printed category %q, want MARKETING", camp.Category)
	}
	fake := webhookFake(t, nil)
	const refused, stopper = "+14155550111", "+14155552671"
	fake.Inject(fakemeta.Fault{To: refused, HTTP: 401, Code: 190, Title: "Invalid OAuth access token", Times: 1})
	srv := serveWithWebhooks(t, in, fake)

	// Meta refuses the credentials on a first send: live sends pause, and
	// /readyz says so.
	sendLive(t, srv, key.Token, camp.ID, refused)
	deadline := time.Now().Add(15 * time.Second)
	for {
		if code, _ := rawCall(t, "GET", srv.Base+"/readyz", nil, nil); code == 503 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("live sends did not pause after Meta refused the token\n%s", srv.Logs())
		}
		time.Sleep(20 * time.Millisecond) // another process: polling its API is the only signal
	}

	queued := sendLive(t, srv, key.Token, camp.ID, stopper)[0]
	postInbound(t, fake, fakemeta.Inbound{From: "14155552671", ProfileName: "Ana", Type: "text", Text: "STOP", At: time.Now()})

	var m struct {
		Status string
		Error  *struct {
			Code       int
			Title      string
			HeraldCode *string
		}
	}
	deadline = time.Now().Add(15 * time.Second)
	for {
		if code := srv.call(t, "GET", "/v1/messages/"+queued, key.Token, nil, &m); code != 200 {
			t.Fatalf("GET message: %d", code)
		}
		if m.Status == "failed" || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if m.Status != "failed" || m.Error == nil || m.Error.Code != 0 || m.Error.HeraldCode == nil || *m.Error.HeraldCode != "contact_opted_out" {
		t.Fatalf("the message queued before the STOP: %+v %+v, want failed with contact_opted_out\n%s", m, m.Error, srv.Logs())
	}
	var stats struct {
		Counts         map[string]int
		FailuresByCode []struct {
			Code       int
			HeraldCode *string
			Count      int
		}
	}
	srv.call(t, "GET", "/v1/campaigns/"+camp.ID+"/stats", key.Token, nil, &stats)
	if stats.Counts["failed"] != 1 || len(stats.FailuresByCode) != 1 || stats.FailuresByCode[0].HeraldCode == nil {
		t.Errorf("stats %+v, want the message failed with Herald's code", stats)
	}
	var problem struct{ Code string }
	if code := srv.call(t, "POST", "/v1/messages/send-campaign", key.Token,
		map[string]any{"phoneNumber": stopper, "campaignId": camp.ID, "variables": []string{"Ana", "1234"}}, &problem); code != 409 ||
		problem.Code != "contact_opted_out" {
		t.Errorf("send after the STOP: %d %+v", code, problem)
	}
	srv.Stop(t) // nothing more can reach the fake

	for _, r := range fake.Requests() {
		var body struct {
			To  string `json:"to"`
			Biz string `json:"biz_opaque_callback_data"`
		}
		json.Unmarshal(r.Body, &body)
		if body.To == stopper || body.Biz == queued {
			t.Errorf("the message to the contact who wrote STOP reached the Cloud API: %s", r.Body)
		}
	}
	if n := len(fake.Requests()); n != 1 {
		t.Errorf("the fake received %d sends, want only the refused one", n)
	}
}
