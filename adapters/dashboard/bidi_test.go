package dashboard_test

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/adapters/dashboard"
	"github.com/heraldhq/herald/adapters/system"
	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/domain"
)

const rlo = "\u202E" // RIGHT-TO-LEFT OVERRIDE: "x\u202Egnp.exe" reads "xexe.png"

var formValues = regexp.MustCompile(`value="[^"]*"`)

// TestTextThatReordersItselfIsIsolatedAndShown: names, messages and
// filenames with a right-to-left override render inside <bdi> with the
// override written out as ⟨U+202E⟩, and filenames show every control and
// format character so; only form fields keep the text as typed.
func TestTextThatReordersItselfIsIsolatedAndShown(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dashboard.Config{})
	ctx := context.Background()
	def, err := app.NewEnsureDefaultWorkspaceHandler(e.store, system.Clock{}, system.NewIDs()).Handle(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.createKey.Handle(ctx, app.CreateKey{Name: "build" + rlo + "gnp.exe", Mode: domain.ModeTest}); err != nil {
		t.Fatal(err)
	}
	camp, err := e.createCampaign.Handle(ctx, app.CreateCampaign{Name: "promo" + rlo + "gnp.exe", TemplateName: "promo",
		Language: "en", Body: "Hi {{1}} " + rlo + "!", VariableLabels: []string{"name" + rlo + "eman"}})
	if err != nil {
		t.Fatal(err)
	}
	name := "Ann" + rlo + "gnp.exe"
	synced, err := e.syncContact.Handle(ctx, app.SyncContact{Principal: domain.Principal{Workspace: def.ID},
		PhoneNumber: "+14155550123", Changes: domain.ContactSync{Name: &name, Tags: []string{"vip" + rlo}}})
	if err != nil {
		t.Fatal(err)
	}
	c := synced.Contact
	at := time.Now().UTC().Truncate(time.Microsecond)
	if err := e.store.AppendEntries(ctx,
		domain.Entry{ID: "ent_01", Workspace: def.ID, ContactID: c.ID, ConversationID: c.ConversationID, Direction: domain.Inbound,
			Kind: domain.KindDocument, ProviderID: "wamid.1", CreatedAt: at,
			Media: &domain.Attachment{ID: "1", MimeType: "application/pdf", Filename: "invoice" + rlo + "gnp.exe\u2066\u200b\x07.pdf"}},
		domain.Entry{ID: "ent_02", Workspace: def.ID, ContactID: c.ID, ConversationID: c.ConversationID, Direction: domain.Inbound,
			Kind: domain.KindText, ProviderID: "wamid.2", Body: "see " + rlo + "gnp.exe", CreatedAt: at.Add(time.Second)},
	); err != nil {
		t.Fatal(err)
	}

	b := e.browser(t)
	b.login()
	for _, tc := range []struct {
		path string
		want []string
	}{
		{"/dashboard/contacts/" + string(c.ID), []string{
			`<bdi class="filename">invoice⟨U+202E⟩gnp.exe⟨U+2066⟩⟨U+200B⟩⟨U+0007⟩.pdf</bdi>`,
			`<dd><bdi>Ann⟨U+202E⟩gnp.exe</bdi></dd>`, `<bdi>see ⟨U+202E⟩gnp.exe</bdi>`, `<bdi>vip⟨U+202E⟩</bdi>`}},
		{"/dashboard/contacts", []string{`<td><bdi>Ann⟨U+202E⟩gnp.exe</bdi></td>`}},
		{"/dashboard/keys", []string{`<td><bdi>build⟨U+202E⟩gnp.exe</bdi></td>`, `data-confirm="Revoke the key build⟨U+202E⟩gnp.exe?`}},
		{"/dashboard/campaigns", []string{`<bdi>promo⟨U+202E⟩gnp.exe</bdi></a>`}},
		{"/dashboard/campaigns/" + string(camp.ID), []string{
			`<title>promo⟨U+202E⟩gnp.exe · Herald</title>`, `<h1><bdi>promo⟨U+202E⟩gnp.exe</bdi></h1>`,
			`<p class="bubble-body" dir="auto">Hi <mark class="var">{{1}} <bdi>name⟨U+202E⟩eman</bdi></mark> ⟨U+202E⟩!</p>`,
			`"variables":["name\u202eeman"]`, `dir="auto" value="promo` + rlo + `gnp.exe"`}},
	} {
		res, body := b.get(tc.path)
		wantStatus(t, res, body, 200)
		for _, want := range tc.want {
			if !strings.Contains(body, want) {
				t.Errorf("%s lacks %s", tc.path, want)
			}
		}
		if outside := formValues.ReplaceAllString(body, ""); strings.Contains(outside, rlo) {
			i := strings.Index(outside, rlo)
			t.Errorf("%s shows a right-to-left override as is, outside form fields: …%s…", tc.path, outside[max(0, i-80):min(len(outside), i+40)])
		}
	}
}
