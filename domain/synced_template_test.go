package domain_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/domain"
)

func TestParseTemplateStatus(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]domain.TemplateStatus{
		"APPROVED": domain.TemplateApproved, "paused": domain.TemplatePaused, "Disabled": domain.TemplateDisabled,
	} {
		if got, err := domain.ParseTemplateStatus(in); err != nil || got != want {
			t.Errorf("ParseTemplateStatus(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if got, err := domain.ParseTemplateStatus("PENDING_DELETION"); err != nil || got.String() != "PENDING_DELETION" {
		t.Errorf("a status Herald does not act on is kept as Meta names it: %q, %v", got, err)
	}
	for _, bad := range []string{"", "APPROVED!", "1", strings.Repeat("A", 41), "PAUSED\n"} {
		if _, err := domain.ParseTemplateStatus(bad); !errors.Is(err, domain.ErrInvalidParameter) {
			t.Errorf("ParseTemplateStatus(%q): %v, want invalid_parameter", bad, err)
		}
	}
}

// TestTemplateStatusGatesTheCampaign: only an APPROVED template, or one
// Meta has never reviewed (defined locally), lets a campaign activate and
// send; the campaign's own status is left alone.
func TestTemplateStatusGatesTheCampaign(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	tmpl, err := domain.NewTemplate("welcome", "en_US", domain.HeaderNone, "", "Hi {{1}}", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range []domain.TemplateStatus{{}, domain.TemplateApproved, domain.TemplatePaused, domain.TemplateDisabled, domain.TemplateDeleted} {
		c, err := domain.NewCampaign("cmp_01m80000000000000000000000", "wsp_01m80000000000000000000000", "Welcome", tmpl, now)
		if err != nil {
			t.Fatal(err)
		}
		if changed := c.SetTemplateStatus(st, now.Add(time.Minute)); changed == st.IsZero() {
			t.Errorf("%q: SetTemplateStatus reported changed=%v", st, changed)
		}
		sendable := st.IsZero() || st == domain.TemplateApproved
		err = c.Activate(now)
		if sendable != (err == nil) {
			t.Fatalf("%q: Activate = %v", st, err)
		}
		if !sendable {
			if !errors.Is(err, domain.ErrInvalidTransition) || !strings.Contains(err.Error(), "template welcome (en_US) is "+st.String()) {
				t.Errorf("%q: activation refused with %v", st, err)
			}
			c.Status = domain.CampaignActive // as if activated before Meta changed its mind
		}
		_, err = c.Prepare([]string{"Ana"}, "", domain.MediaPolicy{})
		if sendable != (err == nil) {
			t.Fatalf("%q: Prepare = %v", st, err)
		}
		if !sendable && (!errors.Is(err, domain.ErrCampaignNotActive) || !strings.Contains(err.Error(), "is "+st.String()+" at Meta")) {
			t.Errorf("%q: send refused with %v", st, err)
		}
		if c.Status != domain.CampaignActive {
			t.Errorf("%q: the campaign's own status moved to %s", st, c.Status)
		}
	}
}

func TestUsableSyncedTemplate(t *testing.T) {
	t.Parallel()
	def, err := domain.NewTemplate("order_update", "en_US", domain.HeaderImage, "", "Order {{1}} ships {{2}}", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	s := domain.SyncedTemplate{Name: "order_update", Language: "en_US", Status: domain.TemplateApproved, Definition: def}
	got, err := s.Usable([]string{"Order", "Date"})
	if err != nil || got.Placeholders[1].Label != "Date" || got.HeaderFormat != domain.HeaderImage {
		t.Fatalf("Usable: %+v, %v", got, err)
	}
	if s.Definition.Placeholders[1].Label != "" {
		t.Fatal("Usable changed the synced template's own placeholders")
	}
	s.Unsupported = "named parameters are not supported"
	if _, err := s.Usable(nil); !errors.Is(err, domain.ErrInvalidParameter) || !strings.Contains(err.Error(), "named parameters") {
		t.Fatalf("an unsupported template: %v", err)
	}
}
