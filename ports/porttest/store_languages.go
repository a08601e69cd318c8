package porttest

import (
	"cmp"
	"slices"
	"testing"

	"github.com/heraldhq/herald/domain"
)

// Meta writes one template language as pt_BR, pt-BR or pt_br. Stores keep
// the canonical form (domain.CanonicalLanguage) and find templates and
// campaigns by any of the forms: a status event naming pt-BR reaches the
// pt_BR campaigns.

// A campaign written with pt-br is stored as pt_BR; listing by template
// finds it, and the pt_BR ones, by any form, and not pt_PT's.
func testCampaignListByTemplateAnyLanguageForm(t *testing.T, s Store) {
	f := newFixture(t, s)
	name := NewTemplateName()
	create := func(language string) domain.Campaign {
		t.Helper()
		c := NewCampaign(t, f.ws)
		c.Template.Name, c.Template.Language = name, language
		if err := s.CreateCampaign(f.ctx, c); err != nil {
			t.Fatalf("CreateCampaign: %v", err)
		}
		c = cloneCampaign(c)
		c.Template.Language = "pt_BR"
		return c
	}
	want := []domain.Campaign{create("pt-br"), create("pt_BR"), create("PT-BR")}
	portugal := create("pt_PT")
	slices.SortFunc(want, func(a, b domain.Campaign) int { return cmp.Compare(a.ID, b.ID) })

	got, err := s.GetCampaign(f.ctx, f.ws, want[0].ID)
	if err != nil {
		t.Fatalf("GetCampaign: %v", err)
	}
	mustEqual(t, "campaign written with another form of pt_BR", want[0], got)
	for _, form := range []string{"pt_BR", "pt-BR", "pt_br", "PT-br"} {
		list, err := s.ListCampaignsByTemplate(f.ctx, name, form)
		if err != nil {
			t.Fatalf("ListCampaignsByTemplate %s: %v", form, err)
		}
		mustEqual(t, "campaigns listed by "+form, want, list)
	}
	list, err := s.ListCampaignsByTemplate(f.ctx, name, "pt_PT")
	if err != nil {
		t.Fatalf("ListCampaignsByTemplate pt_PT: %v", err)
	}
	if len(list) != 1 || list[0].ID != portugal.ID {
		t.Fatalf("ListCampaignsByTemplate pt_PT = %v, want only %s", list, portugal.ID)
	}
}

// A template synced as pt-BR is stored once, as pt_BR: found, given a new
// status and replaced by any form.
func testTemplateAnyLanguageForm(t *testing.T, s Store) {
	account := NewAccount()
	synced := NewSyncedTemplate(t, account, "order_update", "pt-BR")
	replaceTemplates(t, s, account, []domain.SyncedTemplate{synced})
	want := cloneSyncedTemplates([]domain.SyncedTemplate{synced})[0]
	want.Language = "pt_BR"
	mustListTemplates(t, s, account, []domain.SyncedTemplate{want})
	for _, form := range []string{"pt_BR", "pt-br", "PT_BR"} {
		got, err := s.GetTemplate(t.Context(), account, "order_update", form)
		if err != nil {
			t.Fatalf("GetTemplate %s: %v", form, err)
		}
		mustEqual(t, "template got by "+form, want, got)
	}

	if err := s.SetTemplateStatus(t.Context(), account, "order_update", "pt-br", domain.TemplatePaused); err != nil {
		t.Fatalf("SetTemplateStatus: %v", err)
	}
	want.Status = domain.TemplatePaused
	mustListTemplates(t, s, account, []domain.SyncedTemplate{want})

	// The next sync lists it as pt_BR: the same template, replaced.
	again := NewSyncedTemplate(t, account, "order_update", "pt_BR")
	replaceTemplates(t, s, account, []domain.SyncedTemplate{again})
	mustListTemplates(t, s, account, []domain.SyncedTemplate{again})
}
