package porttest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// Templates belong to a WhatsApp Business Account, not a workspace: each
// case isolates its templates by a fresh random account.
var templateTests = []storeTest{
	{"RoundTrip", testTemplateRoundTrip},
	{"SlotsRoundTrip", testTemplateSlotsRoundTrip},
	{"ButtonsRoundTrip", testTemplateButtonsRoundTrip},
	{"Replace", testTemplateReplace},
	{"ReplaceWithNone", testTemplateReplaceWithNone},
	{"OtherAccount", testTemplateOtherAccount},
	{"NotFound", testTemplateNotFound},
	{"Rollback", testTemplateRollback},
	{"SetStatus", testTemplateSetStatus},
	{"VerdictsPerAccount", testTemplateVerdictsPerAccount},
	{"AnyLanguageForm", testTemplateAnyLanguageForm},
}

// templateSet returns four templates of account, written out of order: two
// languages of order_update, an image header without placeholders, and one
// Herald cannot send, named ordera so that it sorts after order_update byte
// by byte but before it in a collation that ignores underscores.
func templateSet(t *testing.T, account string) []domain.SyncedTemplate {
	t.Helper()
	us := NewSyncedTemplate(t, account, "order_update", "en_US")
	en := NewSyncedTemplate(t, account, "order_update", "en")
	en.Definition.Placeholders[1].Label = "" // one labelled, one not
	en.Status, en.Category = domain.TemplatePending, "UTILITY"
	image := NewSyncedTemplate(t, account, "order_0", "pt_BR")
	def, err := domain.NewTemplate("order_0", "pt_BR", domain.HeaderImage, "", "Seu pedido chegou.", "", nil)
	if err != nil {
		t.Fatalf("NewTemplate: %v", err)
	}
	image.Definition = def
	unsupported := NewUnsupportedTemplate(account, "ordera", "en")
	return []domain.SyncedTemplate{unsupported, us, image, en}
}

// sortedTemplates is ts in the order ListTemplates promises.
func sortedTemplates(ts ...domain.SyncedTemplate) []domain.SyncedTemplate {
	out := cloneSyncedTemplates(ts)
	slices.SortFunc(out, func(a, b domain.SyncedTemplate) int {
		return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.Language, b.Language))
	})
	return out
}

func replaceTemplates(t *testing.T, s ports.TemplateRepository, account string, ts []domain.SyncedTemplate) {
	t.Helper()
	if err := s.ReplaceTemplates(t.Context(), account, ts); err != nil {
		t.Fatalf("ReplaceTemplates: %v", err)
	}
}

// mustListTemplates checks that the account's templates are exactly want,
// in order, and that each one reads back alone.
func mustListTemplates(t *testing.T, s Store, account string, want []domain.SyncedTemplate) {
	t.Helper()
	got, err := s.ListTemplates(t.Context(), account)
	if err != nil {
		t.Fatalf("ListTemplates: %v", err)
	}
	mustEqual(t, "templates listed", want, got)
	for _, w := range want {
		one, err := s.GetTemplate(t.Context(), account, w.Name, w.Language)
		if err != nil {
			t.Fatalf("GetTemplate %s (%s): %v", w.Name, w.Language, err)
		}
		mustEqual(t, "template "+w.Name+" ("+w.Language+")", w, one)
	}
}

// A synced template keeps every slot with its default mapping; one stored
// before slots existed (nil Slots) reads back without them.
func testTemplateSlotsRoundTrip(t *testing.T, s Store) {
	account := NewAccount()
	rich := NewSyncedTemplate(t, account, "flash_sale", "en_US")
	rich.Definition = NewSlotsTemplate(t)
	old := NewSyncedTemplate(t, account, "order_update", "en_US")
	old.Definition.Slots = nil
	replaceTemplates(t, s, account, []domain.SyncedTemplate{rich, old})
	for _, want := range []domain.SyncedTemplate{rich, old} {
		got, err := s.GetTemplate(t.Context(), account, want.Name, want.Language)
		if err != nil {
			t.Fatalf("GetTemplate: %v", err)
		}
		mustEqual(t, "template "+want.Name, want, got)
		if want.Definition.Slots == nil && got.Definition.Slots != nil {
			t.Fatalf("a template without slots reads back with %+v", got.Definition.Slots)
		}
	}
}

// A synced template keeps every button in order, the static ones that take
// no value with their URL or phone number; one stored before buttons were
// kept (nil Buttons) reads back with its buttons unknown, not as none.
func testTemplateButtonsRoundTrip(t *testing.T, s Store) {
	account := NewAccount()
	buttons := NewSyncedTemplate(t, account, "store_hours", "en_US")
	def, err := domain.DefineTemplate(domain.TemplateDefinition{Name: "store_hours", Language: "en_US",
		Body: "We open at 9 for {{1}}.", Buttons: []domain.ButtonDef{
			{Kind: domain.ButtonURL, Text: "Our hours", URL: "https://shop.example/hours"},
			{Kind: domain.ButtonPhone, Text: "Call us", PhoneNumber: "+15550100"},
			{Kind: domain.ButtonVoiceCall, Text: "Call on WhatsApp"},
			{Kind: domain.ButtonURL, Text: "Track", URL: "https://shop.example/t/{{1}}"},
			{Kind: domain.ButtonQuickReply, Text: "Stop"}, {Kind: domain.ButtonQuickReply, Text: "More"}}})
	if err != nil {
		t.Fatalf("DefineTemplate: %v", err)
	}
	buttons.Definition = def
	none := NewSyncedTemplate(t, account, "order_update", "en_US")
	old := NewSyncedTemplate(t, account, "order_update", "en")
	old.Definition.Buttons = nil
	replaceTemplates(t, s, account, []domain.SyncedTemplate{buttons, none, old})
	for _, want := range []domain.SyncedTemplate{buttons, none, old} {
		got, err := s.GetTemplate(t.Context(), account, want.Name, want.Language)
		if err != nil {
			t.Fatalf("GetTemplate: %v", err)
		}
		mustEqual(t, "template "+want.Name+" ("+want.Language+")", want, got)
		if (want.Definition.Buttons == nil) != (got.Definition.Buttons == nil) {
			t.Fatalf("template %s (%s): buttons %#v read back as %#v: unknown and none must stay apart",
				want.Name, want.Language, want.Definition.Buttons, got.Definition.Buttons)
		}
	}
	got, err := s.GetTemplate(t.Context(), account, "store_hours", "en_US")
	if err != nil {
		t.Fatalf("GetTemplate: %v", err)
	}
	if b := got.Definition.Buttons; len(b) != 6 || b[0].URL != "https://shop.example/hours" || b[1].PhoneNumber != "+15550100" ||
		b[2].Kind != domain.ButtonVoiceCall {
		t.Fatalf("static buttons read back as %#v", b)
	}
}

func testTemplateRoundTrip(t *testing.T, s Store) {
	account := NewAccount()
	written := templateSet(t, account)
	want := sortedTemplates(written...)
	replaceTemplates(t, s, account, written)

	// The store keeps its own copy: changing what was written, or what was
	// read, changes nothing stored.
	written[1].Definition.Placeholders[0].Label = "changed"
	written[1].Status = domain.TemplateDisabled
	mustListTemplates(t, s, account, want)
	got, err := s.ListTemplates(t.Context(), account)
	if err != nil {
		t.Fatalf("ListTemplates: %v", err)
	}
	for i := range got {
		if len(got[i].Definition.Placeholders) > 0 {
			got[i].Definition.Placeholders[0].Label = "changed"
		}
	}
	one, err := s.GetTemplate(t.Context(), account, "order_update", "en_US")
	if err != nil {
		t.Fatalf("GetTemplate: %v", err)
	}
	one.Definition.Placeholders[0].Label = "changed"
	mustListTemplates(t, s, account, want)

	if got[0].Name != "order_0" || !got[0].Definition.HeaderFormat.IsMedia() {
		t.Fatalf("first template listed is %s (%s); want order_0 first, byte order", got[0].Name, got[0].Language)
	}
	last := want[len(want)-1]
	if !last.Definition.HeaderFormat.IsZero() || last.Definition.Placeholders != nil || last.Unsupported == "" {
		t.Fatalf("the unsupported template does not have a zero definition: %+v", last)
	}
}

// A second replace changes one template, removes one and adds one: the
// account then has exactly the second set.
func testTemplateReplace(t *testing.T, s Store) {
	account := NewAccount()
	first := templateSet(t, account)
	replaceTemplates(t, s, account, first)

	changed := first[1] // order_update (en_US)
	changed.Definition.Placeholders = append([]domain.Placeholder(nil), changed.Definition.Placeholders...)
	changed.Status = domain.TemplatePaused
	changed.ProviderID = NewProviderTemplateID()
	changed.Definition.Body = "Hello {{1}}, order {{2}} is on its way."
	changed.Definition.Placeholders[0].Label = "given name"
	changed.SyncedAt = Now().Add(time.Minute)
	removed := first[3] // order_update (en)
	added := NewSyncedTemplate(t, account, "delivery_notice", "es")
	second := []domain.SyncedTemplate{added, first[0], changed, first[2]}
	replaceTemplates(t, s, account, second)

	mustListTemplates(t, s, account, sortedTemplates(second...))
	_, err := s.GetTemplate(t.Context(), account, removed.Name, removed.Language)
	mustBe(t, "GetTemplate of a removed template", err, domain.ErrTemplateNotFound)

	// The same set again changes nothing.
	replaceTemplates(t, s, account, second)
	mustListTemplates(t, s, account, sortedTemplates(second...))
}

func testTemplateReplaceWithNone(t *testing.T, s Store) {
	account := NewAccount()
	replaceTemplates(t, s, account, templateSet(t, account))
	replaceTemplates(t, s, account, nil)
	got, err := s.ListTemplates(t.Context(), account)
	if err != nil || len(got) != 0 {
		t.Fatalf("ListTemplates after replacing with none = %d templates, %v; want none", len(got), err)
	}
}

// Another account's templates are neither seen nor touched.
func testTemplateOtherAccount(t *testing.T, s Store) {
	mine, theirs := NewAccount(), NewAccount()
	myTemplates := templateSet(t, mine)
	replaceTemplates(t, s, mine, myTemplates)
	// The same name and language in the other account, with its own content.
	same := NewSyncedTemplate(t, theirs, "order_update", "en_US")
	same.Definition.Body, same.Definition.Placeholders = "Their order has shipped.", []domain.Placeholder{}
	only := NewSyncedTemplate(t, theirs, "their_only", "en")
	replaceTemplates(t, s, theirs, []domain.SyncedTemplate{only, same})

	replaceTemplates(t, s, mine, myTemplates[:2])
	mustListTemplates(t, s, theirs, sortedTemplates(same, only))
	mustListTemplates(t, s, mine, sortedTemplates(myTemplates[:2]...))

	_, err := s.GetTemplate(t.Context(), mine, only.Name, only.Language)
	mustBe(t, "GetTemplate of another account's template", err, domain.ErrTemplateNotFound)
	got, err := s.ListTemplates(t.Context(), NewAccount())
	if err != nil || len(got) != 0 {
		t.Fatalf("ListTemplates of an account without templates = %d templates, %v; want none", len(got), err)
	}
}

func testTemplateNotFound(t *testing.T, s Store) {
	account := NewAccount()
	_, err := s.GetTemplate(t.Context(), account, "order_update", "en_US")
	mustBe(t, "GetTemplate of an account without templates", err, domain.ErrTemplateNotFound)
	replaceTemplates(t, s, account, templateSet(t, account))
	_, err = s.GetTemplate(t.Context(), account, "order_update", "fr")
	mustBe(t, "GetTemplate of a missing language", err, domain.ErrTemplateNotFound)
	_, err = s.GetTemplate(t.Context(), account, "order", "en")
	mustBe(t, "GetTemplate of a missing name", err, domain.ErrTemplateNotFound)
}

// A replace inside a transaction that fails is rolled back.
func testTemplateRollback(t *testing.T, s Store) {
	account := NewAccount()
	first := templateSet(t, account)
	replaceTemplates(t, s, account, first)
	changed := cloneSyncedTemplates(first[1:2])[0]
	changed.Status = domain.TemplateDisabled
	added := NewSyncedTemplate(t, account, "delivery_notice", "es")
	boom := errors.New("boom")
	err := s.WithinTx(t.Context(), func(ctx context.Context, r ports.Repos) error {
		if err := r.Templates.ReplaceTemplates(ctx, account, []domain.SyncedTemplate{changed, added}); err != nil {
			return err
		}
		got, err := r.Templates.ListTemplates(ctx, account)
		if err != nil {
			return err
		}
		if len(got) != 2 {
			return fmt.Errorf("the transaction sees %d templates after its replace, want 2", len(got))
		}
		return boom
	})
	mustBe(t, "WithinTx with a failing fn", err, boom)
	mustListTemplates(t, s, account, sortedTemplates(first...))
	_, err = s.GetTemplate(t.Context(), account, added.Name, added.Language)
	mustBe(t, "GetTemplate of a rolled-back template", err, domain.ErrTemplateNotFound)
}

// SetTemplateStatus changes one template's status and nothing else; an
// unknown template, or another account's, is left as it is, without error.
func testTemplateSetStatus(t *testing.T, s Store) {
	mine, theirs := NewAccount(), NewAccount()
	set := templateSet(t, mine)
	replaceTemplates(t, s, mine, set)
	other := NewSyncedTemplate(t, theirs, "order_update", "en_US")
	replaceTemplates(t, s, theirs, []domain.SyncedTemplate{other})

	want := cloneSyncedTemplates(set)
	for _, st := range []string{"PAUSED", "IN_APPEAL"} { // one Herald acts on, one it only keeps
		status, err := domain.ParseTemplateStatus(st)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.SetTemplateStatus(t.Context(), mine, "order_update", "en_US", status); err != nil {
			t.Fatalf("SetTemplateStatus: %v", err)
		}
		want[1].Status = status // order_update (en_US)
		mustListTemplates(t, s, mine, sortedTemplates(want...))
	}
	mustListTemplates(t, s, theirs, []domain.SyncedTemplate{other})

	if err := s.SetTemplateStatus(t.Context(), mine, "order_update", "fr", domain.TemplateDisabled); err != nil {
		t.Fatalf("SetTemplateStatus of an unknown template: %v", err)
	}
	_, err := s.GetTemplate(t.Context(), mine, "order_update", "fr")
	mustBe(t, "GetTemplate of the unknown template after SetTemplateStatus", err, domain.ErrTemplateNotFound)
	mustListTemplates(t, s, mine, sortedTemplates(want...))
}

// Two business accounts may each have a template of the same name and
// language: a status or category set on one account's leaves the other's
// as it was.
func testTemplateVerdictsPerAccount(t *testing.T, s Store) {
	a, b := NewAccount(), NewAccount()
	ofA, ofB := NewSyncedTemplate(t, a, "order_update", "en_US"), NewSyncedTemplate(t, b, "order_update", "en_US")
	replaceTemplates(t, s, a, []domain.SyncedTemplate{ofA})
	replaceTemplates(t, s, b, []domain.SyncedTemplate{ofB})
	if err := s.SetTemplateStatus(t.Context(), a, "order_update", "en_US", domain.TemplatePaused); err != nil {
		t.Fatalf("SetTemplateStatus: %v", err)
	}
	if err := s.SetTemplateCategory(t.Context(), b, "order_update", "en_US", domain.CategoryUtility); err != nil {
		t.Fatalf("SetTemplateCategory: %v", err)
	}
	wantA, wantB := cloneSyncedTemplates([]domain.SyncedTemplate{ofA})[0], cloneSyncedTemplates([]domain.SyncedTemplate{ofB})[0]
	wantA.Status, wantB.Category = domain.TemplatePaused, domain.CategoryUtility.String()
	mustListTemplates(t, s, a, []domain.SyncedTemplate{wantA})
	mustListTemplates(t, s, b, []domain.SyncedTemplate{wantB})
}
