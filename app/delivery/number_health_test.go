package delivery_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/heraldhq/herald/app/delivery"
	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/ports/porttest"
)

// numberFor stores a business number offered to ws and binds campaigns to
// it.
func (f *fixture) numberFor(t *testing.T, ws domain.WorkspaceID, campaigns ...domain.Campaign) domain.BusinessNumber {
	t.Helper()
	ctx := context.Background()
	n := porttest.NewNumber(t, ws)
	if err := f.st.CreateNumber(ctx, n); err != nil {
		t.Fatal(err)
	}
	for _, c := range campaigns {
		if _, err := f.st.UpdateCampaign(ctx, c.Workspace, c.ID, func(c *domain.Campaign) error {
			c.Number = n.ID
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	return n
}

func (f *fixture) campaignNow(t *testing.T, c domain.Campaign) domain.Campaign {
	t.Helper()
	got, err := f.st.GetCampaign(context.Background(), c.Workspace, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func qualityUpdate(n domain.BusinessNumber, event string, q domain.QualityRating, tier domain.MessagingTier, at time.Time) ports.WebhookBatch {
	return ports.WebhookBatch{Health: []ports.NumberHealthEvent{{Account: n.WABAID, DisplayNumber: "447700900123",
		Event: event, Quality: q, Tier: tier, At: at}}}
}

// TestQualityDropPausesMarketing: a FLAGGED quality update for a number
// pauses its active marketing campaigns (and one of unknown category), not
// its utility ones nor other numbers' campaigns; each pause says why and
// is told as campaign.status_changed, and the number's workspace is told
// phone_number.quality_changed. The same update again changes nothing.
func TestQualityDropPausesMarketing(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ws := f.principal.Workspace
	marketing := f.campaignOf(t, ws, domain.CategoryMarketing)
	unknown := f.campaignOf(t, ws, domain.TemplateCategory{})
	utility := f.campaignOf(t, ws, domain.CategoryUtility)
	n := f.numberFor(t, ws, marketing, unknown, utility)
	f.numberFor(t, ws, f.campaign) // another number
	h := newHooks(f, f.st)

	rep := h.post(t, qualityUpdate(n, "FLAGGED", domain.QualityRed, domain.Tier10K, t0))
	if rep.Health != 1 || rep.PausedOnRed != 2 {
		t.Fatalf("report: health %d, paused %d", rep.Health, rep.PausedOnRed)
	}
	for _, c := range []domain.Campaign{marketing, unknown} {
		if got := f.campaignNow(t, c); got.Status != domain.CampaignPaused || got.PausedReason != domain.PausedQualityRed {
			t.Errorf("%s: %s (%q), want paused for quality_red", c.Name, got.Status, got.PausedReason)
		}
	}
	for _, c := range []domain.Campaign{utility, f.campaign} {
		if got := f.campaignNow(t, c); got.Status != domain.CampaignActive {
			t.Errorf("%s: %s, want active", c.Name, got.Status)
		}
	}
	stored, err := f.st.GetNumber(context.Background(), n.ID)
	if err != nil || stored.Quality != domain.QualityRed || stored.Tier != domain.Tier10K || stored.HealthCheckedAt.IsZero() {
		t.Fatalf("number now %+v %v", stored, err)
	}
	got := f.told(t, ws, domain.ModeLive)
	want := []string{"campaign.status_changed", "campaign.status_changed", "phone_number.quality_changed"}
	if d := cmp.Diff(want, types(got)); d != "" {
		t.Fatalf("events (-want +got):\n%s", d)
	}
	for _, e := range got[:2] {
		if e.Data["status"] != "paused" || e.Data["pausedReason"] != "quality_red" {
			t.Errorf("campaign event data %v", e.Data)
		}
	}
	wantData := map[string]any{"id": string(n.ID), "displayPhoneNumber": "+44 7700 900123", "verifiedName": "Acme Ltd",
		"quality": "RED", "previousQuality": nil, "tier": "TIER_10K", "previousTier": nil, "source": "webhook",
		"metaEvent": "FLAGGED", "changedAt": "2026-11-22T10:00:00Z"}
	if d := cmp.Diff(wantData, got[2].Data); d != "" {
		t.Errorf("quality event data (-want +got):\n%s", d)
	}

	rep = h.post(t, qualityUpdate(n, "FLAGGED", domain.QualityRed, domain.Tier10K, t0.Add(time.Minute)))
	if rep.Health != 0 || rep.PausedOnRed != 0 || len(f.told(t, ws, domain.ModeLive)) != 3 {
		t.Fatalf("the same update again: %+v", rep)
	}
	history, err := f.st.ListPhoneHealthChanges(context.Background(), n.MetaID, 10)
	if err != nil || len(history) != 1 || history[0].Event != "FLAGGED" {
		t.Fatalf("history %+v %v", history, err)
	}
}

// TestQualityDropKeptOnRequest: with KeepMarketingOnRed
// (HERALD_PAUSE_ON_RED=false) the quality is recorded and told, and the
// campaigns keep sending. A tier change alone tells nobody.
func TestQualityDropKeptOnRequest(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ws := f.principal.Workspace
	marketing := f.campaignOf(t, ws, domain.CategoryMarketing)
	n := f.numberFor(t, ws, marketing)
	h := newHooks(f, f.st)
	apply := delivery.NewApplyWebhookEventHandler(h.decoder, nil, f.st, f.st, f.clock, f.ids, f.events,
		delivery.Config{KeepMarketingOnRed: true}, nil)
	h.receive = delivery.NewReceiveWebhookHandler(h.verifier, f.st, apply, f.clock, f.ids, nil)

	h.post(t, qualityUpdate(n, "DOWNGRADE", "", domain.Tier2K, t0))
	if got := f.told(t, ws, domain.ModeLive); len(got) != 0 {
		t.Fatalf("a tier change told %v", types(got))
	}
	rep := h.post(t, qualityUpdate(n, "FLAGGED", domain.QualityRed, "", t0.Add(time.Minute)))
	if rep.Health != 1 || rep.PausedOnRed != 0 || f.campaignNow(t, marketing).Status != domain.CampaignActive {
		t.Fatalf("kept: %+v, campaign %s", rep, f.campaignNow(t, marketing).Status)
	}
	if d := cmp.Diff([]string{"phone_number.quality_changed"}, types(f.told(t, ws, domain.ModeLive))); d != "" {
		t.Fatalf("events (-want +got):\n%s", d)
	}
}

// TestQualityUpdateForAnotherNumber: a quality update whose display number
// or account is none of Herald's numbers is stored, and only reported.
func TestQualityUpdateForAnotherNumber(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	n := f.numberFor(t, f.principal.Workspace, f.campaign)
	h := newHooks(f, f.st)
	other := n
	other.WABAID = "999"
	rep := h.post(t, qualityUpdate(other, "FLAGGED", domain.QualityRed, "", t0))
	if rep.Health != 0 || len(rep.Skipped) != 1 || f.campaignNow(t, f.campaign).Status != domain.CampaignActive {
		t.Fatalf("report %+v", rep)
	}
}

// healthReader answers each number's reading from a map.
type healthReader map[string]domain.HealthReading

func (h healthReader) ReadNumberHealth(_ context.Context, c ports.NumberCredentials) (domain.HealthReading, error) {
	return h[c.PhoneNumberID], nil
}

// TestRefreshNumberHealth: reading Meta records each number's quality and
// tier with source read; a quality read as RED pauses marketing as the
// webhook does; reading the same again changes nothing.
func TestRefreshNumberHealth(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ws := f.principal.Workspace
	marketing := f.campaignOf(t, ws, domain.CategoryMarketing)
	n := porttest.NewNumber(t, ws)
	n.AccessToken = domain.SealedSecret{} // the number HERALD_WHATSAPP_* defines: the server's token
	if err := f.st.CreateNumber(context.Background(), n); err != nil {
		t.Fatal(err)
	}
	if _, err := f.st.UpdateCampaign(context.Background(), ws, marketing.ID, func(c *domain.Campaign) error {
		c.Number = n.ID
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	reader := healthReader{n.MetaID: {Quality: domain.QualityGreen, Tier: domain.Tier10K, Source: domain.HealthFromRead}}
	numbers := delivery.NewNumbers(f.st, nil, nil, nil, delivery.NumbersConfig{}, delivery.Config{}, f.clock)
	h := delivery.NewRefreshNumberHealthHandler(numbers, reader, f.st, f.clock, f.ids, f.events, delivery.Config{}, usecase.NewObserver(nil))
	h.Refresh(context.Background())
	got, err := f.st.GetNumber(context.Background(), n.ID)
	if err != nil || got.Quality != domain.QualityGreen || got.Tier != domain.Tier10K {
		t.Fatalf("after the first read: %+v %v", got, err)
	}
	reader[n.MetaID] = domain.HealthReading{Quality: domain.QualityRed, Tier: domain.Tier10K, Source: domain.HealthFromRead}
	f.clock.Advance(time.Hour)
	h.Refresh(context.Background())
	h.Refresh(context.Background())
	if c := f.campaignNow(t, marketing); c.Status != domain.CampaignPaused || c.PausedReason != domain.PausedQualityRed {
		t.Fatalf("marketing after RED was read: %s %q", c.Status, c.PausedReason)
	}
	history, err := f.st.ListPhoneHealthChanges(context.Background(), n.MetaID, 10)
	if err != nil || len(history) != 2 || history[0].Source != domain.HealthFromRead || history[0].PreviousQuality != domain.QualityGreen {
		t.Fatalf("history %+v %v", history, err)
	}
}
