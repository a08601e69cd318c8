package e2e

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/test/fakemeta"
)

// TestSessionReplyEndToEnd: with the binary and the fake Cloud API, a
// live session message to a number that never wrote is refused; once the
// customer writes (Meta's inbound webhook), the reply is accepted, reaches
// the fake as a session body Meta's document accepts, and is read; the
// customer's message is marked read with the typing indicator.
func TestSessionReplyEndToEnd(t *testing.T) {
	t.Parallel()
	spec := fakemeta.LoadSpec(t)
	in := newInstance(t, "sqlite")
	var key struct{ Token string }
	in.cli(&key, "keys", "create", "--name", "live", "--mode", "live")
	fake := webhookFake(t, []string{"sent", "delivered", "read"})
	srv := serveWithWebhooks(t, in, fake)
	const phone = "+14155552681"
	reply := map[string]any{"to": phone, "type": "text", "text": map[string]any{"body": "Yes: reply with the new address"}}

	var problem struct{ Code string }
	if code := srv.call(t, "POST", "/v1/messages", key.Token, reply, &problem); code != 422 || problem.Code != "outside_service_window" {
		t.Fatalf("before the customer wrote: %d %+v", code, problem)
	}
	at := time.Now().Truncate(time.Second)
	postInbound(t, fake, fakemeta.Inbound{From: phone[1:], ProfileName: "Ana", Type: "text", Text: "Can I change the address?", At: at})
	fake.Wrote(phone, at)

	var c struct {
		ID                     string
		ServiceWindowExpiresAt *string
	}
	if code := srv.call(t, "GET", "/v1/contacts/by-phone/"+url.PathEscape(phone), key.Token, nil, &c); code != 200 ||
		c.ServiceWindowExpiresAt == nil || *c.ServiceWindowExpiresAt != at.Add(24*time.Hour).UTC().Format(time.RFC3339Nano) {
		t.Fatalf("contact: %d %+v", code, c)
	}
	var accepted struct{ ID, Kind string }
	if code := srv.call(t, "POST", "/v1/messages", key.Token, reply, &accepted); code != 202 || accepted.Kind != "session" {
		t.Fatalf("reply: %d %+v", code, accepted)
	}
	srv.awaitStatus(t, key.Token, accepted.ID, "read")
	reqs := fake.Requests()
	if len(reqs) != 1 || !strings.Contains(string(reqs[0].Body), `"type":"text"`) {
		t.Fatalf("the fake received %d sends: %s", len(reqs), reqs)
	}
	if err := spec.CheckSessionMessage(reqs[0].Body); err != nil {
		t.Error(err)
	}

	var th struct {
		Data []struct {
			Direction         string
			ProviderMessageID *string
		}
	}
	srv.call(t, "GET", "/v1/contacts/"+c.ID+"/conversation", key.Token, nil, &th)
	var wamid string
	for _, e := range th.Data {
		if e.Direction == "inbound" && e.ProviderMessageID != nil {
			wamid = *e.ProviderMessageID
		}
	}
	var marked struct{ Read, Typing bool }
	if code := srv.call(t, "POST", "/v1/messages/"+wamid+"/read", key.Token, map[string]any{"typing": true}, &marked); code != 200 ||
		!marked.Read || !marked.Typing {
		t.Fatalf("mark read %q: %d %+v", wamid, code, marked)
	}
	if reads := fake.Reads(); len(reads) != 1 || reads[0] != (fakemeta.Read{MessageID: wamid, Typing: true}) {
		t.Fatalf("the fake's reads: %+v", reads)
	}
	srv.Stop(t)
}
