package delivery_test

import (
	"context"
	"testing"

	"github.com/heraldhq/herald/app/delivery"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/ports/porttest"
)

// A template status or category webhook names its business account (the
// entry's id): it reaches the campaigns whose number belongs to that
// account, and for the configured account those without a number; a
// campaign of another account with a template of the same name is left
// alone.
func TestTemplateWebhooksReachOnlyTheirAccount(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	const configured = "100000000000001"
	h := newHooksWith(f, f.st, delivery.Config{TemplateAccount: configured})
	a, b := porttest.NewNumber(t), porttest.NewNumber(t)
	a.WABAID, b.WABAID = "200000000000002", "300000000000003"
	for _, n := range []domain.BusinessNumber{a, b} {
		if err := f.st.CreateNumber(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	_, ofA := f.otherWorkspace(t)
	_, ofB := f.otherWorkspace(t)
	for _, c := range []struct {
		camp   *domain.Campaign
		number domain.BusinessNumberID
	}{{&ofA, a.ID}, {&ofB, b.ID}} {
		got, err := f.st.UpdateCampaign(ctx, c.camp.Workspace, c.camp.ID, func(c2 *domain.Campaign) error {
			c2.Number = c.number
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		*c.camp = got
	}
	status := func(c domain.Campaign) domain.Campaign {
		t.Helper()
		got, err := f.st.GetCampaign(ctx, c.Workspace, c.ID)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}

	rep := h.post(t, ports.WebhookBatch{Templates: []ports.TemplateStatusEvent{{Account: a.WABAID, Name: "welcome",
		Language: "en_US", Status: domain.TemplatePaused, Event: "PAUSED", Reason: "NONE", At: t0}}})
	if rep.Templates != 1 {
		t.Errorf("account A's PAUSED changed %d campaigns, want 1", rep.Templates)
	}
	if got := status(ofA).TemplateStatus; got != domain.TemplatePaused {
		t.Errorf("account A's campaign: template %v, want PAUSED", got)
	}
	for _, c := range []domain.Campaign{ofB, f.campaign} {
		if got := status(c); got.TemplateStatus != c.TemplateStatus {
			t.Errorf("campaign %s (number %q): template %v after account A's PAUSED, want %v", c.ID, c.Number, got.TemplateStatus, c.TemplateStatus)
		}
	}

	rep = h.post(t, ports.WebhookBatch{Templates: []ports.TemplateStatusEvent{{Account: configured, Name: "welcome",
		Language: "en_US", Status: domain.TemplateDisabled, Event: "DISABLED", At: t0}}})
	if rep.Templates != 1 || status(f.campaign).TemplateStatus != domain.TemplateDisabled {
		t.Errorf("the configured account's DISABLED: %d changed, campaign without a number %v, want 1 and DISABLED",
			rep.Templates, status(f.campaign).TemplateStatus)
	}
	if status(ofB).TemplateStatus != ofB.TemplateStatus || status(ofA).TemplateStatus != domain.TemplatePaused {
		t.Errorf("the configured account's DISABLED reached the numbers' campaigns")
	}

	rep = h.post(t, ports.WebhookBatch{Categories: []ports.TemplateCategoryEvent{{Account: b.WABAID, Name: "welcome",
		Language: "en_US", Category: domain.CategoryUtility, Previous: domain.CategoryMarketing, At: t0}}})
	if rep.Categories != 1 || status(ofB).Category != domain.CategoryUtility {
		t.Errorf("account B's category change: %d changed, its campaign %v, want 1 and UTILITY", rep.Categories, status(ofB).Category)
	}
	for _, c := range []domain.Campaign{ofA, f.campaign} {
		if got := status(c).Category; got != c.Category {
			t.Errorf("campaign %s: category %v after account B's change, want %v", c.ID, got, c.Category)
		}
	}
}
