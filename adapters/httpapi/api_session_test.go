package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/ports/porttest"
	"github.com/heraldhq/herald/test/fakemeta"
)

const sessionURL = "/v1/messages"

// wrote records that the contact of key's workspace wrote at the given
// time, as an inbound message would: their window runs 24 hours from it.
func (e *apiEnv) wrote(t *testing.T, key, contactID string, at time.Time) {
	t.Helper()
	ctx := context.Background()
	p, err := e.deps.Auth.Handle(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.UpdateContact(ctx, p.Workspace, domain.ContactID(contactID), func(c *domain.Contact) error {
		c.RecordInbound("", "", at, at)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// contactFor makes (by a send of the active campaign) the key's contact for
// phone, and returns its id.
func (e *apiEnv) contactFor(t *testing.T, key, phone string) string {
	t.Helper()
	res, body := e.do(t, "POST", sendURL, e.keyed(key), sendBody(phone, e.active, "Ana", "1234"))
	if res.StatusCode != http.StatusAccepted {
		t.Fatalf("send-campaign: %d %s", res.StatusCode, body)
	}
	return decode[map[string]any](t, body)["contactId"].(string)
}

// sessionBodies is one request of every type and interactive kind.
var sessionBodies = map[string]string{
	"text":     `{"type":"text","text":{"body":"Yes, reply with the new address","previewUrl":true}}`,
	"image":    `{"type":"image","image":{"link":"https://cdn.example.com/a.jpg","caption":"Your parcel"}}`,
	"video":    `{"type":"video","video":{"link":"https://cdn.example.com/a.mp4"}}`,
	"audio":    `{"type":"audio","audio":{"link":"https://cdn.example.com/a.ogg","voice":true}}`,
	"document": `{"type":"document","document":{"link":"https://cdn.example.com/i.pdf","caption":"Invoice","filename":"invoice-12.pdf"}}`,
	"sticker":  `{"type":"sticker","sticker":{"link":"https://cdn.example.com/s.webp"}}`,
	"location": `{"type":"location","location":{"latitude":37.4847,"longitude":-122.1486,"name":"Store","address":"1 Main St"}}`,
	"contacts": `{"type":"contacts","contacts":[{"name":{"formattedName":"Ana Lima","firstName":"Ana"},"org":{"company":"Acme"},` +
		`"birthday":"1990-02-03","phones":[{"phone":"+5511988887777","type":"WORK","waId":"5511988887777"}],` +
		`"emails":[{"email":"ana@example.com","type":"WORK"}],"urls":[{"url":"https://example.com","type":"WORK"}]}]}`,
	"buttons": `{"type":"interactive","interactive":{"type":"button","header":{"type":"text","text":"Delivery"},` +
		`"body":{"text":"Reschedule?"},"footer":{"text":"Acme"},"action":{"buttons":[{"id":"yes","title":"Yes"},{"id":"no","title":"No"}]}}}`,
	"list": `{"type":"interactive","interactive":{"type":"list","body":{"text":"Pick a speed"},` +
		`"action":{"button":"Options","sections":[{"title":"Fast","rows":[{"id":"x","title":"Express","description":"Next day"}]},` +
		`{"title":"Slow","rows":[{"id":"s","title":"Standard"}]}]}}}`,
	"cta_url": `{"type":"interactive","interactive":{"type":"cta_url","header":{"type":"image","image":{"link":"https://cdn.example.com/a.jpg"}},` +
		`"body":{"text":"See the dates"},"action":{"displayText":"See dates","url":"https://example.com/dates"}}}`,
	"reaction": `{"type":"reaction","reaction":{"messageId":"wamid.HBgNNTUxMTk4ODg4Nzc3NxUCABIYFjNF","emoji":"👍"}}`,
}

// withRecipient puts the recipient into a session body.
func withRecipient(body, field, value string) string {
	return `{"` + field + `":"` + value + `",` + body[1:]
}

// Every type is accepted inside the window, by number and by contact id,
// answers 202 with the message's representation, is shown by GET as a
// session message, lands in the contact's thread, and is the exact body
// Meta's OpenAPI request schema accepts.
func TestSessionMessageEveryType(t *testing.T) {
	spec := fakemeta.LoadSpec(t)
	onEveryEngine(t, func(t *testing.T, e *apiEnv) {
		phone := "+14155550123"
		contact := e.contactFor(t, e.key, phone)
		e.wrote(t, e.key, contact, time.Now().Add(-time.Hour))
		for name, body := range sessionBodies {
			t.Run(name, func(t *testing.T) {
				field, value := "to", phone
				if name == "image" || name == "list" {
					field, value = "contactId", contact
				}
				res, got := e.do(t, "POST", sessionURL, e.keyed(e.key), withRecipient(body, field, value))
				if res.StatusCode != http.StatusAccepted {
					t.Fatalf("%d %s", res.StatusCode, got)
				}
				acc := decode[map[string]any](t, got)
				var in map[string]any
				json.Unmarshal([]byte(body), &in)
				if acc["kind"] != "session" || acc["type"] != in["type"] || acc["status"] != "queued" || acc["campaignId"] != nil ||
					acc["contactId"] != contact || acc["phoneNumber"] != phone || res.Header.Get("Location") != "/v1/messages/"+acc["id"].(string) {
					t.Fatalf("answer %s", got)
				}
				res, got = e.do(t, "GET", "/v1/messages/"+acc["id"].(string), e.keyed(e.key), "")
				m := decode[map[string]any](t, got)
				if res.StatusCode != 200 || m["kind"] != "session" || m["type"] != in["type"] || m["campaignId"] != nil || m["mode"] != "test" {
					t.Fatalf("GET: %d %s", res.StatusCode, got)
				}
				stored, err := e.store.GetMessage(context.Background(), workspaceOf(t, e, e.key), domain.MessageID(acc["id"].(string)))
				if err != nil {
					t.Fatal(err)
				}
				payload, err := json.Marshal(ports.OutboundFor(stored).Body())
				if err != nil {
					t.Fatal(err)
				}
				if err := spec.CheckSessionMessage(payload); err != nil {
					t.Fatalf("Meta's schema refuses %s: %v", payload, err)
				}
			})
		}
		res, got := e.do(t, "GET", "/v1/contacts/"+contact+"/conversation?limit=100", e.keyed(e.key), "")
		if res.StatusCode != 200 || strings.Count(got, `"direction":"outbound"`) != len(sessionBodies)+1 {
			t.Fatalf("thread: %d %s", res.StatusCode, got)
		}
	})
}

func workspaceOf(t *testing.T, e *apiEnv, key string) domain.WorkspaceID {
	t.Helper()
	p, err := e.deps.Auth.Handle(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	return p.Workspace
}

// The window's edges: a contact who wrote 23 h 59 min ago is answered; one
// who wrote 24 h 1 min ago, or never, is refused with
// outside_service_window, and the contact shows when the window closes.
func TestSessionMessageWindow(t *testing.T) {
	onEveryEngine(t, func(t *testing.T, e *apiEnv) {
		text := sessionBodies["text"]
		open, closed, never := "+14155550131", "+14155550132", "+14155550133"
		openID, closedID := e.contactFor(t, e.key, open), e.contactFor(t, e.key, closed)
		e.contactFor(t, e.key, never)
		now := time.Now().UTC().Truncate(time.Second)
		e.wrote(t, e.key, openID, now.Add(-(23*time.Hour + 59*time.Minute)))
		wroteClosed := now.Add(-(24*time.Hour + time.Minute))
		e.wrote(t, e.key, closedID, wroteClosed)

		if res, body := e.do(t, "POST", sessionURL, e.keyed(e.key), withRecipient(text, "to", open)); res.StatusCode != 202 {
			t.Errorf("23:59 after: %d %s", res.StatusCode, body)
		}
		closedAt := wroteClosed.Add(24 * time.Hour)
		res, body := e.do(t, "POST", sessionURL, e.keyed(e.key), withRecipient(text, "to", closed))
		want := map[string]any{"type": "https://github.com/heraldhq/herald/blob/main/docs/errors.md#outside_service_window",
			"title": "Outside service window", "status": 422, "code": "outside_service_window", "param": "to", "requestId": "REQ",
			"detail": "the contact's 24-hour customer-service window closed at " + closedAt.Format(time.RFC3339) +
				"; send an approved template instead, and answer freely once they reply",
			"windowClosedAt": closedAt.Format(time.RFC3339Nano)}
		if res.StatusCode != 422 || canonicalString(normalize(body)) != canonical(want) {
			t.Errorf("24:01 after: %d %s", res.StatusCode, body)
		}
		res, body = e.do(t, "POST", sessionURL, e.keyed(e.key), withRecipient(text, "to", never))
		if res.StatusCode != 422 || strings.Contains(body, "windowClosedAt") || !strings.Contains(body, `"outside_service_window"`) {
			t.Errorf("never wrote: %d %s", res.StatusCode, body)
		}
		res, body = e.do(t, "POST", sessionURL, e.keyed(e.key), withRecipient(text, "to", "+14155550199"))
		if res.StatusCode != 422 || !strings.Contains(body, `"outside_service_window"`) {
			t.Errorf("no contact: %d %s", res.StatusCode, body)
		}
		res, body = e.do(t, "GET", "/v1/contacts/by-phone/"+strings.Replace(closed, "+", "%2B", 1), e.keyed(e.key), "")
		if c := decode[map[string]any](t, body); res.StatusCode != 200 || c["serviceWindowExpiresAt"] != closedAt.Format(time.RFC3339Nano) {
			t.Errorf("contact: %d %s", res.StatusCode, body)
		}
		res, body = e.do(t, "GET", "/v1/contacts/by-phone/"+strings.Replace(never, "+", "%2B", 1), e.keyed(e.key), "")
		if c := decode[map[string]any](t, body); res.StatusCode != 200 || c["serviceWindowExpiresAt"] != nil {
			t.Errorf("contact who never wrote: %d %s", res.StatusCode, body)
		}
	})
}

// Idempotency-Key as for send-campaign: the same request replays the
// first answer, another request with the key is refused; opt-out is 409.
func TestSessionMessageIdempotencyAndOptOut(t *testing.T) {
	onEveryEngine(t, func(t *testing.T, e *apiEnv) {
		phone := "+14155550141"
		id := e.contactFor(t, e.key, phone)
		e.wrote(t, e.key, id, time.Now().Add(-time.Minute))
		h := e.keyed(e.key)
		h["Idempotency-Key"] = "reply-1"
		body := withRecipient(sessionBodies["text"], "to", phone)
		first, firstBody := e.do(t, "POST", sessionURL, h, body)
		again, againBody := e.do(t, "POST", sessionURL, h, body)
		if first.StatusCode != 202 || again.StatusCode != 202 || firstBody != againBody || again.Header.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("replay: %d %s / %d %s", first.StatusCode, firstBody, again.StatusCode, againBody)
		}
		res, got := e.do(t, "POST", sessionURL, h, withRecipient(sessionBodies["location"], "to", phone))
		if res.StatusCode != 422 || !strings.Contains(got, `"idempotency_key_reused"`) {
			t.Fatalf("reused: %d %s", res.StatusCode, got)
		}
		// A send-campaign key is another request.
		res, got = e.do(t, "POST", sendURL, h, sendBody(phone, e.active, "Ana", "1"))
		if res.StatusCode != 422 || !strings.Contains(got, `"idempotency_key_reused"`) {
			t.Fatalf("send-campaign with the session's key: %d %s", res.StatusCode, got)
		}

		if res, got := e.do(t, "POST", "/v1/contacts/sync", e.keyed(e.key), `{"phoneNumber":"`+phone+`","optedOut":true}`); res.StatusCode/100 != 2 {
			t.Fatalf("sync: %d %s", res.StatusCode, got)
		}
		res, got = e.do(t, "POST", sessionURL, e.keyed(e.key), body)
		want := problemBody(409, "contact_opted_out", "Contact opted out", "phoneNumber", "the recipient opted out of messages")
		if res.StatusCode != 409 || canonicalString(normalize(got)) != want {
			t.Fatalf("opted out: %d %s", res.StatusCode, got)
		}
	})
}

// Replies quote by Herald's id or Meta's wamid; a message not yet
// accepted by WhatsApp cannot be quoted; another workspace's message is
// not found.
func TestSessionMessageReplyTo(t *testing.T) {
	e := newEnv(t)
	phone := "+14155550151"
	id := e.contactFor(t, e.key, phone)
	e.wrote(t, e.key, id, time.Now().Add(-time.Minute))
	_, body := e.do(t, "POST", sendURL, e.keyed(e.key), sendBody(phone, e.active, "Ana", "1"))
	queued := decode[map[string]any](t, body)["id"].(string)
	res, body := e.do(t, "POST", sessionURL, e.keyed(e.key), `{"to":"`+phone+`","replyTo":"`+queued+`",`+sessionBodies["text"][1:])
	if res.StatusCode != 422 || !strings.Contains(body, `"param":"replyTo"`) || !strings.Contains(body, "has not reached WhatsApp yet") {
		t.Fatalf("quoting a queued message: %d %s", res.StatusCode, body)
	}
	if _, err := e.store.UpdateMessage(context.Background(), workspaceOf(t, e, e.key), domain.MessageID(queued), func(m *domain.Message) error {
		m.ProviderID = "wamid.SENT1"
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	res, body = e.do(t, "POST", sessionURL, e.keyed(e.key), `{"to":"`+phone+`","replyTo":"`+queued+`",`+sessionBodies["text"][1:])
	if res.StatusCode != 202 {
		t.Fatalf("quoting a sent message: %d %s", res.StatusCode, body)
	}
	res, body = e.do(t, "GET", "/v1/messages/"+decode[map[string]any](t, body)["id"].(string), e.keyed(e.key), "")
	if res.StatusCode != 200 || decode[map[string]any](t, body)["replyTo"] != "wamid.SENT1" {
		t.Fatalf("replyTo kept: %s", body)
	}
	res, body = e.do(t, "POST", sessionURL, e.keyed(e.key), `{"to":"`+phone+`","type":"reaction","reaction":{"messageId":"`+queued+`","emoji":"👍"}}`)
	if res.StatusCode != 202 {
		t.Fatalf("reacting to a sent message by its id: %d %s", res.StatusCode, body)
	}
	res, body = e.do(t, "POST", sessionURL, e.keyed(e.otherKey), `{"to":"`+phone+`","replyTo":"`+queued+`",`+sessionBodies["text"][1:])
	if res.StatusCode != 404 || !strings.Contains(body, `"message_not_found"`) {
		t.Fatalf("another workspace's message: %d %s", res.StatusCode, body)
	}
}

// Bad requests are refused with the field named, and store nothing.
func TestSessionMessageErrors(t *testing.T) {
	e := newEnv(t)
	phone := "+14155550161"
	id := e.contactFor(t, e.key, phone)
	e.wrote(t, e.key, id, time.Now().Add(-time.Minute))
	to := func(rest string) string { return `{"to":"` + phone + `",` + rest[1:] }
	long := strings.Repeat("a", 4097)
	for _, tt := range []struct {
		name, body     string
		status         int
		code, param    string
		detailContains string
	}{
		{"no type", `{"to":"` + phone + `"}`, 400, "missing_parameter", "type", ""},
		{"unknown field", to(`{"type":"text","text":{"body":"x"},"colour":"red"}`), 400, "invalid_json", "colour", ""},
		{"unknown nested field", to(`{"type":"text","text":{"body":"x","bold":true}}`), 400, "invalid_json", "", "unknown field"},
		{"wrong type of a field", to(`{"type":"text","text":{"body":5}}`), 400, "invalid_json", "text", ""},
		{"unknown message type", to(`{"type":"poll"}`), 422, "invalid_parameter", "type", ""},
		{"missing object", to(`{"type":"text"}`), 422, "invalid_parameter", "text", ""},
		{"another type's object", to(`{"type":"text","text":{"body":"x"},"image":{"link":"https://cdn.example.com/a.jpg"}}`), 422, "invalid_parameter", "image", ""},
		{"text too long", to(`{"type":"text","text":{"body":"` + long + `"}}`), 422, "invalid_parameter", "text.body", "4096"},
		{"four buttons", to(`{"type":"interactive","interactive":{"type":"button","body":{"text":"b"},"action":{"buttons":[` +
			`{"id":"a","title":"a"},{"id":"b","title":"b"},{"id":"c","title":"c"},{"id":"d","title":"d"}]}}}`), 422, "invalid_parameter", "interactive.action.buttons", ""},
		{"button title too long", to(`{"type":"interactive","interactive":{"type":"button","body":{"text":"b"},"action":{"buttons":[` +
			`{"id":"a","title":"twenty-one characters"}]}}}`), 422, "invalid_parameter", "interactive.action.buttons[0].title", ""},
		{"private link", to(`{"type":"image","image":{"link":"https://10.0.0.1/a.jpg"}}`), 422, "invalid_media_url", "image.link", ""},
		{"unknown media", to(`{"type":"image","image":{"mediaId":"med_01j9z3kq7m8n2p4r6t8v0w2y4a"}}`), 404, "media_not_found", "image.mediaId", ""},
		{"no recipient", sessionBodies["text"], 422, "invalid_parameter", "to", ""},
		{"both recipients", `{"to":"` + phone + `","contactId":"` + id + `",` + sessionBodies["text"][1:], 422, "invalid_parameter", "to", ""},
		{"bad number", `{"to":"12",` + sessionBodies["text"][1:], 422, "invalid_phone_number", "to", ""},
		{"unknown contact", `{"contactId":"ctc_01j9z3kq7m8n2p4r6t8v0w2y4a",` + sessionBodies["text"][1:], 404, "contact_not_found", "contactId", ""},
		{"reaction quoting", to(`{"type":"reaction","replyTo":"wamid.x","reaction":{"messageId":"wamid.y","emoji":"👍"}}`), 422, "invalid_parameter", "replyTo", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, body := e.do(t, "POST", sessionURL, e.keyed(e.key), tt.body)
			p := decode[map[string]any](t, body)
			if res.StatusCode != tt.status || p["code"] != tt.code || (tt.param != "" && p["param"] != tt.param) ||
				!strings.Contains(p["detail"].(string), tt.detailContains) {
				t.Fatalf("%d %s, want %d %s naming %q", res.StatusCode, body, tt.status, tt.code, tt.param)
			}
		})
	}
	res, body := e.do(t, "GET", "/v1/messages?limit=100", e.keyed(e.key), "")
	if res.StatusCode != 200 || strings.Count(body, `"kind":"session"`) != 0 {
		t.Fatalf("a refused request stored a message: %s", body)
	}
}

// inbound stores a message the contact (of key's workspace) wrote, in the
// contact's mode, and returns its wamid.
func (e *apiEnv) inbound(t *testing.T, key, contactID string) string {
	t.Helper()
	ctx := context.Background()
	ws := workspaceOf(t, e, key)
	c, err := e.store.GetContact(ctx, ws, domain.ContactID(contactID))
	if err != nil {
		t.Fatal(err)
	}
	entry := porttest.NewInboundEntry(c, "Can I change the address?")
	entry.Mode = c.Mode
	if err := e.store.AppendEntries(ctx, entry); err != nil {
		t.Fatal(err)
	}
	return entry.ProviderID
}

// A contact's message is marked read, with the typing indicator when
// asked, through the sender of the key's mode; an unknown wamid, an
// outbound message's or another workspace's is not found.
func TestMarkRead(t *testing.T) {
	onEveryEngine(t, func(t *testing.T, e *apiEnv) {
		contact := e.contactFor(t, e.key, "+14155550191")
		wamid := e.inbound(t, e.key, contact)
		res, body := e.do(t, "POST", "/v1/messages/"+wamid+"/read", map[string]string{"X-API-KEY": e.key}, "")
		want := canonical(map[string]any{"providerMessageId": wamid, "contactId": contact, "read": true, "typing": false})
		if res.StatusCode != 200 || canonicalString(body) != want {
			t.Fatalf("read: %d %s", res.StatusCode, body)
		}
		res, body = e.do(t, "POST", "/v1/messages/"+wamid+"/read", e.keyed(e.key), `{"typing":true}`)
		if res.StatusCode != 200 || decode[map[string]any](t, body)["typing"] != true {
			t.Fatalf("read with typing: %d %s", res.StatusCode, body)
		}
		for _, id := range []string{"wamid.UNKNOWN", "msg_01j9z3kq7m8n2p4r6t8v0w2y4a"} {
			res, body = e.do(t, "POST", "/v1/messages/"+id+"/read", e.keyed(e.key), "")
			if res.StatusCode != 404 || !strings.Contains(body, `"message_not_found"`) {
				t.Errorf("%s: %d %s", id, res.StatusCode, body)
			}
		}
		res, body = e.do(t, "POST", "/v1/messages/"+wamid+"/read", e.keyed(e.otherKey), "")
		if res.StatusCode != 404 {
			t.Errorf("another workspace's message: %d %s", res.StatusCode, body)
		}
		res, body = e.do(t, "POST", "/v1/messages/"+wamid+"/read", e.keyed(e.key), `{"typing":"yes"}`)
		if res.StatusCode != 400 {
			t.Errorf("bad body: %d %s", res.StatusCode, body)
		}
	})
}
