package domain_test

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/heraldhq/herald/domain"
)

// TestSetMarketingOptOut: Meta's user_preferences events arrive in any
// order and again; the latest word wins, as with STOP and START, and a stop
// and a resume in the same second leave marketing stopped.
func TestSetMarketingOptOut(t *testing.T) {
	t.Parallel()
	t1, t2, now := t0.Add(time.Hour), t0.Add(2*time.Hour), t0.Add(3*time.Hour)
	contact := func(t *testing.T, stopped bool, changed *time.Time) domain.Contact {
		c := syncedContact(t)
		c.Marketing = domain.MarketingPreference{Stopped: stopped, ChangedAt: changed}
		return c
	}
	cases := []struct {
		name    string
		stopped bool
		changed *time.Time
		stop    bool
		at      time.Time
		want    bool
		apply   func(c *domain.Contact) // besides UpdatedAt; nil: nothing changes
	}{
		{"a first stop", false, nil, true, t1, true,
			func(c *domain.Contact) { c.Marketing = domain.MarketingPreference{Stopped: true, ChangedAt: &t1} }},
		{"a newer resume", true, &t1, false, t2, true,
			func(c *domain.Contact) { c.Marketing = domain.MarketingPreference{Stopped: false, ChangedAt: &t2} }},
		{"an older resume is stale", true, &t2, false, t1, false, nil},
		{"an older stop is stale", false, &t2, true, t1, false, nil},
		{"the same stop again", true, &t1, true, t1, false, nil},
		{"a resume in the stop's second", true, &t1, false, t1, false, nil},
		{"a stop in the resume's second", false, &t1, true, t1, true,
			func(c *domain.Contact) { c.Marketing = domain.MarketingPreference{Stopped: true, ChangedAt: &t1} }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got, want := contact(t, c.stopped, c.changed), contact(t, c.stopped, c.changed)
			if c.apply != nil {
				c.apply(&want)
				want.UpdatedAt = now
			}
			if changed := got.SetMarketingOptOut(c.stop, c.at, now); changed != c.want {
				t.Errorf("SetMarketingOptOut reported %v, want %v", changed, c.want)
			}
			if diff := cmp.Diff(want, got, cmpContact); diff != "" {
				t.Errorf("after SetMarketingOptOut (-want +got):\n%s", diff)
			}
		})
	}
	// The two opt-outs are apart: a marketing stop leaves the contact
	// receiving, and a START does not resume marketing.
	c := syncedContact(t)
	c.SetMarketingOptOut(true, t1, now)
	c.SetOptOut(false, t2, now)
	if c.OptedOut || !c.Marketing.Stopped {
		t.Errorf("after a marketing stop and a START: opted out %v, marketing stopped %v; want false, true", c.OptedOut, c.Marketing.Stopped)
	}
}

// TestCanReceiveCampaign: a contact who stopped marketing is refused a
// marketing campaign, and one whose category is not known, with a detail
// that says so; utility and authentication ones still go. A contact who
// opted out is refused every campaign.
func TestCanReceiveCampaign(t *testing.T) {
	t.Parallel()
	camp := func(cat string) domain.Campaign {
		var c domain.Campaign
		if cat != "" {
			c.Category = mustCategory(t, cat)
		}
		return c
	}
	stopped := syncedContact(t)
	stopped.SetMarketingOptOut(true, t0, t0)
	optedOut := syncedContact(t)
	optedOut.SetOptOut(true, t0, t0)
	cases := []struct {
		name    string
		contact domain.Contact
		cat     string
		detail  string // "" when the send goes
		failure *domain.Failure
	}{
		{"marketing to a contact who stopped it", stopped, "MARKETING",
			"the recipient stopped marketing messages from this business on WhatsApp, and the campaign's template is MARKETING; utility and authentication templates still reach them",
			&domain.Failure{Title: domain.MarketingStoppedTitle, HeraldCode: domain.CodeContactOptedOut}},
		{"an unknown category counts as marketing", stopped, "",
			"the recipient stopped marketing messages from this business on WhatsApp, and the campaign's template has no known category, which counts as marketing; utility and authentication templates still reach them",
			&domain.Failure{Title: domain.MarketingStoppedTitle, HeraldCode: domain.CodeContactOptedOut}},
		{"a category Meta adds counts as marketing", stopped, "MARKETING_LITE",
			"the recipient stopped marketing messages from this business on WhatsApp, and the campaign's template is MARKETING_LITE; utility and authentication templates still reach them",
			&domain.Failure{Title: domain.MarketingStoppedTitle, HeraldCode: domain.CodeContactOptedOut}},
		{"utility still goes", stopped, "UTILITY", "", nil},
		{"authentication still goes", stopped, "AUTHENTICATION", "", nil},
		{"an opted-out contact gets no utility", optedOut, "UTILITY", "the recipient opted out of messages",
			&domain.Failure{Title: domain.OptedOutTitle, HeraldCode: domain.CodeContactOptedOut}},
		{"marketing to a receiving contact", syncedContact(t), "MARKETING", "", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			err := c.contact.CanReceiveCampaign(camp(c.cat))
			switch {
			case c.detail == "" && err != nil:
				t.Errorf("CanReceiveCampaign: %v, want nil", err)
			case c.detail != "":
				var de *domain.Error
				if !errors.As(err, &de) || de.Code != domain.CodeContactOptedOut || de.Param != "phoneNumber" || de.Detail != c.detail {
					t.Errorf("CanReceiveCampaign: %#v, want contact_opted_out on phoneNumber: %s", err, c.detail)
				}
			}
			if diff := cmp.Diff(c.failure, c.contact.OptOutFailure(camp(c.cat).Category)); diff != "" {
				t.Errorf("OptOutFailure (-want +got):\n%s", diff)
			}
		})
	}
}

func mustCategory(t *testing.T, s string) domain.TemplateCategory {
	t.Helper()
	c, err := domain.ParseTemplateCategory(s)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestParseTemplateCategory(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]domain.TemplateCategory{"MARKETING": domain.CategoryMarketing, "utility": domain.CategoryUtility,
		" Authentication ": domain.CategoryAuthentication} {
		if got, err := domain.ParseTemplateCategory(in); err != nil || got != want {
			t.Errorf("ParseTemplateCategory(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "marketing messages", "UTILITY;", string(make([]byte, 41))} {
		if _, err := domain.ParseTemplateCategory(in); !errors.Is(err, domain.ErrInvalidParameter) {
			t.Errorf("ParseTemplateCategory(%q): %v, want invalid_parameter", in, err)
		}
	}
}

func TestCampaignSetCategory(t *testing.T) {
	t.Parallel()
	c := domain.Campaign{UpdatedAt: t0}
	later := t0.Add(time.Hour)
	if c.SetCategory(domain.TemplateCategory{}, later) || c.UpdatedAt != t0 {
		t.Errorf("an unknown category changed the campaign: %+v", c)
	}
	if !c.SetCategory(domain.CategoryUtility, later) || c.Category != domain.CategoryUtility || !c.UpdatedAt.Equal(later) {
		t.Errorf("SetCategory(UTILITY): %+v", c)
	}
	if c.SetCategory(domain.CategoryUtility, later.Add(time.Hour)) || !c.UpdatedAt.Equal(later) {
		t.Errorf("the same category again changed the campaign: %+v", c)
	}
}
