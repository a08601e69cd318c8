package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/test/fakemeta"
)

// TestLiveKeySendsThroughTheCloudAPI: with the Cloud API configured, a live
// key's message goes to (the fake of) Meta, carrying our id, and its wamid
// is recorded; a test key's message stays in the sandbox.
func TestLiveKeySendsThroughTheCloudAPI(t *testing.T) {
	t.Parallel()
	fake := fakemeta.New(t)
	fake.AddTemplate(fakemeta.Template{Name: "welcome", Language: "en_US", Status: "APPROVED", BodyParams: 2})
	in := newInstance(t, "sqlite")
	var live, test struct{ Token string }
	in.cli(&live, "keys", "create", "--name", "live", "--mode", "live")
	in.cli(&test, "keys", "create", "--name", "test", "--mode", "test")
	var camp struct{ ID string }
	in.cli(&camp, "campaigns", "create", "--name", "W", "--template-name", "welcome", "--language", "en_US",
		"--body", "Hi {{1}}, your code is {{2}}", "--activate")
	srv := in.serve("HERALD_WHATSAPP_API_URL="+fake.URL, "HERALD_WHATSAPP_ACCESS_TOKEN="+fake.Token,
		"HERALD_WHATSAPP_PHONE_NUMBER_ID="+fake.PhoneNumberID)

	var accepted struct{ ID string }
	if code := srv.call(t, "POST", "/v1/messages/send-campaign", live.Token,
		map[string]any{"phoneNumber": "+14155552671", "campaignId": camp.ID, "variables": []string{"Ana", "1234"}}, &accepted); code != 202 {
		t.Fatalf("send: %d", code)
	}
	var m struct {
		Status            string
		ProviderMessageID *string
	}
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		srv.call(t, "GET", "/v1/messages/"+accepted.ID, live.Token, nil, &m)
		if m.ProviderMessageID != nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if m.ProviderMessageID == nil || !strings.HasPrefix(*m.ProviderMessageID, "wamid.") {
		t.Fatalf("the live message has no wamid: %+v\n%s", m, srv.Logs())
	}
	reqs := fake.Requests()
	if len(reqs) != 1 {
		t.Fatalf("the fake received %d sends, want 1", len(reqs))
	}
	var body struct {
		To  string `json:"to"`
		Biz string `json:"biz_opaque_callback_data"`
	}
	json.Unmarshal(reqs[0].Body, &body)
	if body.To != "+14155552671" || body.Biz != accepted.ID {
		t.Fatalf("the fake received %s", reqs[0].Body)
	}

	// A test key's message never reaches Meta.
	srv.call(t, "POST", "/v1/messages/send-campaign", test.Token,
		map[string]any{"phoneNumber": "+14155552672", "campaignId": camp.ID, "variables": []string{"Bo", "1"}}, &accepted)
	srv.awaitStatus(t, test.Token, accepted.ID, "read")
	if n := len(fake.Requests()); n != 1 {
		t.Fatalf("a test-mode message reached the Cloud API (%d sends)", n)
	}
	if strings.Contains(srv.Logs(), fake.Token) {
		t.Error("the server log holds the Cloud API token")
	}
	srv.Stop(t)
}
