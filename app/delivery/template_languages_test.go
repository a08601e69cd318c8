package delivery_test

import (
	"context"
	"testing"

	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// TestTemplateLanguageFormsAreOneTemplate: Meta writes pt_BR as pt-BR in
// some places and people type pt_br. A template listed as pt-BR, a campaign
// created for pt_br and status events naming either form all meet on one
// template, pt_BR, and a sync that lists it in the other form neither
// deletes nor duplicates it.
func TestTemplateLanguageFormsAreOneTemplate(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	listed := func(language string, st domain.TemplateStatus) domain.SyncedTemplate {
		def, err := domain.NewTemplate("pedido_enviado", language, domain.HeaderNone, "", "Olá {{1}}, seu pedido saiu", "", nil)
		if err != nil {
			t.Fatal(err)
		}
		return domain.SyncedTemplate{ProviderID: "1304694804498708", Name: "pedido_enviado", Language: language,
			Status: st, Category: "UTILITY", Definition: def}
	}
	meta := newMetaTemplates(listed("pt-BR", domain.TemplateApproved))
	sync := app.NewSyncTemplatesHandler(meta, nil, f.st, f.clock, nil, usecase.NewObserver(nil))
	if _, err := sync.Handle(ctx); err != nil {
		t.Fatal(err)
	}
	c, err := app.NewCreateCampaignHandler(f.st, f.st, f.st, meta, f.def, f.clock, f.ids).Handle(ctx,
		app.CreateCampaign{Name: "Pedidos", TemplateName: "pedido_enviado", Language: "pt_br", Activate: true})
	if err != nil {
		t.Fatalf("a campaign on the template listed as pt-BR, asked for as pt_br: %v", err)
	}
	if c.Template.Language != "pt_BR" || c.TemplateStatus != domain.TemplateApproved {
		t.Fatalf("campaign language %q, template status %s; want pt_BR, APPROVED", c.Template.Language, c.TemplateStatus)
	}

	meta.mu.Lock()
	meta.list = []domain.SyncedTemplate{listed("pt_BR", domain.TemplatePaused)}
	meta.mu.Unlock()
	res, err := sync.Handle(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Changes) != 1 || res.Changes[0].To != domain.TemplatePaused || res.Changes[0].Template != "pedido_enviado (pt_BR)" {
		t.Fatalf("sync listing pt_BR PAUSED changed %+v; want the campaign paused, once", res.Changes)
	}
	stored, err := f.st.ListTemplates(ctx, account)
	if err != nil || len(stored) != 1 || stored[0].Language != "pt_BR" {
		t.Fatalf("stored templates %+v (%v); want pedido_enviado once, as pt_BR", stored, err)
	}

	h := newHooks(f, f.st)
	h.post(t, ports.WebhookBatch{Templates: []ports.TemplateStatusEvent{{Account: account, Name: "pedido_enviado",
		Language: "pt-BR", Status: domain.TemplateApproved, Event: "REINSTATED", At: t0}}})
	got, err := f.st.GetCampaign(ctx, f.principal.Workspace, c.ID)
	if err != nil || got.TemplateStatus != domain.TemplateApproved {
		t.Fatalf("after REINSTATED for pt-BR the campaign's template is %s (%v), want APPROVED", got.TemplateStatus, err)
	}
	if st, err := f.st.GetTemplate(ctx, account, "pedido_enviado", "pt_BR"); err != nil || st.Status != domain.TemplateApproved {
		t.Fatalf("after REINSTATED for pt-BR the synced template is %s (%v), want APPROVED", st.Status, err)
	}
}
