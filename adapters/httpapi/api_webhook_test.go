package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/test/fakemeta"
)

// The webhook settings of every test API: two app secrets (a rotation in
// progress) and a verify token.
const (
	appSecret    = "4f1c0b7e9a2d6e8f3b5a7c9d1e2f4a6b"
	oldAppSecret = "0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d"
	verifyToken  = "herald-verify-7d0e"
	wabaID       = "102290129340398"
	phoneID      = "106540352242922"
)

// hook posts a webhook body with a signature header (none when empty).
func (e *apiEnv) hook(t *testing.T, body []byte, signature string) (*http.Response, string) {
	t.Helper()
	h := map[string]string{"Content-Type": "application/json"}
	if signature != "" {
		h["X-Hub-Signature-256"] = signature
	}
	return e.do(t, "POST", "/v1/webhooks/whatsapp", h, string(body))
}

// signed posts body signed with the current app secret and fails the test
// unless it is stored and applied.
func (e *apiEnv) signed(t *testing.T, body []byte) {
	t.Helper()
	res, got := e.hook(t, body, fakemeta.Sign(appSecret, body))
	if res.StatusCode != 200 || !strings.Contains(got, `"applied":true`) {
		t.Fatalf("webhook: %d %s", res.StatusCode, got)
	}
}

func (e *apiEnv) storedEvents(t *testing.T) int {
	t.Helper()
	evs, err := e.store.ListWebhookEvents(context.Background(), ports.WebhookEventFilter{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	return len(evs)
}

func TestWebhookHandshake(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	forbidden := problemBody(403, "verification_failed", "Verification failed", "",
		"hub.mode must be subscribe and hub.verify_token must match the configured verify token")
	for _, c := range []struct {
		name, query string
		status      int
		body        string
	}{
		{"the right token", "hub.mode=subscribe&hub.challenge=1158201444&hub.verify_token=" + verifyToken, 200, "1158201444"},
		{"a wrong token", "hub.mode=subscribe&hub.challenge=1158201444&hub.verify_token=guess", 403, forbidden},
		{"another mode", "hub.mode=unsubscribe&hub.challenge=1158201444&hub.verify_token=" + verifyToken, 403, forbidden},
		{"no token", "hub.mode=subscribe&hub.challenge=1158201444", 403, forbidden},
		{"nothing", "", 403, forbidden},
	} {
		res, body := e.do(t, "GET", "/v1/webhooks/whatsapp?"+c.query, nil, "")
		if res.StatusCode != c.status || canonicalString(normalize(body)) != c.body && body != c.body {
			t.Errorf("%s: %d %s, want %d %s", c.name, res.StatusCode, body, c.status, c.body)
		}
		if c.status == 200 && res.Header.Get("Content-Type") != "text/plain; charset=utf-8" {
			t.Errorf("%s: Content-Type %q, want text/plain", c.name, res.Header.Get("Content-Type"))
		}
	}
}

// TestWebhookSignature: only a body signed with a configured app secret,
// over its exact bytes, is stored; everything else is refused before it
// is read as JSON, and leaves nothing behind.
func TestWebhookSignature(t *testing.T) {
	t.Parallel()
	onEveryEngine(t, func(t *testing.T, e *apiEnv) {
		// Meta escapes non-ASCII characters and signs the escaped bytes.
		body := fakemeta.InboundPayload(wabaID, phoneID, fakemeta.Inbound{From: "14155550100", ProfileName: "José 😀",
			Type: "text", Text: "¿Tienen envíos a Málaga? 😀", At: time.Now()})
		if !bytes.Contains(body, []byte(`\u00bfTienen env\u00edos a M\u00e1laga? \ud83d\ude00`)) {
			t.Fatalf("the payload does not escape non-ASCII as Meta does: %s", body)
		}
		good := fakemeta.Sign(appSecret, body)
		flipped := bytes.Clone(body)
		flipped[len(flipped)/2] ^= 1
		unauthorized := problemBody(401, "invalid_signature", "Invalid signature", "",
			"the X-Hub-Signature-256 header does not match the body for any configured app secret")
		for _, c := range []struct {
			name      string
			body      []byte
			signature string
		}{
			{"one byte flipped", flipped, good},
			{"no signature", body, ""},
			{"sha1 only", body, "sha1=" + strings.TrimPrefix(good, "sha256=")[:40]},
			{"uppercase hex", body, "sha256=" + strings.ToUpper(strings.TrimPrefix(good, "sha256="))},
			{"too short", body, good[:len(good)-2]},
			{"another app's secret", body, fakemeta.Sign("not-our-secret", body)},
			{"signed over re-encoded JSON", reencoded(t, body), good},
		} {
			res, got := e.hook(t, c.body, c.signature)
			if res.StatusCode != 401 || canonicalString(normalize(got)) != unauthorized {
				t.Errorf("%s: %d %s, want 401 invalid_signature", c.name, res.StatusCode, got)
			}
		}
		if n := e.storedEvents(t); n != 0 {
			t.Fatalf("refused calls stored %d events", n)
		}

		notJSON := []byte(`{"object":"whatsapp_business_account",`)
		if res, got := e.hook(t, notJSON, fakemeta.Sign(appSecret, notJSON)); res.StatusCode != 400 ||
			canonicalString(normalize(got)) != problemBody(400, "invalid_json", "Invalid JSON", "", "the body is not JSON") {
			t.Errorf("signed but not JSON: %d %s", res.StatusCode, got)
		}
		huge := append([]byte(`{"object":"whatsapp_business_account","entry":[],"pad":"`), bytes.Repeat([]byte("x"), 4<<20)...)
		huge = append(huge, `"}`...)
		if res, got := e.hook(t, huge, fakemeta.Sign(appSecret, huge)); res.StatusCode != 413 ||
			canonicalString(normalize(got)) != problemBody(413, "payload_too_large", "Payload too large", "", "the body is larger than 4 MiB") {
			t.Errorf("over 4 MiB: %d %s", res.StatusCode, got)
		}
		if n := e.storedEvents(t); n != 0 {
			t.Fatalf("refused calls stored %d events", n)
		}

		// The exact bytes verify, with the current secret or the old one.
		res, got := e.hook(t, body, good)
		if res.StatusCode != 200 || !strings.Contains(got, `"duplicate":false,"applied":true`) {
			t.Fatalf("signed body: %d %s", res.StatusCode, got)
		}
		res, got = e.hook(t, body, fakemeta.Sign(oldAppSecret, body))
		if res.StatusCode != 200 || !strings.Contains(got, `"duplicate":true,"applied":true`) {
			t.Fatalf("the same body signed with the old secret: %d %s", res.StatusCode, got)
		}
		if n := e.storedEvents(t); n != 1 {
			t.Errorf("%d events stored, want the body once", n)
		}
		_, contact := e.do(t, "GET", "/v1/contacts/by-phone/+14155550100", e.keyed(e.liveKey), "")
		if !strings.Contains(contact, `"profileName":"José 😀"`) || !strings.Contains(contact, `"waId":"14155550100"`) {
			t.Errorf("the contact who wrote: %s", contact)
		}
	})
}

// reencoded is body decoded and encoded again by encoding/json: the same
// JSON value in other bytes (non-ASCII unescaped), which Meta did not sign.
func reencoded(t *testing.T, body []byte) []byte {
	t.Helper()
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(b, body) {
		t.Fatal("re-encoding kept the bytes; the case proves nothing")
	}
	return b
}

// TestWebhooksMoveMessagesStatsAndThreads follows live messages sent
// through the API as Meta's webhooks report them, out of order, repeated and batched:
// the message, the campaign's statistics and the contact's thread show it
// at once, and a STOP refuses the next send.
func TestWebhooksMoveMessagesStatsAndThreads(t *testing.T) {
	t.Parallel()
	spec := fakemeta.LoadSpec(t)
	onEveryEngine(t, func(t *testing.T, e *apiEnv) {
		send := func(phone string) string {
			t.Helper()
			res, body := e.do(t, "POST", "/v1/messages/send-campaign", e.keyed(e.liveKey),
				`{"phoneNumber":"`+phone+`","campaignId":"`+e.active+`","variables":["Ana","1234"]}`)
			if res.StatusCode != 202 {
				t.Fatalf("send: %d %s", res.StatusCode, body)
			}
			var m struct{ ID string }
			json.Unmarshal([]byte(body), &m)
			return m.ID
		}
		readID, failedID := send("+14155552671"), send("+14155552672")
		now := time.Now().UTC().Truncate(time.Second)
		recipients := map[string]string{readID: "14155552671", failedID: "14155552672"}
		st := func(id, wamid, status string, at time.Duration) fakemeta.StatusUpdate {
			return fakemeta.StatusUpdate{WAMID: wamid, Status: status, BizOpaque: id, RecipientID: recipients[id],
				At: now.Add(at), Pricing: status == "sent"}
		}
		bodies := [][]byte{
			fakemeta.StatusPayload(wabaID, phoneID, st(readID, "wamid.R", "read", 3*time.Second)),
			// Batched: two entries, the second with a failure after sent.
			fakemeta.Batch(
				fakemeta.StatusPayload(wabaID, phoneID, st(readID, "wamid.R", "sent", time.Second)),
				fakemeta.StatusPayload(wabaID, phoneID, st(failedID, "wamid.F", "sent", time.Second),
					fakemeta.StatusUpdate{WAMID: "wamid.F", Status: "failed", BizOpaque: failedID, RecipientID: "14155552672",
						At: now.Add(2 * time.Second), ErrorCode: 131049}),
			),
			fakemeta.StatusPayload(wabaID, phoneID, st(readID, "wamid.R", "delivered", 2*time.Second)),
			fakemeta.StatusPayload(wabaID, phoneID, st(readID, "wamid.R", "delivered", 2*time.Second), st(readID, "wamid.R", "read", 3*time.Second)),
			fakemeta.InboundPayload(wabaID, phoneID,
				fakemeta.Inbound{From: "14155552671", ProfileName: "Ana", Type: "text", Text: "Obrigada! Chegou 👍", At: now.Add(4 * time.Second)},
				fakemeta.Inbound{From: "14155552671", ProfileName: "Ana", Type: "text", Text: "STOP", At: now.Add(5 * time.Second)}),
		}
		for _, b := range bodies {
			if err := spec.CheckWebhook(b); err != nil {
				t.Fatalf("a test payload is not Meta's shape: %v", err)
			}
			e.signed(t, b)
		}

		_, msg := e.do(t, "GET", "/v1/messages/"+readID, e.keyed(e.liveKey), "")
		for _, want := range []string{`"status":"read"`, `"providerMessageId":"wamid.R"`,
			`"pricing":{"model":"PMP","type":"regular","category":"marketing","billable":true}`} {
			if !strings.Contains(msg, want) {
				t.Errorf("the read message lacks %s: %s", want, msg)
			}
		}
		var m struct{ History []struct{ Status string } }
		json.Unmarshal([]byte(msg), &m)
		if got := fmt.Sprint(m.History); got != "[{queued} {sent} {delivered} {read}]" {
			t.Errorf("history %s, want each status once in order", got)
		}
		_, failed := e.do(t, "GET", "/v1/messages/"+failedID, e.keyed(e.liveKey), "")
		if !strings.Contains(failed, `"status":"failed"`) || !strings.Contains(failed, `"error":{"code":131049,`) {
			t.Errorf("the failed message: %s", failed)
		}

		_, stats := e.do(t, "GET", "/v1/campaigns/"+e.active+"/stats", e.keyed(e.liveKey), "")
		for _, want := range []string{`"total":2`, `"read":1`, `"failed":1`, `"deliveryRate":0.5`, `"readRate":1`,
			`"failuresByCode":[{"code":131049,"heraldCode":null,"count":1}]`} {
			if !strings.Contains(stats, want) {
				t.Errorf("stats lack %s: %s", want, stats)
			}
		}
		var s struct {
			Timeline struct {
				Points []struct{ Accepted, Sent, Delivered, Read, Failed int }
			}
		}
		json.Unmarshal([]byte(stats), &s)
		total := [5]int{}
		for _, p := range s.Timeline.Points {
			total[0], total[1], total[2], total[3], total[4] = total[0]+p.Accepted, total[1]+p.Sent, total[2]+p.Delivered, total[3]+p.Read, total[4]+p.Failed
		}
		if total != [5]int{2, 2, 1, 1, 1} {
			t.Errorf("timeline totals accepted/sent/delivered/read/failed = %v, want [2 2 1 1 1]", total)
		}

		_, contact := e.do(t, "GET", "/v1/contacts/by-phone/+14155552671", e.keyed(e.liveKey), "")
		var c struct {
			ID       string
			OptedOut bool
		}
		json.Unmarshal([]byte(contact), &c)
		if !c.OptedOut {
			t.Errorf("after STOP the contact is not opted out: %s", contact)
		}
		_, thread := e.do(t, "GET", "/v1/contacts/"+c.ID+"/conversation", e.keyed(e.liveKey), "")
		var th struct {
			Data []struct {
				Direction, Type, Body string
				Status                *string
			}
		}
		json.Unmarshal([]byte(thread), &th)
		got := []string{}
		for _, d := range th.Data {
			status := ""
			if d.Status != nil {
				status = " " + *d.Status
			}
			got = append(got, d.Direction+" "+d.Type+" "+d.Body+status)
		}
		want := "[inbound text STOP inbound text Obrigada! Chegou 👍 outbound template Hi Ana, your code is 1234 read]"
		if fmt.Sprint(got) != want {
			t.Errorf("thread %v,\nwant %s", got, want)
		}

		res, body := e.do(t, "POST", "/v1/messages/send-campaign", e.keyed(e.liveKey),
			`{"phoneNumber":"+14155552671","campaignId":"`+e.active+`","variables":["Ana","1234"]}`)
		if res.StatusCode != 409 || canonicalString(normalize(body)) != problemBody(409, "contact_opted_out", "Contact opted out", "phoneNumber", "the recipient opted out of messages") {
			t.Errorf("send after STOP: %d %s", res.StatusCode, body)
		}
	})
}
