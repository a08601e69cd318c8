package domain_test

import (
	"testing"

	"github.com/heraldhq/herald/domain"
)

// A message counts as unread when it came from the contact after the
// entry the thread was read through; the business's own never do.
func TestIsUnread(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		entry   domain.Entry
		through domain.EntryID
		want    bool
	}{
		{"never read", domain.Entry{ID: "ent_02", Direction: domain.Inbound}, "", true},
		{"after the mark", domain.Entry{ID: "ent_02", Direction: domain.Inbound}, "ent_01", true},
		{"at the mark", domain.Entry{ID: "ent_02", Direction: domain.Inbound}, "ent_02", false},
		{"before the mark", domain.Entry{ID: "ent_01", Direction: domain.Inbound}, "ent_02", false},
		{"ours", domain.Entry{ID: "ent_02", Direction: domain.Outbound}, "", false},
	} {
		if got := domain.IsUnread(tc.entry, tc.through); got != tc.want {
			t.Errorf("%s: IsUnread = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// Only an active campaign whose template Meta approved, or that was
// defined here and never synced, sends.
func TestCampaignSendable(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		status   domain.CampaignStatus
		template domain.TemplateStatus
		want     bool
	}{
		{domain.CampaignActive, domain.TemplateStatus{}, true},
		{domain.CampaignActive, domain.TemplateApproved, true},
		{domain.CampaignActive, domain.TemplatePaused, false},
		{domain.CampaignActive, domain.TemplateRejected, false},
		{domain.CampaignPaused, domain.TemplateApproved, false},
		{domain.CampaignDraft, domain.TemplateStatus{}, false},
	} {
		c := domain.Campaign{Status: tc.status, TemplateStatus: tc.template}
		if got := c.Sendable(); got != tc.want {
			t.Errorf("a %s campaign with a %q template: Sendable = %v, want %v", tc.status, tc.template, got, tc.want)
		}
	}
}
