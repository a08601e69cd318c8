package httpapi_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/heraldhq/herald/adapters/system"
	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/test/fakemeta"
)

// The details of the two refusals an opt-out gives.
const (
	optedOutDetail  = "the recipient opted out of messages"
	marketingDetail = "the recipient stopped marketing messages from this business on WhatsApp, and the campaign's template " +
		"has no known category, which counts as marketing; utility and authentication templates still reach them"
)

// messageView is what these tests read of GET /v1/messages/{id}.
type messageView struct {
	Status string
	Error  *struct {
		Code       int
		Title      string
		HeraldCode *string
	}
}

// get answers a GET with a key and decodes the body into out.
func (e *apiEnv) get(t *testing.T, url, key string, out any) {
	t.Helper()
	res, body := e.do(t, "GET", url, e.keyed(key), "")
	if res.StatusCode != 200 {
		t.Fatalf("GET %s: %d %s", url, res.StatusCode, body)
	}
	if err := json.Unmarshal([]byte(body), out); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
}

// accepted sends and returns the message id, failing the test unless 202.
func (e *apiEnv) accepted(t *testing.T, key, campaign, phone string) string {
	t.Helper()
	res, body := e.do(t, "POST", sendURL, e.keyed(key), sendBody(phone, campaign, "Ana", "1234"))
	if res.StatusCode != 202 {
		t.Fatalf("send on %s: %d %s", campaign, res.StatusCode, body)
	}
	var m struct{ ID string }
	json.Unmarshal([]byte(body), &m)
	return m.ID
}

// utilityCampaign stores an active utility campaign in the default
// workspace, defined here like e.active.
func (e *apiEnv) utilityCampaign(t *testing.T) string {
	t.Helper()
	ids := system.NewIDs()
	def := app.NewEnsureDefaultWorkspaceHandler(e.store, system.Clock{}, ids)
	c, err := app.NewCreateCampaignHandler(e.store, e.store, e.store, nil, def, system.Clock{}, ids).Handle(context.Background(),
		app.CreateCampaign{Name: "Receipts", TemplateName: "receipt", Language: "en_US", Body: "Hi {{1}}, order {{2}} is paid",
			Category: domain.CategoryUtility, Activate: true})
	if err != nil {
		t.Fatal(err)
	}
	return string(c.ID)
}

// TestMarketingOptOut follows a number through Meta's webhooks, as the
// API shows it: a user_preferences stop refuses marketing sends (409) and
// fails the marketing message still queued, while utility sends go (202);
// a resume lets marketing go again; a STOP fails every message still
// queued, with Herald's code, in the message, the thread and the
// statistics; a category change shows on the campaign.
func TestMarketingOptOut(t *testing.T) {
	t.Parallel()
	onEveryEngine(t, func(t *testing.T, e *apiEnv) {
		utility := e.utilityCampaign(t)
		now := time.Now().UTC().Truncate(time.Second)
		queuedMarketing := e.accepted(t, e.liveKey, e.active, phone)
		queuedUtility := e.accepted(t, e.liveKey, utility, phone)

		e.signed(t, fakemeta.UserPreferencesPayload(wabaID, phoneID,
			fakemeta.UserPreference{WaID: "14155552671", ProfileName: "Ana", Value: "stop", At: now}))
		var contact struct {
			ID                string
			OptedOut          bool
			MarketingOptedOut bool
		}
		e.get(t, "/v1/contacts/by-phone/"+phone, e.liveKey, &contact)
		if contact.OptedOut || !contact.MarketingOptedOut {
			t.Errorf("after the marketing stop: optedOut %v, marketingOptedOut %v; want false, true", contact.OptedOut, contact.MarketingOptedOut)
		}
		var m messageView
		e.get(t, "/v1/messages/"+queuedMarketing, e.liveKey, &m)
		herald := "contact_opted_out"
		wantFailed := messageView{Status: "failed"}
		wantFailed.Error = &struct {
			Code       int
			Title      string
			HeraldCode *string
		}{0, domain.MarketingStoppedTitle, &herald}
		if d := cmp.Diff(wantFailed, m); d != "" {
			t.Errorf("the queued marketing message (-want +got):\n%s", d)
		}
		e.get(t, "/v1/messages/"+queuedUtility, e.liveKey, &m)
		if m.Status != "queued" {
			t.Errorf("the queued utility message is %s, want queued", m.Status)
		}

		k := e.keyed(e.liveKey)
		e.run(t, []scenario{
			{"marketing after the stop", "POST", sendURL, k, sendBody(phone, e.active, "Ana", "1234"), 409,
				problemBody(409, "contact_opted_out", "Contact opted out", "phoneNumber", marketingDetail)},
			{"marketing dry run after the stop", "POST", sendURL + "?dryRun=true", k, sendBody(phone, e.active, "Ana", "1234"), 409,
				problemBody(409, "contact_opted_out", "Contact opted out", "phoneNumber", marketingDetail)},
		})
		e.accepted(t, e.liveKey, utility, phone)

		e.signed(t, fakemeta.UserPreferencesPayload(wabaID, phoneID,
			fakemeta.UserPreference{WaID: "14155552671", ProfileName: "Ana", Value: "resume", At: now.Add(time.Second)}))
		e.get(t, "/v1/contacts/by-phone/"+phone, e.liveKey, &contact)
		if contact.MarketingOptedOut {
			t.Error("after the resume the contact still has marketing stopped")
		}
		marketingAgain := e.accepted(t, e.liveKey, e.active, phone)

		// A STOP fails what is still queued: both utility messages and
		// the new marketing one.
		e.signed(t, fakemeta.InboundPayload(wabaID, phoneID,
			fakemeta.Inbound{From: "14155552671", ProfileName: "Ana", Type: "text", Text: "STOP", At: now.Add(2 * time.Second)}))
		e.get(t, "/v1/messages/"+marketingAgain, e.liveKey, &m)
		wantFailed.Error.Title = domain.OptedOutTitle
		if d := cmp.Diff(wantFailed, m); d != "" {
			t.Errorf("the message queued before the STOP (-want +got):\n%s", d)
		}
		e.get(t, "/v1/messages/"+queuedUtility, e.liveKey, &m)
		if m.Status != "failed" || m.Error == nil || m.Error.HeraldCode == nil || *m.Error.HeraldCode != herald {
			t.Errorf("the utility message queued before the STOP: %+v", m)
		}
		e.run(t, []scenario{
			{"utility after the STOP", "POST", sendURL, k, sendBody(phone, utility, "Ana", "1234"), 409,
				problemBody(409, "contact_opted_out", "Contact opted out", "phoneNumber", optedOutDetail)},
		})

		var thread struct {
			Data []struct {
				Direction string
				MessageID *string
				Status    *string
			}
		}
		e.get(t, "/v1/contacts/"+contact.ID+"/conversation", e.liveKey, &thread)
		for _, d := range thread.Data {
			if d.Direction == "outbound" && (d.Status == nil || *d.Status != "failed") {
				t.Errorf("thread entry of %v shows %v, want failed", d.MessageID, d.Status)
			}
		}
		var stats struct {
			Counts         map[string]int
			FailuresByCode []struct {
				Code       int
				HeraldCode *string
				Count      int
			}
		}
		e.get(t, "/v1/campaigns/"+e.active+"/stats", e.liveKey, &stats)
		if stats.Counts["failed"] != 2 || len(stats.FailuresByCode) != 1 || stats.FailuresByCode[0].Code != 0 ||
			stats.FailuresByCode[0].HeraldCode == nil || *stats.FailuresByCode[0].HeraldCode != herald || stats.FailuresByCode[0].Count != 2 {
			t.Errorf("the marketing campaign's stats: %+v, want 2 failed with contact_opted_out", stats)
		}

		// Meta moves the template to another category.
		e.signed(t, fakemeta.TemplateCategoryPayload(wabaID, "welcome", "en_US", "MARKETING", "UTILITY", "", now, now))
		var camp struct {
			Template struct{ Category *string }
		}
		e.get(t, "/v1/campaigns/"+e.active, e.liveKey, &camp)
		if camp.Template.Category == nil || *camp.Template.Category != "UTILITY" {
			t.Errorf("the campaign's category after Meta's change: %v, want UTILITY", camp.Template.Category)
		}
	})
}
