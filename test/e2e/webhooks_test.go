package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/heraldhq/herald/test/fakemeta"
)

// The webhook settings of the servers below. The fake's own secret is the
// second of two: a rotation in progress, the old secret still accepted.
const (
	oldAppSecret  = "an-old-secret"
	fakeAppSecret = "fake-app-secret-5c21e8"
	verifyToken   = "herald-e2e-verify-3f9a"
)

// webhookFake is a fake Cloud API that knows the welcome template and whose
// emitter signs status webhooks with its own app secret, posting them in the
// order of statuses (nil: sent, delivered, read).
func webhookFake(t *testing.T, statuses []string) *fakemeta.Server {
	t.Helper()
	fake := fakemeta.New(t)
	fake.AppSecret = fakeAppSecret
	fake.WebhookStatuses = statuses
	fake.AddTemplate(fakemeta.Template{Name: "welcome", Language: "en_US", Status: "APPROVED", BodyParams: 2, Category: "MARKETING"})
	return fake
}

// serveWithWebhooks starts herald serve sending through fake and receiving
// its webhooks, and points the fake's emitter at the server.
func serveWithWebhooks(t *testing.T, in *instance, fake *fakemeta.Server) *server {
	t.Helper()
	srv := in.serve("HERALD_WHATSAPP_API_URL="+fake.URL, "HERALD_WHATSAPP_ACCESS_TOKEN="+fake.Token,
		"HERALD_WHATSAPP_PHONE_NUMBER_ID="+fake.PhoneNumberID,
		"HERALD_WHATSAPP_APP_SECRET="+oldAppSecret+","+fake.AppSecret, "HERALD_WHATSAPP_VERIFY_TOKEN="+verifyToken)
	// The server's address is known only now. The fake reads WebhookURL,
	// without its lock, when a send arrives, and none can have arrived yet:
	// no message was sent and no WABA id is set, so there is no template
	// sync either. Requests takes the fake's lock after the write, and a
	// send takes it before reading the field, so the write happens before
	// every read.
	fake.WebhookURL = srv.Base + "/v1/webhooks/whatsapp"
	if n := len(fake.Requests()); n != 0 {
		t.Fatalf("the fake had %d requests before its webhook URL was set", n)
	}
	return srv
}

// liveMessage is a message as GET /v1/messages/{id} shows it.
type liveMessage struct {
	ID                string
	Status            string
	ProviderMessageID *string
	History           []struct{ Status, At string }
	Pricing           *pricingView
}

// pricingView is Meta's pricing of a message, as the API shows it.
type pricingView struct {
	Model, Type, Category string
	Billable              bool
}

// sendLive sends the campaign to each phone with the live key and returns
// the message ids, in order.
func sendLive(t *testing.T, srv *server, key, campaign string, phones ...string) []string {
	t.Helper()
	var ids []string
	for _, p := range phones {
		var m struct{ ID string }
		if code := srv.call(t, "POST", "/v1/messages/send-campaign", key,
			map[string]any{"phoneNumber": p, "campaignId": campaign, "variables": []string{"Ana", "1234"}}, &m); code != 202 {
			t.Fatalf("send to %s: %d", p, code)
		}
		ids = append(ids, m.ID)
	}
	return ids
}

// awaitWebhooks waits until the fake has posted every status webhook of
// the messages. WaitWebhooks waits only for the emissions registered so
// far, and the fake registers a send's emission after it lists the send in
// Accepted (and signals Arrived) but before it answers: so first wait until
// the server has each message's wamid, which it learns from that answer or
// from one of the webhooks. Both waits are bounded.
func awaitWebhooks(t *testing.T, srv *server, fake *fakemeta.Server, key string, ids ...string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for _, id := range ids {
		for {
			var m liveMessage
			if code := srv.call(t, "GET", "/v1/messages/"+id, key, nil, &m); code != 200 {
				t.Fatalf("GET message %s: %d", id, code)
			}
			if m.ProviderMessageID != nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("message %s has no wamid after 30s; the fake accepted %d sends\n%s", id, len(fake.Accepted()), srv.Logs())
			}
			time.Sleep(20 * time.Millisecond) // another process: polling its API is the only signal
		}
	}
	done := make(chan struct{})
	go func() { fake.WaitWebhooks(); close(done) }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatalf("the fake's status webhooks were not all posted within 60s\n%s", srv.Logs())
	}
}

// wamidOf is the wamid the fake gave the send of our message id.
func wamidOf(t *testing.T, fake *fakemeta.Server, id string) string {
	t.Helper()
	for _, r := range fake.Accepted() {
		var p struct {
			Biz string `json:"biz_opaque_callback_data"`
		}
		if json.Unmarshal(r.Body, &p) == nil && p.Biz == id {
			return r.WAMID
		}
	}
	t.Fatalf("the fake accepted no send of %s", id)
	return ""
}

// checkRead checks a message Meta's webhooks took to read: its wamid, each
// status once in its history, and Meta's pricing from the sent event.
func checkRead(t *testing.T, srv *server, fake *fakemeta.Server, key, id string) {
	t.Helper()
	srv.awaitStatus(t, key, id, "read")
	var m liveMessage
	if code := srv.call(t, "GET", "/v1/messages/"+id, key, nil, &m); code != 200 {
		t.Fatalf("GET message %s: %d", id, code)
	}
	if want := wamidOf(t, fake, id); m.ProviderMessageID == nil || *m.ProviderMessageID != want {
		t.Errorf("message %s: providerMessageId %v, want %s", id, m.ProviderMessageID, want)
	}
	var got []string
	for _, h := range m.History {
		got = append(got, h.Status)
	}
	// Meta's timestamps are whole seconds, Herald's are not: the order of
	// the entries around a second's boundary is not the lifecycle's, so
	// only which statuses appear, each once, is checked.
	slices.Sort(got)
	if d := cmp.Diff([]string{"delivered", "queued", "read", "sending", "sent"}, got); d != "" {
		t.Errorf("message %s history (-want +got):\n%s", id, d)
	}
	if m.Pricing == nil || *m.Pricing != (pricingView{"PMP", "regular", "marketing", true}) {
		t.Errorf("message %s pricing %+v, want Meta's PMP regular marketing billable", id, m.Pricing)
	}
}

// checkDeliveries checks that the server answered 200 to every webhook the
// fake posted, at the first try.
func checkDeliveries(t *testing.T, srv *server, fake *fakemeta.Server, want int) {
	t.Helper()
	ds := fake.WebhookDeliveries()
	for _, d := range ds {
		if d.Status != http.StatusOK || d.Attempt != 1 {
			t.Errorf("a webhook was answered %d (attempt %d, error %v): %s\n%s", d.Status, d.Attempt, d.Err, d.Body, srv.Logs())
		}
	}
	if len(ds) != want {
		t.Errorf("the fake posted %d webhooks, want %d", len(ds), want)
	}
}

// rawCall makes a request with the given headers and returns the status and
// the body as text.
func rawCall(t *testing.T, method, target string, header map[string]string, body []byte) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, target, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, target, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// webhookReceipt is the server's answer to a webhook call.
type webhookReceipt struct {
	EventID   string
	Duplicate bool
	Applied   bool
}

// postInbound posts an inbound message as the fake's Meta would, and fails
// unless the server stored and applied it.
func postInbound(t *testing.T, fake *fakemeta.Server, m fakemeta.Inbound) {
	t.Helper()
	res, err := fake.PostWebhook(fakemeta.InboundPayload(fake.WABAID, fake.PhoneNumberID, m))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var r webhookReceipt
	if err := json.NewDecoder(res.Body).Decode(&r); err != nil || res.StatusCode != 200 || !r.Applied || r.Duplicate ||
		!strings.HasPrefix(r.EventID, "whk_") {
		t.Fatalf("inbound %q: %d %+v %v", m.Text, res.StatusCode, r, err)
	}
}

type threadEntry struct {
	Direction, Type, Body string
	Status                *string
}

// thread returns a contact's conversation, newest first, as
// "direction type body [status]" lines, and the contact.
func thread(t *testing.T, srv *server, key, phone string) ([]string, contactView) {
	t.Helper()
	var c contactView
	if code := srv.call(t, "GET", "/v1/contacts/by-phone/"+url.PathEscape(phone), key, nil, &c); code != 200 {
		t.Fatalf("contact %s: %d", phone, code)
	}
	var th struct{ Data []threadEntry }
	if code := srv.call(t, "GET", "/v1/contacts/"+c.ID+"/conversation", key, nil, &th); code != 200 {
		t.Fatalf("conversation of %s: %d", phone, code)
	}
	lines := []string{}
	for _, e := range th.Data {
		l := e.Direction + " " + e.Type + " " + e.Body
		if e.Status != nil {
			l += " " + *e.Status
		}
		lines = append(lines, l)
	}
	return lines, c
}

// replayedEvent is one event as herald webhooks replay --json reports it.
type replayedEvent struct {
	ID, ReceivedAt                                          string
	Applied                                                 bool
	Attempts                                                int
	Error                                                   *string
	Statuses, Parked, Inbound, OptedOut, OptedIn, Templates int
}

type contactView struct {
	ID          string
	OptedOut    bool
	ProfileName *string
}

// TestLiveMessagesFollowMetasWebhooks sends live messages through the fake
// Cloud API, whose emitter posts Meta's signed status webhooks to the server
// under test: in the usual order, then (a second fake and server run on the
// same database, since the emitter has one order for every send) shuffled
// and repeated. Every message reaches read with Meta's pricing and the
// campaign's statistics count the reads. An inbound STOP opts the contact
// out (the next send answers 409) and shows in the thread; START opts them
// back in. The handshake and the signature check guard the endpoint.
func TestLiveMessagesFollowMetasWebhooks(t *testing.T) {
	t.Parallel()
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			liveMessagesFollowWebhooks(t, engine)
		})
	}
}

func liveMessagesFollowWebhooks(t *testing.T, engine string) {
	in := newInstance(t, engine)
	var key struct{ Token string }
	in.cli(&key, "keys", "create", "--name", "live", "--mode", "live")
	var camp struct{ ID string }
	in.cli(&camp, "campaigns", "create", "--name", "W", "--template-name", "welcome", "--language", "en_US",
		"--body", "Hi {{1}}, your code is {{2}}", "--activate")

	// Meta's usual order: sent, delivered, read.
	fake := webhookFake(t, nil)
	srv := serveWithWebhooks(t, in, fake)
	first := []string{"+14155552671", "+14155552672", "+14155552673"}
	ids := sendLive(t, srv, key.Token, camp.ID, first...)
	awaitWebhooks(t, srv, fake, key.Token, ids...)
	checkDeliveries(t, srv, fake, 3*len(ids))
	for _, id := range ids {
		checkRead(t, srv, fake, key.Token, id)
	}
	srv.Stop(t)

	// Out of order and repeated, as Meta may post them: read first, sent
	// twice (the same body: stored once), read again.
	shuffled := []string{"read", "sent", "delivered", "sent", "read"}
	fake2 := webhookFake(t, shuffled)
	srv = serveWithWebhooks(t, in, fake2)
	second := []string{"+14155552674", "+14155552675"}
	ids2 := sendLive(t, srv, key.Token, camp.ID, second...)
	awaitWebhooks(t, srv, fake2, key.Token, ids2...)
	checkDeliveries(t, srv, fake2, len(shuffled)*len(ids2))
	for _, id := range ids2 {
		checkRead(t, srv, fake2, key.Token, id)
	}

	var stats struct {
		Total                  int
		Counts                 map[string]int
		DeliveryRate, ReadRate float64
		Timeline               struct {
			Points []struct{ Accepted, Sent, Delivered, Read, Failed int }
		}
	}
	if code := srv.call(t, "GET", "/v1/campaigns/"+camp.ID+"/stats", key.Token, nil, &stats); code != 200 {
		t.Fatalf("stats: %d", code)
	}
	if stats.Total != 5 || stats.Counts["read"] != 5 || stats.DeliveryRate != 1 || stats.ReadRate != 1 {
		t.Errorf("stats: total %d, counts %v, delivery rate %v, read rate %v; want 5 read of 5, both rates 1",
			stats.Total, stats.Counts, stats.DeliveryRate, stats.ReadRate)
	}
	var totals [5]int
	for _, p := range stats.Timeline.Points {
		totals[0], totals[1], totals[2] = totals[0]+p.Accepted, totals[1]+p.Sent, totals[2]+p.Delivered
		totals[3], totals[4] = totals[3]+p.Read, totals[4]+p.Failed
	}
	if totals != [5]int{5, 5, 5, 5, 0} {
		t.Errorf("timeline totals accepted/sent/delivered/read/failed = %v, want [5 5 5 5 0]", totals)
	}

	// STOP from the first recipient: opted out, the next send is refused,
	// and the STOP is in the thread (newest first) as an inbound entry.
	stopAt := time.Now().Truncate(time.Second)
	postInbound(t, fake2, fakemeta.Inbound{From: "14155552671", ProfileName: "Ana", Type: "text", Text: "STOP", At: stopAt})
	lines, contact := thread(t, srv, key.Token, first[0])
	if !contact.OptedOut || contact.ProfileName == nil || *contact.ProfileName != "Ana" {
		t.Errorf("after STOP the contact is %+v, want opted out with Ana's profile name", contact)
	}
	if d := cmp.Diff([]string{"inbound text STOP", "outbound template Hi Ana, your code is 1234 read"}, lines); d != "" {
		t.Errorf("thread after STOP (-want +got):\n%s", d)
	}
	var problem struct{ Code, Param string }
	if code := srv.call(t, "POST", "/v1/messages/send-campaign", key.Token,
		map[string]any{"phoneNumber": first[0], "campaignId": camp.ID, "variables": []string{"Ana", "1"}}, &problem); code != 409 ||
		problem.Code != "contact_opted_out" || problem.Param != "phoneNumber" {
		t.Errorf("send after STOP: %d %+v, want 409 contact_opted_out", code, problem)
	}
	sent := len(fake2.Requests())

	// START, written a second later (Meta's times are whole seconds, and a
	// STOP and a START in one second leave the contact opted out), opts
	// them back in: the next send is accepted and goes out.
	postInbound(t, fake2, fakemeta.Inbound{From: "14155552671", ProfileName: "Ana", Type: "text", Text: "START", At: stopAt.Add(time.Second)})
	if _, c := thread(t, srv, key.Token, first[0]); c.OptedOut {
		t.Errorf("after START the contact is still opted out")
	}
	again := sendLive(t, srv, key.Token, camp.ID, first[0])
	awaitWebhooks(t, srv, fake2, key.Token, again...)
	checkRead(t, srv, fake2, key.Token, again[0])
	if n := len(fake2.Requests()); n != sent+1 {
		t.Errorf("the fake received %d sends after START, want 1", n-sent)
	}

	// The handshake echoes the challenge for the verify token only.
	hook := srv.Base + "/v1/webhooks/whatsapp"
	q := url.Values{"hub.mode": {"subscribe"}, "hub.verify_token": {verifyToken}, "hub.challenge": {"123"}}
	if code, body := rawCall(t, "GET", hook+"?"+q.Encode(), nil, nil); code != 200 || body != "123" {
		t.Errorf("handshake with the verify token: %d %q, want 200 \"123\"", code, body)
	}
	q.Set("hub.verify_token", "a-guess")
	if code, body := rawCall(t, "GET", hook+"?"+q.Encode(), nil, nil); code != 403 || !strings.Contains(body, `"code":"verification_failed"`) {
		t.Errorf("handshake with a wrong token: %d %s, want 403 verification_failed", code, body)
	}

	// A body signed with another secret is refused; the old secret, still
	// configured, is accepted.
	hello := fakemeta.InboundPayload(fake2.WABAID, fake2.PhoneNumberID,
		fakemeta.Inbound{From: "14155552672", ProfileName: "Bo", Type: "text", Text: "Olá, obrigado 👍"})
	header := func(secret string) map[string]string {
		return map[string]string{"Content-Type": "application/json", "X-Hub-Signature-256": fakemeta.Sign(secret, hello)}
	}
	if code, body := rawCall(t, "POST", hook, header("not-our-secret"), hello); code != 401 || !strings.Contains(body, `"code":"invalid_signature"`) {
		t.Errorf("a body signed with a wrong secret: %d %s, want 401 invalid_signature", code, body)
	}
	if lines, _ := thread(t, srv, key.Token, first[1]); len(lines) != 1 {
		t.Errorf("a refused webhook reached the thread: %v", lines)
	}
	code, body := rawCall(t, "POST", hook, header(oldAppSecret), hello)
	var r webhookReceipt
	if err := json.Unmarshal([]byte(body), &r); err != nil || code != 200 || !r.Applied {
		t.Errorf("a body signed with the old secret: %d %s, want 200 and applied", code, body)
	}
	lines, _ = thread(t, srv, key.Token, first[1])
	if d := cmp.Diff([]string{"inbound text Olá, obrigado 👍", "outbound template Hi Ana, your code is 1234 read"}, lines); d != "" {
		t.Errorf("thread after the old secret's webhook (-want +got):\n%s", d)
	}
	srv.Stop(t)

	for _, secret := range []string{fakeAppSecret, oldAppSecret, verifyToken} {
		if strings.Contains(srv.Logs(), secret) {
			t.Errorf("the server log holds the secret %q", secret)
		}
	}
}

// TestWebhookEventsSurviveARestart stores Meta's webhooks while the server
// runs, stops it, and replays every event received since the start with
// herald webhooks replay: each is applied again and nothing changes, since
// applying an event twice is a no-op (statuses stay read, no thread entry,
// opt-out or count is added).
func TestWebhookEventsSurviveARestart(t *testing.T) {
	t.Parallel()
	in := newInstance(t, "sqlite")
	var key struct{ Token string }
	in.cli(&key, "keys", "create", "--name", "live", "--mode", "live")
	var camp struct{ ID string }
	in.cli(&camp, "campaigns", "create", "--name", "W", "--template-name", "welcome", "--language", "en_US",
		"--body", "Hi {{1}}, your code is {{2}}", "--activate")

	// Whole seconds, as --since takes them: a second early, so that the
	// first event cannot fall before it.
	since := time.Now().Add(-time.Second).UTC().Format(time.RFC3339)
	fake := webhookFake(t, nil)
	srv := serveWithWebhooks(t, in, fake)
	phones := []string{"+14155552681", "+14155552682"}
	ids := sendLive(t, srv, key.Token, camp.ID, phones...)
	awaitWebhooks(t, srv, fake, key.Token, ids...)
	for _, id := range ids {
		checkRead(t, srv, fake, key.Token, id)
	}
	postInbound(t, fake, fakemeta.Inbound{From: "14155552681", ProfileName: "Ana", Type: "button", Text: "Yes, thanks",
		Payload: "THANKS", ReplyTo: wamidOf(t, fake, ids[0])})
	postInbound(t, fake, fakemeta.Inbound{From: "14155552682", ProfileName: "Bo", Type: "text", Text: "stop"})
	checkDeliveries(t, srv, fake, 3*len(ids)+2)

	// What the API shows, in full, before and after the replay.
	snapshot := func(srv *server) map[string]any {
		t.Helper()
		out := map[string]any{}
		get := func(name, path string) {
			var v any
			if code := srv.call(t, "GET", path, key.Token, nil, &v); code != 200 {
				t.Fatalf("GET %s: %d", path, code)
			}
			out[name] = v
		}
		for i, id := range ids {
			get(fmt.Sprint("message ", i), "/v1/messages/"+id)
			get(fmt.Sprint("contact ", i), "/v1/contacts/by-phone/"+url.PathEscape(phones[i]))
			c := out[fmt.Sprint("contact ", i)].(map[string]any)
			get(fmt.Sprint("thread ", i), "/v1/contacts/"+c["id"].(string)+"/conversation")
		}
		get("stats", "/v1/campaigns/"+camp.ID+"/stats")
		// The timeline's window ends now; its points are what count.
		tl := out["stats"].(map[string]any)["timeline"].(map[string]any)
		delete(tl, "from")
		delete(tl, "to")
		return out
	}
	before := snapshot(srv)
	if th := before["thread 0"].(map[string]any)["data"].([]any); len(th) != 2 {
		t.Fatalf("thread 0 before the replay: %v", th)
	}
	if c := before["contact 1"].(map[string]any); c["optedOut"] != true {
		t.Fatalf("contact 1 did not opt out with a lowercase stop: %v", c)
	}
	srv.Stop(t)

	events := map[string]bool{}
	for _, d := range fake.WebhookDeliveries() {
		events[string(d.Body)] = true
	}
	var replayed []replayedEvent
	in.cli(&replayed, "webhooks", "replay", "--since", since)
	if len(replayed) != len(events) {
		t.Fatalf("webhooks replay --since %s replayed %d events, want the %d the server received", since, len(replayed), len(events))
	}
	for _, r := range replayed {
		if !r.Applied || r.Error != nil || r.Attempts != 2 || r.Statuses+r.Parked+r.Inbound+r.OptedOut+r.OptedIn+r.Templates != 0 {
			t.Errorf("replayed %+v; want applied a second time, changing nothing", r)
		}
		if !strings.HasPrefix(r.ID, "whk_") {
			t.Errorf("event id %q", r.ID)
		}
		if at, err := time.Parse(time.RFC3339Nano, r.ReceivedAt); err != nil || at.Before(time.Now().Add(-5*time.Minute)) {
			t.Errorf("receivedAt %q: %v", r.ReceivedAt, err)
		}
	}
	if !slices.IsSortedFunc(replayed, func(a, b replayedEvent) int { return strings.Compare(a.ID, b.ID) }) {
		t.Errorf("events not replayed oldest first")
	}
	var pending []any
	in.cli(&pending, "webhooks", "replay")
	if len(pending) != 0 {
		t.Errorf("webhooks replay without flags found events not applied: %v", pending)
	}

	srv = in.serve()
	if d := cmp.Diff(before, snapshot(srv)); d != "" {
		t.Errorf("the replay changed what the API shows (-before +after):\n%s", d)
	}
	srv.Stop(t)
}
