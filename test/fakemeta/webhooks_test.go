package fakemeta_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/heraldhq/herald/test/fakemeta"
)

const (
	waba  = "102290129340398"
	phone = "106540352242922"
)

var at = time.Date(2025, 6, 16, 0, 27, 53, 0, time.UTC) // 1750033673

// TestWebhookBuildersMatchMetasSpec checks every builder's output against
// Meta's OpenAPI document. Not covered there, so not checked: the "played"
// status and any status outside sent/delivered/read/failed (the Statuses
// enum), system-level errors (no value schema has errors without
// messages or statuses), and message_template_status_update (the Change
// field enum has no such field, and no schema describes its value).
func TestWebhookBuildersMatchMetasSpec(t *testing.T) {
	t.Parallel()
	spec := fakemeta.LoadSpec(t)
	statuses := [][]byte{
		fakemeta.StatusPayload(waba, phone, fakemeta.StatusUpdate{WAMID: "wamid.A", Status: "sent", RecipientID: "16505551234",
			BizOpaque: "msg_01m80000000000000000000001", At: at, Pricing: true}),
		fakemeta.StatusPayload(waba, phone,
			fakemeta.StatusUpdate{WAMID: "wamid.A", Status: "delivered", RecipientID: "16505551234", At: at},
			fakemeta.StatusUpdate{WAMID: "wamid.A", Status: "read", RecipientID: "16505551234", At: at, Pricing: true},
			fakemeta.StatusUpdate{WAMID: "wamid.B", Status: "failed", RecipientID: "16505551234", At: at, ErrorCode: 131049}),
	}
	statuses = append(statuses, fakemeta.Batch(statuses...), fakemeta.BatchChanges(statuses...))
	for _, b := range statuses {
		if err := spec.Check("WebhookPayload", b); err != nil {
			t.Error(err)
		}
	}
	inbound := []fakemeta.Inbound{
		{From: "16505551234", ProfileName: "Sheena Nelson", Type: "text", Text: "Does it come in another color?", At: at},
		{From: "16505551234", Type: "image", Caption: "Taj Mahal", MediaID: "1003383421387256", At: at},
		{From: "16505551234", Type: "video", At: at},
		{From: "16505551234", Type: "document", Caption: "receipt", Filename: "receipt.pdf", At: at},
		{From: "16505551234", Type: "audio", At: at},
		{From: "16505551234", Type: "sticker", At: at},
		{From: "16505551234", Type: "button", Text: "Stop promotions", Payload: "STOP_PROMO", ReplyTo: "wamid.T", At: at},
		{From: "16505551234", Type: "button_reply", Text: "Yes", Payload: "opt_yes", ReplyTo: "wamid.T", At: at},
		{From: "16505551234", Type: "list_reply", Text: "Express", Payload: "express", Description: "Next day", ReplyTo: "wamid.T", At: at},
		{From: "16505551234", Type: "reaction", Text: "👍", ReplyTo: "wamid.T", At: at},
		{From: "16505551234", Type: "location", Text: "Philz Coffee", Caption: "101 Forest Ave, Palo Alto", At: at},
		{From: "16505551234", Type: "contacts", Text: "Lucía Gómez", At: at},
		{From: "16505551234", Type: "unsupported", At: at},
	}
	for _, m := range inbound {
		if err := spec.CheckWebhook(fakemeta.InboundPayload(waba, phone, m)); err != nil {
			t.Errorf("%s: %v", m.Type, err)
		}
	}
	// System notices come without contacts, in a value of their own.
	system := fakemeta.InboundPayload(waba, phone, fakemeta.Inbound{From: "16505551234", Type: "system", At: at})
	if err := spec.CheckWebhook(system); err != nil {
		t.Errorf("system: %v", err)
	}
	if err := spec.CheckWebhook(fakemeta.InboundPayload(waba, phone, inbound...)); err != nil {
		t.Errorf("all in one: %v", err)
	}
	// The checks do reject what Meta would not send.
	for name, bad := range map[string][]byte{
		"status without recipient": []byte(`{"object":"whatsapp_business_account","entry":[{"id":"1","changes":[{"field":"messages","value":{"messaging_product":"whatsapp","metadata":{"display_phone_number":"1","phone_number_id":"2"},"statuses":[{"id":"wamid.A","status":"sent","timestamp":"1"}]}}]}]}`),
		"text without body":        []byte(`{"object":"whatsapp_business_account","entry":[{"id":"1","changes":[{"field":"messages","value":{"messaging_product":"whatsapp","metadata":{"display_phone_number":"1","phone_number_id":"2"},"contacts":[{"profile":{"name":"A"},"wa_id":"1"}],"messages":[{"from":"1","id":"wamid.A","timestamp":"1","type":"text","text":{}}]}}]}]}`),
		"button without context":   []byte(`{"object":"whatsapp_business_account","entry":[{"id":"1","changes":[{"field":"messages","value":{"messaging_product":"whatsapp","metadata":{"display_phone_number":"1","phone_number_id":"2"},"contacts":[{"profile":{"name":"A"},"wa_id":"1"}],"messages":[{"from":"1","id":"wamid.A","timestamp":"1","type":"button","button":{"payload":"P","text":"T"}}]}}]}]}`),
	} {
		if err := spec.CheckWebhook(bad); err == nil {
			t.Errorf("%s passed", name)
		}
	}
}

// TestWebhookBuilderShapes pins the exact bytes of a status and an inbound
// body, as Meta writes them: fields in Meta's order, non-ASCII escaped.
func TestWebhookBuilderShapes(t *testing.T) {
	t.Parallel()
	got := string(fakemeta.StatusPayload(waba, phone, fakemeta.StatusUpdate{WAMID: "wamid.A", Status: "failed",
		RecipientID: "16505551234", BizOpaque: "msg_1", At: at, Pricing: true, ErrorCode: 131049}))
	want := `{"object":"whatsapp_business_account","entry":[{"id":"102290129340398","changes":[{"field":"messages","value":{` +
		`"messaging_product":"whatsapp","metadata":{"display_phone_number":"15550783881","phone_number_id":"106540352242922"},` +
		`"statuses":[{"id":"wamid.A","status":"failed","timestamp":"1750033673","recipient_id":"16505551234",` +
		`"biz_opaque_callback_data":"msg_1","pricing":{"billable":true,"pricing_model":"PMP","type":"regular","category":"marketing"},` +
		`"errors":[{"code":131049,"title":"This message was not delivered to maintain healthy ecosystem engagement.",` +
		`"message":"This message was not delivered to maintain healthy ecosystem engagement.",` +
		`"error_data":{"details":"This message was not delivered to maintain healthy ecosystem engagement."},` +
		`"href":"/documentation/business-messaging/whatsapp/support/error-codes"}]}]}}]}]}`
	if got != want {
		t.Errorf("status:\n got %s\nwant %s", got, want)
	}
	got = string(fakemeta.InboundPayload(waba, phone, fakemeta.Inbound{From: "16505551234", ProfileName: "Zoë",
		WAMID: "wamid.C", Type: "button", Text: "Parar 😀 <ok> & more", Payload: "STOP", ReplyTo: "wamid.T", At: at}))
	want = `{"object":"whatsapp_business_account","entry":[{"id":"102290129340398","changes":[{"field":"messages","value":{` +
		`"messaging_product":"whatsapp","metadata":{"display_phone_number":"15550783881","phone_number_id":"106540352242922"},` +
		`"contacts":[{"profile":{"name":"Zo\u00eb"},"wa_id":"16505551234"}],` +
		`"messages":[{"context":{"from":"15550783881","id":"wamid.T"},"from":"16505551234","id":"wamid.C",` +
		`"timestamp":"1750033673","type":"button","button":{"payload":"STOP","text":"Parar \ud83d\ude00 <ok> & more"}}]}}]}]}`
	if got != want {
		t.Errorf("inbound:\n got %s\nwant %s", got, want)
	}
	got = string(fakemeta.TemplateStatusPayload(waba, "order_confirmation", "en_US", "PAUSED", "NONE", at))
	var v struct {
		Entry []struct {
			ID      string
			Time    int64
			Changes []struct {
				Field string
				Value map[string]any
			}
		}
	}
	dec := json.NewDecoder(strings.NewReader(got))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	c := v.Entry[0].Changes[0]
	if v.Entry[0].ID != waba || v.Entry[0].Time != at.Unix() || c.Field != "message_template_status_update" {
		t.Errorf("template status envelope: %s", got)
	}
	if _, isNumber := c.Value["message_template_id"].(json.Number); !isNumber {
		t.Errorf("message_template_id is not a number: %s", got)
	}
	if !strings.Contains(got, `"event":"PAUSED"`) || !strings.Contains(got, `"message_template_name":"order_confirmation"`) ||
		!strings.Contains(got, `"message_template_language":"en_US"`) || !strings.Contains(got, `"reason":"NONE"`) {
		t.Errorf("template status value: %s", got)
	}
	if got := string(fakemeta.TemplateStatusPayload(waba, "x", "en", "PENDING_DELETION", "", at)); !strings.Contains(got, `"reason":null`) {
		t.Errorf("an empty reason is not null: %s", got)
	}
}

func TestBatchKeepsEveryEntryAndChange(t *testing.T) {
	t.Parallel()
	a := fakemeta.StatusPayload("1", phone, fakemeta.StatusUpdate{WAMID: "wamid.A", Status: "sent", At: at})
	b := fakemeta.InboundPayload("2", phone, fakemeta.Inbound{From: "1", WAMID: "wamid.B", Type: "text", Text: "é", At: at})
	c := fakemeta.TemplateStatusPayload("3", "t", "en", "APPROVED", "NONE", at)
	type shape struct {
		Entry []struct {
			ID      string
			Time    int64
			Changes []json.RawMessage
		}
	}
	read := func(b []byte) shape {
		var s shape
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	all := fakemeta.Batch(a, b, c)
	if s := read(all); len(s.Entry) != 3 || s.Entry[0].ID != "1" || s.Entry[1].ID != "2" || s.Entry[2].ID != "3" || s.Entry[2].Time != at.Unix() {
		t.Errorf("Batch: %s", all)
	}
	one := fakemeta.BatchChanges(a, b, c)
	if s := read(one); len(s.Entry) != 1 || s.Entry[0].ID != "1" || len(s.Entry[0].Changes) != 3 {
		t.Errorf("BatchChanges: %s", one)
	}
	if bytes.ContainsFunc(all, func(r rune) bool { return r > 127 }) {
		t.Errorf("Batch lost the escaping: %s", all)
	}
}

func TestSignAndEscape(t *testing.T) {
	t.Parallel()
	// HMAC-SHA256("key", "The quick brown fox jumps over the lazy dog"), a
	// published test vector.
	const want = "sha256=f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8"
	if got := fakemeta.Sign("key", []byte("The quick brown fox jumps over the lazy dog")); got != want {
		t.Errorf("Sign = %s", got)
	}
	if got := string(fakemeta.EscapeNonASCII([]byte(`{"a":"é😀\u00e9 ok"}`))); got != `{"a":"\u00e9\ud83d\ude00\u00e9 ok"}` {
		t.Errorf("EscapeNonASCII = %s", got)
	}
}

// receiver records webhook calls and answers with the statuses queued,
// then 200.
type receiver struct {
	mu      sync.Mutex
	answers []int
	calls   []call
}

type call struct {
	body             []byte
	signature, ctype string
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	rc.calls = append(rc.calls, call{body, r.Header.Get("X-Hub-Signature-256"), r.Header.Get("Content-Type")})
	status := http.StatusOK
	if len(rc.answers) > 0 {
		status, rc.answers = rc.answers[0], rc.answers[1:]
	}
	rc.mu.Unlock()
	w.WriteHeader(status)
}

func (rc *receiver) got() []call {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]call(nil), rc.calls...)
}

type sentStatus struct {
	Entry []struct {
		Changes []struct {
			Value struct {
				Statuses []struct {
					ID, Status, Timestamp string
					RecipientID           string `json:"recipient_id"`
					BizOpaque             string `json:"biz_opaque_callback_data"`
					Pricing               *struct{ Category string }
					Errors                []struct{ Code int }
				}
			}
		}
	}
}

func emitter(t *testing.T, statuses []string, answers ...int) (*fakemeta.Server, *receiver) {
	t.Helper()
	rc := &receiver{answers: answers}
	hook := httptest.NewServer(rc)
	t.Cleanup(hook.Close)
	fake := fakemeta.New(t)
	fake.AddTemplate(fakemeta.Template{Name: "welcome", Language: "en_US", Status: "APPROVED", BodyParams: 1, Category: "MARKETING"})
	fake.WebhookURL, fake.AppSecret, fake.WebhookStatuses = hook.URL+"/v1/webhooks/whatsapp", "s3cret", statuses
	return fake, rc
}

// sendOne posts a template send to the fake and returns the wamid.
func sendOne(t *testing.T, fake *fakemeta.Server, biz string) string {
	t.Helper()
	return sendWith(t, http.DefaultClient, fake, biz)
}

// sendWith is sendOne through client.
func sendWith(t *testing.T, client *http.Client, fake *fakemeta.Server, biz string) string {
	t.Helper()
	body := `{"messaging_product":"whatsapp","recipient_type":"individual","to":"+5511988887777","type":"template",` +
		`"biz_opaque_callback_data":"` + biz + `","template":{"name":"welcome","language":{"policy":"deterministic","code":"en_US"},` +
		`"components":[{"type":"body","parameters":[{"type":"text","text":"Ana"}]}]}}`
	req, _ := http.NewRequest(http.MethodPost, fake.URL+"/"+fake.PhoneNumberID+"/messages", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+fake.Token)
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		io.Copy(io.Discard, res.Body) // to its end, so that the connection can be used again
		res.Body.Close()
	}()
	var a struct{ Messages []struct{ ID string } }
	if err := json.NewDecoder(res.Body).Decode(&a); err != nil || res.StatusCode != 200 || len(a.Messages) != 1 {
		t.Fatalf("send: HTTP %d %v", res.StatusCode, err)
	}
	return a.Messages[0].ID
}

func TestEmitterPostsSignedStatusesInOrder(t *testing.T) {
	t.Parallel()
	spec := fakemeta.LoadSpec(t)
	fake, rc := emitter(t, []string{"read", "sent", "sent", "failed:131050", "delivered"})
	wamid := sendOne(t, fake, "msg_01m80000000000000000000007")
	fake.WaitWebhooks()
	calls := rc.got()
	var got []string
	for _, c := range calls {
		if c.signature != fakemeta.Sign("s3cret", c.body) || c.ctype != "application/json" {
			t.Errorf("signature %q, content type %q for %s", c.signature, c.ctype, c.body)
		}
		var s sentStatus
		if err := json.Unmarshal(c.body, &s); err != nil {
			t.Fatal(err)
		}
		st := s.Entry[0].Changes[0].Value.Statuses[0]
		if st.ID != wamid || st.BizOpaque != "msg_01m80000000000000000000007" || st.RecipientID != "5511988887777" {
			t.Errorf("status %s: %+v", st.Status, st)
		}
		if (st.Pricing != nil) != (st.Status == "sent") || (st.Pricing != nil && st.Pricing.Category != "marketing") {
			t.Errorf("pricing on %s: %+v", st.Status, st.Pricing)
		}
		if st.Status == "failed" && (len(st.Errors) != 1 || st.Errors[0].Code != 131050) {
			t.Errorf("failed errors: %+v", st.Errors)
		}
		got = append(got, st.Status+"@"+st.Timestamp)
		if err := spec.Check("WebhookPayload", c.body); err != nil {
			t.Error(err)
		}
	}
	if len(got) != 5 {
		t.Fatalf("got %v", got)
	}
	// Posted in the configured order; timestamps follow the lifecycle.
	ts := func(i int) string { return strings.SplitN(got[i], "@", 2)[1] }
	if !strings.HasPrefix(got[0], "read@") || !strings.HasPrefix(got[1], "sent@") || !strings.HasPrefix(got[2], "sent@") ||
		!strings.HasPrefix(got[3], "failed@") || !strings.HasPrefix(got[4], "delivered@") ||
		ts(1) != ts(2) || ts(1) >= ts(4) || ts(4) >= ts(0) {
		t.Errorf("order: %v", got)
	}
	if d := len(fake.WebhookDeliveries()); d != 5 {
		t.Errorf("%d deliveries recorded, want 5", d)
	}
}

func TestEmitterDefaultsToSentDeliveredRead(t *testing.T) {
	t.Parallel()
	fake, rc := emitter(t, nil)
	sendOne(t, fake, "msg_01m80000000000000000000008")
	fake.WaitWebhooks()
	var got []string
	for _, c := range rc.got() {
		var s sentStatus
		json.Unmarshal(c.body, &s)
		got = append(got, s.Entry[0].Changes[0].Value.Statuses[0].Status)
	}
	if d := cmp.Diff([]string{"sent", "delivered", "read"}, got); d != "" {
		t.Errorf("statuses (-want +got):\n%s", d)
	}
}

func TestEmitterRetriesNon200(t *testing.T) {
	t.Parallel()
	// The first status is answered 500 then 503, and goes through on the
	// third try; the second is answered 500 three times and is given up.
	fake, rc := emitter(t, []string{"sent", "delivered"}, 500, 503, 200, 500, 500, 500)
	sendOne(t, fake, "msg_01m80000000000000000000009")
	fake.WaitWebhooks()
	type attempt struct{ Status, Attempt int }
	var got []attempt
	ds := fake.WebhookDeliveries()
	for _, d := range ds {
		got = append(got, attempt{d.Status, d.Attempt})
	}
	want := []attempt{{500, 1}, {503, 2}, {200, 3}, {500, 1}, {500, 2}, {500, 3}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("deliveries (-want +got):\n%s", d)
	}
	if len(ds) == 6 && (!bytes.Equal(ds[0].Body, ds[2].Body) || bytes.Equal(ds[2].Body, ds[3].Body)) {
		t.Error("a retry did not resend the same body")
	}
	if n := len(rc.got()); n != 6 {
		t.Errorf("receiver got %d calls, want 6", n)
	}
}

func TestPostWebhook(t *testing.T) {
	t.Parallel()
	fake, rc := emitter(t, []string{}, http.StatusForbidden)
	body := fakemeta.InboundPayload(waba, phone, fakemeta.Inbound{From: "16505551234", Type: "text", Text: "olá", At: at})
	res, err := fake.PostWebhook(body)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusForbidden {
		t.Errorf("HTTP %d", res.StatusCode)
	}
	calls := rc.got()
	if len(calls) != 1 || !bytes.Equal(calls[0].body, body) || calls[0].signature != fakemeta.Sign("s3cret", body) {
		t.Errorf("calls: %+v", calls)
	}
	if ds := fake.WebhookDeliveries(); len(ds) != 1 || ds[0].Status != http.StatusForbidden {
		t.Errorf("deliveries: %+v", ds)
	}
}

func TestEmitterOnlyReachesLoopback(t *testing.T) {
	t.Parallel()
	fake := fakemeta.New(t)
	for _, target := range []string{"http://192.0.2.1/hook", "http://example.com/hook", "ftp://127.0.0.1/hook"} {
		fake.WebhookURL = target
		if res, err := fake.PostWebhook([]byte(`{}`)); err == nil {
			res.Body.Close()
			t.Errorf("%s was posted to", target)
		}
	}
}

func TestEmitterStopsWhenTheTestEnds(t *testing.T) {
	t.Parallel()
	// A receiver that never answers: the fake's cleanup cancels the
	// emission instead of waiting for its timeout.
	block := make(chan struct{})
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-block:
		case <-r.Context().Done():
		}
	}))
	defer hook.Close()
	defer close(block)
	start := time.Now()
	t.Run("send", func(t *testing.T) {
		fake := fakemeta.New(t)
		fake.AddTemplate(fakemeta.Template{Name: "welcome", Language: "en_US", Status: "APPROVED", BodyParams: 1})
		fake.WebhookURL = hook.URL
		sendOne(t, fake, "msg_01m80000000000000000000010")
	})
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("cleanup took %v", d)
	}
}
