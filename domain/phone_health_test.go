package domain_test

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/heraldhq/herald/domain"
)

// TestParseMessagingTier: Meta writes a tier as TIER_* or, in one schema,
// as the number of recipients it allows (-1 unlimited); each maps to its
// limit, and anything else is refused.
func TestParseMessagingTier(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in        string
		want      string
		limit     int
		unlimited bool
	}{
		{"TIER_250", "TIER_250", 250, false},
		{"tier_1k", "TIER_1K", 1000, false},
		{"TIER_2K", "TIER_2K", 2000, false},
		{"2000", "TIER_2K", 2000, false},
		{"TIER_10K", "TIER_10K", 10000, false},
		{"100000", "TIER_100K", 100000, false},
		{"TIER_UNLIMITED", "TIER_UNLIMITED", 0, true},
		{"-1", "TIER_UNLIMITED", 0, true},
	}
	for _, c := range cases {
		tier, err := domain.ParseMessagingTier(c.in)
		if err != nil {
			t.Fatalf("%q: %v", c.in, err)
		}
		limit, limited := domain.TierLimit(tier)
		if string(tier) != c.want || limit != c.limit || limited == c.unlimited {
			t.Errorf("%q: %s limit %d limited %v, want %s %d %v", c.in, tier, limit, limited, c.want, c.limit, !c.unlimited)
		}
	}
	for _, bad := range []string{"", "TIER_3K", "1500", "GREEN"} {
		if _, err := domain.ParseMessagingTier(bad); !errors.Is(err, domain.ErrInvalidParameter) {
			t.Errorf("%q: %v, want invalid_parameter", bad, err)
		}
	}
}

// TestParseQualityRating: GREEN, YELLOW, RED and UNKNOWN in any case; NA
// (one of Meta's schemas) and what Herald does not know are UNKNOWN.
func TestParseQualityRating(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]domain.QualityRating{"GREEN": domain.QualityGreen, "yellow": domain.QualityYellow,
		"RED": domain.QualityRed, "UNKNOWN": domain.QualityUnknown, "NA": domain.QualityUnknown, "PURPLE": domain.QualityUnknown,
		"": ""} {
		if got := domain.ParseQualityRating(in); got != want {
			t.Errorf("%q: %v, want %v", in, got, want)
		}
	}
}

// TestPhoneHealthApply: each reading that changes the rating or the tier
// is one change with what it was before; a reading that repeats what is
// known, or is older than it, changes nothing; RED is reported once, when
// the quality turns to it.
func TestPhoneHealthApply(t *testing.T) {
	t.Parallel()
	h := domain.PhoneHealth{Number: "1001"}
	read := func(q domain.QualityRating, tier domain.MessagingTier, at time.Time) domain.HealthReading {
		return domain.HealthReading{Quality: q, Tier: tier, Source: domain.HealthFromRead, At: at}
	}
	ch, ok := h.Apply(read(domain.QualityGreen, domain.Tier2K, t0))
	want := domain.HealthChange{Number: "1001", Quality: domain.QualityGreen, Tier: domain.Tier2K,
		Source: domain.HealthFromRead, At: t0}
	if !ok || !cmp.Equal(ch, want) {
		t.Fatalf("first reading: %v %+v", ok, ch)
	}
	if _, ok := h.Apply(read(domain.QualityGreen, domain.Tier2K, t0.Add(time.Hour))); ok {
		t.Fatal("the same reading again is a change")
	}
	ch, ok = h.Apply(domain.HealthReading{Quality: domain.QualityRed, Source: domain.HealthFromWebhook, Event: "FLAGGED",
		At: t0.Add(2 * time.Hour)})
	if !ok || !ch.TurnedRed() || ch.PreviousQuality != domain.QualityGreen || ch.Tier != domain.Tier2K || ch.Event != "FLAGGED" {
		t.Fatalf("quality drop: %v %+v", ok, ch)
	}
	if _, ok := h.Apply(read(domain.QualityGreen, "", t0.Add(time.Hour))); ok {
		t.Fatal("a reading older than the RED one undid it")
	}
	ch, ok = h.Apply(read(domain.QualityRed, domain.Tier10K, t0.Add(3*time.Hour)))
	if !ok || ch.TurnedRed() || ch.QualityChanged() || ch.PreviousTier != domain.Tier2K || ch.Tier != domain.Tier10K {
		t.Fatalf("tier change while RED: %v %+v", ok, ch)
	}
	if h.Quality != domain.QualityRed || h.Tier != domain.Tier10K || !h.TierAt.Equal(t0.Add(3*time.Hour)) {
		t.Fatalf("health now %+v", h)
	}
}

// TestMessagingLimitReached: the refusal says when a place frees up, as
// Retry-After (whole seconds, rounded up) and as a time, and carries the
// code messaging_limit_reached.
func TestMessagingLimitReached(t *testing.T) {
	t.Parallel()
	now := t0.Add(500 * time.Millisecond)
	err := domain.MessagingLimitReached(domain.Tier250, t0.Add(90*time.Minute+time.Millisecond), now)
	var re *domain.RetryableError
	if !errors.Is(err, domain.ErrMessagingLimitReached) || !errors.As(err, &re) {
		t.Fatalf("%v is not a retryable messaging_limit_reached", err)
	}
	if want := t0.Add(90*time.Minute + time.Second); !err.FreesAt.Equal(want) || re.After != want.Sub(now) {
		t.Errorf("frees at %s after %s, want %s", err.FreesAt, re.After, want)
	}
	if late := domain.MessagingLimitReached(domain.Tier250, t0.Add(-time.Hour), now); late.After <= 0 {
		t.Errorf("a place already free: after %s", late.After)
	}
}

// TestCampaignPauseFor: Herald pauses only an active campaign, with the
// reason; activating it again clears the reason.
func TestCampaignPauseFor(t *testing.T) {
	t.Parallel()
	c := activeCampaign(t, domain.HeaderNone)
	if !c.PauseFor(domain.PausedQualityRed, t0) || c.Status != domain.CampaignPaused || c.PausedReason != domain.PausedQualityRed {
		t.Fatalf("active campaign: %s %s", c.Status, c.PausedReason)
	}
	if c.PauseFor(domain.PausedQualityRed, t0) {
		t.Fatal("a paused campaign paused again")
	}
	if err := c.Activate(t0); err != nil || !c.PausedReason.IsZero() {
		t.Fatalf("activate: %v, reason %q", err, c.PausedReason)
	}
}
