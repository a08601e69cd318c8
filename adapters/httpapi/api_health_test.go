package httpapi_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/ports/porttest"
	"github.com/heraldhq/herald/test/fakemeta"
)

// healthNumber stores the webhooks' business number (Meta's phoneID in
// wabaID, display number fakemeta.DisplayPhoneNumber) with tier, offered
// to every workspace, and binds campaigns to it.
func (e *apiEnv) healthNumber(t *testing.T, tier domain.MessagingTier, campaigns ...string) domain.BusinessNumber {
	t.Helper()
	ctx := context.Background()
	n := porttest.NewNumber(t)
	n.MetaID, n.WABAID, n.DisplayNumber, n.Tier = phoneID, wabaID, "+1 555-078-3881", tier
	if err := e.store.CreateNumber(ctx, n); err != nil {
		t.Fatal(err)
	}
	def, err := e.store.EnsureDefaultWorkspace(ctx, domain.Workspace{})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range campaigns {
		if _, err := e.store.UpdateCampaign(ctx, def.ID, domain.CampaignID(id), func(c *domain.Campaign) error {
			c.Number = n.ID
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	return n
}

// TestQualityRule: Meta's quality webhook flags the number; its marketing
// campaign pauses by itself and says why, sends on it are refused as on
// any paused campaign, its utility campaign keeps sending; activating the
// campaign again clears the reason.
func TestQualityRule(t *testing.T) {
	t.Parallel()
	onEveryEngine(t, func(t *testing.T, e *apiEnv) {
		utility := e.utilityCampaign(t)
		e.healthNumber(t, domain.Tier10K, e.active, utility)
		e.signed(t, fakemeta.QualityUpdatePayload(wabaID, fakemeta.DisplayPhoneNumber, "FLAGGED", "TIER_10K", time.Now()))

		var c struct{ Status, PausedReason string }
		e.get(t, "/v1/campaigns/"+e.active, e.liveKey, &c)
		if c.Status != "paused" || c.PausedReason != "quality_red" {
			t.Fatalf("marketing campaign after FLAGGED: %+v", c)
		}
		c.PausedReason = "" // absent unless Herald paused it
		e.get(t, "/v1/campaigns/"+utility, e.liveKey, &c)
		if c.Status != "active" || c.PausedReason != "" {
			t.Fatalf("utility campaign after FLAGGED: %+v", c)
		}
		k := e.keyed(e.liveKey)
		e.run(t, []scenario{
			{"marketing send on the RED number", "POST", sendURL, k, sendBody(phone, e.active, "Ana", "1234"), 409,
				problemBody(409, "campaign_not_active", "Campaign not active", "campaignId",
					"the campaign is paused; only active campaigns send")},
		})
		e.accepted(t, e.liveKey, utility, phone)
		res, body := e.do(t, "POST", "/v1/campaigns/"+e.active+"/activate", k, "")
		if res.StatusCode != 200 {
			t.Fatalf("activate: %d %s", res.StatusCode, body)
		}
		c.PausedReason = ""
		e.get(t, "/v1/campaigns/"+e.active, e.liveKey, &c)
		if c.Status != "active" || c.PausedReason != "" {
			t.Fatalf("activated again: %+v", c)
		}
	})
}

// TestTierRule: with the number's business at TIER_50 and 49 recipients
// reached an hour ago, a marketing send to a 50th goes, one to a 51st is
// refused with 429 messaging_limit_reached saying when the first place
// frees up (freesAt, Retry-After); a recipient of the window, a utility
// send and a test send still go.
func TestTierRule(t *testing.T) {
	t.Parallel()
	onEveryEngine(t, func(t *testing.T, e *apiEnv) {
		utility := e.utilityCampaign(t)
		e.healthNumber(t, domain.Tier50, e.active, utility)
		first := time.Now().UTC().Add(-time.Hour).Truncate(time.Second)
		var earlier []ports.Reach
		for i := range 49 {
			earlier = append(earlier, ports.Reach{Recipient: "+1415555" + strconv.Itoa(1000+i), At: first.Add(time.Duration(i) * time.Second)})
		}
		if _, err := e.store.ReachRecipients(context.Background(), wabaID, earlier); err != nil {
			t.Fatal(err)
		}
		e.accepted(t, e.liveKey, e.active, "+14155559001")
		freesAt := first.Add(24 * time.Hour)
		k := e.keyed(e.liveKey)
		want := problemBody(429, "messaging_limit_reached", "Messaging limit reached", "phoneNumber",
			"the sending number's business has reached its messaging limit (TIER_50: 50 unique recipients in a moving 24 hours); "+
				"marketing sends to new recipients resume at "+freesAt.Format(time.RFC3339))
		want = want[:len(want)-1] + `,"freesAt":"` + freesAt.Format(time.RFC3339) + `"}`
		e.run(t, []scenario{
			{"a 51st recipient", "POST", sendURL, k, sendBody("+14155559002", e.active, "Ana", "1234"), 429, canonicalString(want)},
		})
		res, _ := e.do(t, "POST", sendURL, k, sendBody("+14155559002", e.active, "Ana", "1234"))
		if ra, err := strconv.Atoi(res.Header.Get("Retry-After")); err != nil || ra < 22*3600 || ra > 23*3600 {
			t.Errorf("Retry-After %q, want about 23 hours", res.Header.Get("Retry-After"))
		}
		e.accepted(t, e.liveKey, e.active, "+14155551000") // reached an hour ago
		e.accepted(t, e.liveKey, utility, "+14155559003")  // utility: counted, not held back
		e.accepted(t, e.key, e.active, "+14155559004")     // test mode never reaches Meta
		if n, err := e.store.CountReached(context.Background(), wabaID, time.Now()); err != nil || n != 51 {
			t.Errorf("recipients reached: %d %v, want 51", n, err)
		}
	})
}
