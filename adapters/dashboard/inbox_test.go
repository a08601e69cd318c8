package dashboard_test

import (
	"context"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/adapters/dashboard"
	"github.com/heraldhq/herald/adapters/system"
	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// threadLink finds the first conversation's path on the inbox page.
var threadLink = regexp.MustCompile(`href="(/dashboard/inbox/ctc_[0-9a-z]+)"`)

// sendKey finds the reply form's Idempotency-Key.
var sendKey = regexp.MustCompile(`name="key" value="([^"]+)"`)

func mustStatus(t *testing.T, what string, res *http.Response, body string, want int) {
	t.Helper()
	if res.StatusCode != want {
		t.Fatalf("%s answered %d, want %d:\n%s", what, res.StatusCode, want, body)
	}
}

func mustShow(t *testing.T, what, body string, texts ...string) {
	t.Helper()
	for _, s := range texts {
		if !strings.Contains(body, s) {
			t.Fatalf("%s does not show %q:\n%s", what, s, body)
		}
	}
}

// A customer's message arrives in the inbox as unread; opening the thread
// shows it and reads it; a reply goes out through the session send, once
// however often the form is sent, and shows in the thread.
func TestInboxReply(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dashboard.Config{})
	b := e.browser(t)
	b.login()
	b.get("/dashboard/inbox")
	res, body := b.post("/dashboard/inbox/simulate", url.Values{"from": {"+447700900123"}, "text": {"Can I change the delivery address?"}})
	mustStatus(t, "simulating a customer", res, body, http.StatusSeeOther)
	if loc := res.Header.Get("Location"); loc != "/dashboard/inbox" {
		t.Fatalf("simulating went to %q, want the inbox", loc)
	}
	res, body = b.get("/dashboard/inbox")
	mustStatus(t, "the inbox", res, body, http.StatusOK)
	mustShow(t, "the inbox", body, "+447700900123", "Can I change the delivery address?", `1<span class="visually-hidden"> unread</span>`)
	m := threadLink.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("the inbox links no conversation:\n%s", body)
	}
	thread := m[1]

	res, body = b.get(thread)
	mustStatus(t, "the thread", res, body, http.StatusOK)
	mustShow(t, "the thread", body, "Can I change the delivery address?", "The window for free-form replies is open for", "Send reply")
	if strings.Contains(body, "WhatsApp could not be told") {
		t.Fatalf("the sandbox refused the read receipt:\n%s", body)
	}
	_, body = b.get("/dashboard/inbox")
	if strings.Contains(body, "unread") {
		t.Fatalf("the inbox still counts unread messages after the thread was opened:\n%s", body)
	}

	_, body = b.get(thread)
	key := sendKey.FindStringSubmatch(body)[1]
	reply := url.Values{"type": {"text"}, "text": {"Yes, of course: which address?"}, "key": {key}}
	res, body = b.post(thread+"/reply", reply)
	mustStatus(t, "replying", res, body, http.StatusSeeOther)
	res, body = b.post(thread+"/reply", reply) // pressed twice
	mustStatus(t, "replying again with the same form", res, body, http.StatusSeeOther)
	_, body = b.get(thread)
	if n := strings.Count(body, "Yes, of course: which address?"); n != 1 {
		t.Fatalf("the thread shows the reply %d times, want once:\n%s", n, body)
	}
	if strings.Contains(body, "Not delivered") {
		t.Fatalf("the thread calls a message undelivered:\n%s", body)
	}
	if first, second := strings.Index(body, "Can I change"), strings.Index(body, "Yes, of course"); first > second {
		t.Fatalf("the thread is not oldest first:\n%s", body)
	}
	_, inbox := b.get("/dashboard/inbox")
	mustShow(t, "the inbox", inbox, "You: <bdi>Yes, of course: which address?</bdi>")

	// One attachment by link, the message box's text as its caption.
	_, body = b.get(thread)
	key = sendKey.FindStringSubmatch(body)[1]
	res, body = b.post(thread+"/reply", url.Values{"type": {"image"}, "link": {"https://example.com/map.jpg"},
		"text": {"Here is the map"}, "key": {key}})
	mustStatus(t, "replying with an image", res, body, http.StatusSeeOther)
	_, body = b.get(thread)
	mustShow(t, "the thread", body, "Here is the map")
}

// The reply box refuses what cannot be sent with the reason, keeping what
// was typed, and an opted-out contact's refusal says so.
func TestInboxReplyRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dashboard.Config{})
	b := e.browser(t)
	b.login()
	b.get("/dashboard/inbox")
	b.post("/dashboard/inbox/simulate", url.Values{"from": {"+447700900124"}, "text": {"Hi"}})
	_, body := b.get("/dashboard/inbox")
	thread := threadLink.FindStringSubmatch(body)[1]
	contact := strings.Replace(thread, "/inbox/", "/contacts/", 1)

	for _, tc := range []struct {
		name string
		form url.Values
		want string
	}{
		{"empty", url.Values{"type": {"text"}, "text": {"  "}}, "text: write a message to send"},
		{"no link", url.Values{"type": {"image"}, "caption": {"the label"}}, "image.link: give the attachment"},
		{"plain http", url.Values{"type": {"document"}, "link": {"http://example.com/a.pdf"}, "filename": {"a.pdf"}}, "Nothing was sent."},
		{"unknown type", url.Values{"type": {"sticker"}, "link": {"https://example.com/a.webp"}}, "type: send a text"},
		{"audio with text", url.Values{"type": {"audio"}, "link": {"https://example.com/a.ogg"}, "text": {"listen"}}, "caption: an audio has no caption"},
		{"bad key", url.Values{"type": {"text"}, "text": {"hello"}, "key": {""}}, "Idempotency-Key"},
	} {
		b.get(thread)
		if _, ok := tc.form["key"]; !ok {
			tc.form.Set("key", "k-"+tc.name)
		}
		res, body := b.post(thread+"/reply", tc.form)
		mustStatus(t, tc.name, res, body, http.StatusUnprocessableEntity)
		mustShow(t, tc.name, body, tc.want)
		if v := tc.form.Get("caption"); v != "" {
			mustShow(t, tc.name, body, `value="`+v+`"`)
		}
	}

	b.get(contact)
	res, body := b.post(contact, url.Values{"tags": {"vip, late payer"}, "optedOut": {"true"}})
	mustStatus(t, "opting the contact out", res, body, http.StatusSeeOther)
	_, body = b.get(contact)
	mustShow(t, "the contact", body, "opted out", "late payer", "vip")
	b.get(thread)
	res, body = b.post(thread+"/reply", url.Values{"type": {"text"}, "text": {"Still there?"}, "key": {"k-opted-out"}})
	mustStatus(t, "replying to an opted-out contact", res, body, http.StatusConflict)
	mustShow(t, "the refusal", body, "Nothing was sent: the recipient opted out of messages.", "Still there?")
}

// Outside the window the thread offers the workspace's active campaigns;
// one is sent with its variables, and a missing variable is refused.
func TestInboxTemplatePicker(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dashboard.Config{})
	ctx := context.Background()
	ws := e.defaultWorkspace(t)
	c, err := e.createCampaign.Handle(ctx, app.CreateCampaign{Workspace: string(ws), Name: "Order update",
		TemplateName: "order_update", Language: "en", Body: "Hi {{1}}, your order {{2}} is on its way.",
		VariableLabels: []string{"First name", "Order"}, Activate: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.createCampaign.Handle(ctx, app.CreateCampaign{Workspace: string(ws), Name: "Draft one",
		TemplateName: "draft_one", Language: "en", Body: "Not yet"}); err != nil {
		t.Fatal(err)
	}
	r, err := e.syncContact.Handle(ctx, app.SyncContact{Principal: domain.Principal{Workspace: ws, Mode: domain.ModeTest},
		PhoneNumber: "+447700900125"})
	if err != nil {
		t.Fatal(err)
	}
	thread := "/dashboard/inbox/" + string(r.Contact.ID)
	b := e.browser(t)
	b.login()
	res, body := b.get(thread)
	mustStatus(t, "the thread", res, body, http.StatusOK)
	mustShow(t, "the thread", body, "This contact has not written to you", "Order update", "First name", "Order")
	if strings.Contains(body, "Draft one") || strings.Contains(body, "Send reply") {
		t.Fatalf("the closed window offers a draft campaign or the reply box:\n%s", body)
	}
	key := sendKey.FindStringSubmatch(body)[1]
	res, body = b.post(thread+"/template", url.Values{"campaignId": {string(c.ID)}, "variable": {"Asha"}, "key": {key}})
	mustStatus(t, "a template with a variable missing", res, body, http.StatusUnprocessableEntity)
	mustShow(t, "the refusal", body, "Nothing was sent.", "variables", `value="Asha"`)

	b.get(thread)
	res, body = b.post(thread+"/template", url.Values{"campaignId": {string(c.ID)}, "variable": {"Asha", "A-1001"}, "key": {key}})
	mustStatus(t, "sending the template", res, body, http.StatusSeeOther)
	_, body = b.get(thread)
	mustShow(t, "the thread", body, "Hi Asha, your order A-1001 is on its way.")

	// When WhatsApp fails it, the thread says why.
	es, _, err := e.store.ListEntries(ctx, ws, r.Contact.ID, domain.KeyMode{}, ports.Page{})
	if err != nil || len(es) != 1 {
		t.Fatalf("the thread holds %d entries (%v), want the template", len(es), err)
	}
	if _, err := e.store.UpdateMessage(ctx, ws, es[0].MessageID, func(m *domain.Message) error {
		m.Advance(domain.StatusFailed, time.Now(), &domain.Failure{Code: 131026, Title: "Message undeliverable"})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	_, body = b.get(thread)
	mustShow(t, "the thread", body, "Not delivered: <bdi>Message undeliverable</bdi> (WhatsApp error 131026)")

	b.get(thread)
	res, body = b.post(thread+"/template", url.Values{"campaignId": {"cmp_0000000000000000000000000"}, "key": {"k-gone"}})
	mustStatus(t, "a campaign that does not exist", res, body, http.StatusNotFound)
	mustShow(t, "the refusal", body, "that template is no longer available")

	b.get(thread)
	res, body = b.post(thread+"/reply", url.Values{"type": {"text"}, "text": {"Hello"}, "key": {"k-closed"}})
	mustStatus(t, "a free-form reply outside the window", res, body, http.StatusUnprocessableEntity)
	mustShow(t, "the refusal", body, "the 24-hour window for free-form replies is closed")
}

// Every inbox route wants a signed-in operator, its forms their token, and
// another workspace's contact is not found.
func TestInboxGuards(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dashboard.Config{})
	ctx := context.Background()
	r, err := e.syncContact.Handle(ctx, app.SyncContact{Principal: domain.Principal{Workspace: e.other}, PhoneNumber: "+447700900126"})
	if err != nil {
		t.Fatal(err)
	}
	theirs := string(r.Contact.ID)
	forms := map[string]url.Values{
		"/dashboard/inbox/simulate":                {"from": {"+447700900127"}, "text": {"hi"}},
		"/dashboard/inbox/" + theirs + "/reply":    {"type": {"text"}, "text": {"hi"}, "key": {"k"}},
		"/dashboard/inbox/" + theirs + "/template": {"campaignId": {"cmp_x"}, "key": {"k"}},
		"/dashboard/contacts/" + theirs:            {"tags": {"x"}, "optedOut": {"false"}},
	}

	anon := e.browser(t)
	for _, path := range []string{"/dashboard/inbox", "/dashboard/inbox/" + theirs} {
		res, body := anon.get(path)
		mustStatus(t, "GET "+path+" signed out", res, body, http.StatusSeeOther)
	}
	for path, form := range forms {
		res, body := anon.post(path, maps.Clone(form))
		mustStatus(t, "POST "+path+" signed out", res, body, http.StatusSeeOther)
		if !strings.HasPrefix(res.Header.Get("Location"), "/dashboard/login") {
			t.Fatalf("POST %s signed out went to %q", path, res.Header.Get("Location"))
		}
	}

	b := e.browser(t)
	b.login()
	b.get("/dashboard/inbox")
	for path, form := range forms {
		f := url.Values{"csrf": {"forged"}}
		for k, v := range form {
			f[k] = v
		}
		res, body := b.post(path, f)
		mustStatus(t, "POST "+path+" without the token", res, body, http.StatusForbidden)
	}
	for path, form := range forms {
		if path == "/dashboard/inbox/simulate" {
			continue
		}
		b.get("/dashboard/inbox")
		res, body := b.post(path, maps.Clone(form))
		mustStatus(t, "POST "+path+" of another workspace's contact", res, body, http.StatusNotFound)
	}
	res, body := b.get("/dashboard/inbox/" + theirs)
	mustStatus(t, "another workspace's thread", res, body, http.StatusNotFound)

	res, body = b.get("/dashboard/inbox?mode=staging")
	mustStatus(t, "an unknown mode", res, body, http.StatusUnprocessableEntity)
	res, body = b.get("/dashboard/inbox?cursor=nonsense")
	mustStatus(t, "a foreign cursor", res, body, http.StatusUnprocessableEntity)

	b.get("/dashboard/inbox")
	res, body = b.post("/dashboard/inbox/simulate", url.Values{"from": {"12"}, "text": {"my typed words"}})
	mustStatus(t, "simulating from a bad number", res, body, http.StatusUnprocessableEntity)
	mustShow(t, "the refusal", body, "E.164", "my typed words")

	req, _ := http.NewRequest(http.MethodPost, b.base+"/dashboard/inbox/simulate", strings.NewReader(`{"from":"+447700900127"}`))
	req.Header.Set("Content-Type", "application/json")
	res, body = b.do(req)
	mustStatus(t, "a JSON body", res, body, http.StatusUnsupportedMediaType)
}

// A contact's tags are checked: more than 50 are refused, with what was
// typed kept.
func TestContactEditRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dashboard.Config{})
	r, err := e.syncContact.Handle(context.Background(), app.SyncContact{Principal: domain.Principal{Workspace: e.defaultWorkspace(t)},
		PhoneNumber: "+447700900128"})
	if err != nil {
		t.Fatal(err)
	}
	path := "/dashboard/contacts/" + string(r.Contact.ID)
	b := e.browser(t)
	b.login()
	b.get(path)
	tags := make([]string, 51)
	for i := range tags {
		tags[i] = "t" + strings.Repeat("x", i%5) + string(rune('a'+i%26)) + string(rune('a'+i/26))
	}
	res, body := b.post(path, url.Values{"tags": {strings.Join(tags, ", ")}, "optedOut": {"false"}})
	mustStatus(t, "51 tags", res, body, http.StatusUnprocessableEntity)
	mustShow(t, "the refusal", body, "tags: a contact has at most 50 tags", tags[50])
}

// A contact's image shows inline, their audio as a player and their
// document as a link, each fetched through the dashboard's media route by
// the media id named after its thread entry.
func TestThreadShowsMedia(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dashboard.Config{})
	ctx := context.Background()
	ws := e.defaultWorkspace(t)
	r, err := e.syncContact.Handle(ctx, app.SyncContact{Principal: domain.Principal{Workspace: ws, Mode: domain.ModeTest},
		PhoneNumber: "+447700900129"})
	if err != nil {
		t.Fatal(err)
	}
	ids := system.NewIDs()
	var es []domain.Entry
	for _, m := range []domain.InboundMessage{
		{Kind: domain.KindImage, Text: "the dent", Media: &domain.Attachment{ID: "med_img1", MimeType: "image/jpeg"}},
		{Kind: domain.KindAudio, Media: &domain.Attachment{ID: "med_aud1", MimeType: "audio/ogg"}},
		{Kind: domain.KindDocument, Media: &domain.Attachment{ID: "med_doc1", MimeType: "application/pdf", Filename: "invoice.pdf"}},
	} {
		m.ProviderID, m.At = "wamid."+ids.NewID("x"), time.Now()
		e := domain.InboundEntry(domain.EntryID(ids.NewID(domain.PrefixEntry)), r.Contact, m, "")
		e.Mode = domain.ModeTest
		es = append(es, e)
	}
	if err := e.store.AppendEntries(ctx, es...); err != nil {
		t.Fatal(err)
	}
	b := e.browser(t)
	b.login()
	res, body := b.get("/dashboard/inbox/" + string(r.Contact.ID))
	mustStatus(t, "the thread", res, body, http.StatusOK)
	mediaPath := func(e domain.Entry) string {
		return "/dashboard/media/med" + strings.TrimPrefix(string(e.ID), "ent") + "/content"
	}
	mustShow(t, "the thread", body,
		`<img src="`+mediaPath(es[0])+`" alt="Image: the dent"`,
		`<audio controls preload="none" src="`+mediaPath(es[1])+`">`,
		`<a href="`+mediaPath(es[2])+`" class="entry-file">Download <bdi class="filename">invoice.pdf</bdi></a>`)
}

// The largest reply the box takes, every field at its limit in four-byte
// characters, fits the form's body limit.
func TestInboxLargestReplyFits(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dashboard.Config{})
	b := e.browser(t)
	b.login()
	b.get("/dashboard/inbox")
	b.post("/dashboard/inbox/simulate", url.Values{"from": {"+447700900130"}, "text": {"Hi"}})
	_, body := b.get("/dashboard/inbox")
	thread := threadLink.FindStringSubmatch(body)[1]
	b.get(thread)
	res, body := b.post(thread+"/reply", url.Values{"type": {"document"},
		"link":     {"https://example.com/" + strings.Repeat("%", 1980)},
		"text":     {strings.Repeat("😀", 4096)},
		"caption":  {strings.Repeat("😀", 1024)},
		"filename": {strings.Repeat("😀", 240)},
		"key":      {"k-largest"}})
	if res.StatusCode == http.StatusRequestEntityTooLarge {
		t.Fatalf("the largest reply is refused as too large:\n%s", body)
	}
}
