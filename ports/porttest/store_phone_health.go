package porttest

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

var phoneHealthTests = []storeTest{
	{"UnknownNumber", testPhoneHealthUnknown},
	{"HistoryKeepsEveryChange", testPhoneHealthHistory},
	{"RolledBackWithTx", testPhoneHealthRolledBack},
	{"ConcurrentRecords", testPhoneHealthConcurrent},
	{"CampaignPausedReason", testCampaignPausedReason},
	{"CampaignsOnNumber", testCampaignsOnNumber},
}

var reachTests = []storeTest{
	{"LimitAndFreesAt", testReachLimit},
	{"WindowMoves", testReachWindowMoves},
	{"RolledBackWithTx", testReachRolledBack},
	{"ConcurrentReachesNeverPassLimit", testReachConcurrent},
	{"Purge", testReachPurge},
}

func testPhoneHealthUnknown(t *testing.T, s Store) {
	number := NewID("pnid")
	h, err := s.GetPhoneHealth(t.Context(), number)
	if err != nil {
		t.Fatalf("GetPhoneHealth: %v", err)
	}
	mustEqual(t, "health of an unknown number", domain.PhoneHealth{Number: number}, h)
	changes, err := s.ListPhoneHealthChanges(t.Context(), number, 10)
	if err != nil || len(changes) != 0 {
		t.Fatalf("ListPhoneHealthChanges: %v %v", changes, err)
	}
}

// testPhoneHealthHistory: each reading that changes something is kept, in
// order, with what it replaced; a repeat is not; the current health is the
// latest of each field.
func testPhoneHealthHistory(t *testing.T, s Store) {
	ctx, number, now := t.Context(), NewID("pnid"), Now()
	readings := []domain.HealthReading{
		{Quality: domain.QualityGreen, Tier: domain.Tier2K, Source: domain.HealthFromRead, At: now.Add(-3 * time.Hour)},
		{Quality: domain.QualityGreen, Tier: domain.Tier2K, Source: domain.HealthFromRead, At: now.Add(-2 * time.Hour)},
		{Quality: domain.QualityRed, Source: domain.HealthFromWebhook, Event: "FLAGGED", At: now.Add(-time.Hour)},
		{Tier: domain.Tier10K, Source: domain.HealthFromWebhook, Event: "UPGRADE", At: now},
	}
	var want []domain.HealthChange
	for i, r := range readings {
		ch, changed, err := s.RecordPhoneHealth(ctx, number, r)
		if err != nil {
			t.Fatalf("RecordPhoneHealth %d: %v", i, err)
		}
		if changed != (i != 1) {
			t.Fatalf("reading %d changed=%v", i, changed)
		}
		if changed {
			want = append([]domain.HealthChange{ch}, want...)
		}
	}
	got, err := s.ListPhoneHealthChanges(ctx, number, 10)
	if err != nil {
		t.Fatalf("ListPhoneHealthChanges: %v", err)
	}
	mustEqual(t, "history", want, got)
	mustEqual(t, "the RED change", domain.HealthChange{Number: number, Quality: domain.QualityRed,
		PreviousQuality: domain.QualityGreen, Tier: domain.Tier2K, PreviousTier: domain.Tier2K,
		Source: domain.HealthFromWebhook, Event: "FLAGGED", At: now.Add(-time.Hour)}, got[1])
	if got, err := s.ListPhoneHealthChanges(ctx, number, 1); err != nil || len(got) != 1 || got[0].Tier != domain.Tier10K {
		t.Fatalf("the newest change: %v %v", got, err)
	}
	h, err := s.GetPhoneHealth(ctx, number)
	if err != nil {
		t.Fatalf("GetPhoneHealth: %v", err)
	}
	mustEqual(t, "health", domain.PhoneHealth{Number: number, Quality: domain.QualityRed, QualityAt: now.Add(-time.Hour),
		Tier: domain.Tier10K, TierAt: now}, h)
}

func testPhoneHealthRolledBack(t *testing.T, s Store) {
	ctx, number := t.Context(), NewID("pnid")
	boom := errors.New("boom")
	err := s.WithinTx(ctx, func(ctx context.Context, r ports.Repos) error {
		if _, _, err := r.Health.RecordPhoneHealth(ctx, number, domain.HealthReading{Quality: domain.QualityRed,
			Source: domain.HealthFromRead, At: Now()}); err != nil {
			return err
		}
		return boom
	})
	mustBe(t, "WithinTx", err, boom)
	h, err := s.GetPhoneHealth(ctx, number)
	if err != nil || h.Quality != "" {
		t.Fatalf("after rollback: %+v %v", h, err)
	}
	if got, err := s.ListPhoneHealthChanges(ctx, number, 10); err != nil || len(got) != 0 {
		t.Fatalf("history after rollback: %v %v", got, err)
	}
}

// testPhoneHealthConcurrent: ten instances record alternating ratings of
// one number at once; the history chains, each change naming the one
// before it.
func testPhoneHealthConcurrent(t *testing.T, s Store) {
	ctx, number, now := t.Context(), NewID("pnid"), Now()
	var wg sync.WaitGroup
	for i := range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			q := domain.QualityGreen
			if i%2 == 1 {
				q = domain.QualityRed
			}
			if _, _, err := s.RecordPhoneHealth(ctx, number, domain.HealthReading{Quality: q, Source: domain.HealthFromRead,
				At: now.Add(time.Duration(i) * time.Second)}); err != nil {
				t.Errorf("RecordPhoneHealth: %v", err)
			}
		}()
	}
	wg.Wait()
	got, err := s.ListPhoneHealthChanges(ctx, number, 100)
	if err != nil || len(got) == 0 {
		t.Fatalf("ListPhoneHealthChanges: %v %v", got, err)
	}
	for i := 0; i+1 < len(got); i++ {
		if got[i].PreviousQuality != got[i+1].Quality {
			t.Fatalf("change %d replaced %s, but the change before it set %s", i, got[i].PreviousQuality, got[i+1].Quality)
		}
	}
	if got[len(got)-1].PreviousQuality != "" {
		t.Fatalf("the first change replaced %s", got[len(got)-1].PreviousQuality)
	}
}

// testReachLimit: new recipients take places until the limit; a recipient
// already reached takes none; a refusal says when the oldest place frees.
func testReachLimit(t *testing.T, s Store) {
	ctx, portfolio, now := t.Context(), NewID("biz"), Now()
	for i, r := range []string{"a", "b", "a"} {
		reached, _, err := s.ReachRecipient(ctx, portfolio, r, now.Add(time.Duration(i)*time.Minute), 2)
		if err != nil || !reached {
			t.Fatalf("reach %d (%s): %v %v", i, r, reached, err)
		}
	}
	reached, freesAt, err := s.ReachRecipient(ctx, portfolio, "c", now.Add(time.Hour), 2)
	if err != nil || reached {
		t.Fatalf("a third recipient: %v %v", reached, err)
	}
	// a was reached again at +2 min, so b (at +1 min) is the oldest.
	mustEqual(t, "frees at", now.Add(time.Minute).Add(domain.MessagingWindow), freesAt)
	if reached, _, err := s.ReachRecipient(ctx, portfolio, "b", now.Add(time.Hour), 2); err != nil || !reached {
		t.Fatalf("a recipient of the window: %v %v", reached, err)
	}
	if n, err := s.CountReached(ctx, portfolio, now.Add(time.Hour)); err != nil || n != 2 {
		t.Fatalf("CountReached: %d %v", n, err)
	}
	if reached, _, err := s.ReachRecipient(ctx, NewID("biz"), "c", now, 2); err != nil || !reached {
		t.Fatalf("another portfolio: %v %v", reached, err)
	}
	if reached, _, err := s.ReachRecipient(ctx, portfolio, "d", now.Add(time.Hour), 0); err != nil || !reached {
		t.Fatalf("without a limit: %v %v", reached, err)
	}
}

// testReachWindowMoves: 24 hours after a recipient was reached, their
// place is free.
func testReachWindowMoves(t *testing.T, s Store) {
	ctx, portfolio, now := t.Context(), NewID("biz"), Now()
	if reached, _, err := s.ReachRecipient(ctx, portfolio, "a", now, 1); err != nil || !reached {
		t.Fatalf("first: %v %v", reached, err)
	}
	if reached, _, err := s.ReachRecipient(ctx, portfolio, "b", now.Add(domain.MessagingWindow-time.Second), 1); err != nil || reached {
		t.Fatalf("before the place frees: %v %v", reached, err)
	}
	if reached, _, err := s.ReachRecipient(ctx, portfolio, "b", now.Add(domain.MessagingWindow), 1); err != nil || !reached {
		t.Fatalf("once it frees: %v %v", reached, err)
	}
}

func testReachRolledBack(t *testing.T, s Store) {
	ctx, portfolio, now := t.Context(), NewID("biz"), Now()
	boom := errors.New("boom")
	err := s.WithinTx(ctx, func(ctx context.Context, r ports.Repos) error {
		if _, _, err := r.Reach.ReachRecipient(ctx, portfolio, "a", now, 1); err != nil {
			return err
		}
		return boom
	})
	mustBe(t, "WithinTx", err, boom)
	if reached, _, err := s.ReachRecipient(ctx, portfolio, "b", now, 1); err != nil || !reached {
		t.Fatalf("after the rollback the place is free: %v %v", reached, err)
	}
}

// testReachConcurrent: 20 sends to 20 new recipients at once, in
// transactions, with a limit of 5: exactly 5 are reached.
func testReachConcurrent(t *testing.T, s Store) {
	ctx, portfolio, now := t.Context(), NewID("biz"), Now()
	var mu sync.Mutex
	n := 0
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := s.WithinTx(ctx, func(ctx context.Context, r ports.Repos) error {
				reached, _, err := r.Reach.ReachRecipient(ctx, portfolio, NewID("r"), now.Add(time.Duration(i)*time.Millisecond), 5)
				if err == nil && reached {
					mu.Lock()
					n++
					mu.Unlock()
				}
				return err
			})
			if err != nil {
				t.Errorf("ReachRecipient: %v", err)
			}
		}()
	}
	wg.Wait()
	if n != 5 {
		t.Fatalf("%d recipients reached, want 5", n)
	}
	if got, err := s.CountReached(ctx, portfolio, now.Add(time.Second)); err != nil || got != 5 {
		t.Fatalf("CountReached: %d %v", got, err)
	}
}

func testReachPurge(t *testing.T, s Store) {
	ctx, portfolio, now := t.Context(), NewID("biz"), Now()
	old := now.Add(-400 * 24 * time.Hour)
	if _, _, err := s.ReachRecipient(ctx, portfolio, "a", old, 0); err != nil {
		t.Fatal(err)
	}
	if n, err := s.PurgeReach(ctx, old.Add(time.Second)); err != nil || n < 1 {
		t.Fatalf("PurgeReach: %d %v", n, err)
	}
	if got, err := s.CountReached(ctx, portfolio, old); err != nil || got != 0 {
		t.Fatalf("after purge: %d %v", got, err)
	}
}

// testCampaignPausedReason: Herald's own pause keeps its reason, read back
// from the store; activating clears it.
func testCampaignPausedReason(t *testing.T, s Store) {
	f := newFixture(t, s)
	c := f.campaign()
	at := Now()
	got, err := s.UpdateCampaign(f.ctx, f.ws, c.ID, func(c *domain.Campaign) error {
		if err := c.Activate(at); err != nil {
			return err
		}
		c.PauseFor(domain.PausedQualityRed, at)
		return nil
	})
	if err != nil {
		t.Fatalf("UpdateCampaign: %v", err)
	}
	read, err := s.GetCampaign(f.ctx, f.ws, c.ID)
	if err != nil {
		t.Fatalf("GetCampaign: %v", err)
	}
	mustEqual(t, "paused campaign read back", got, read)
	if read.Status != domain.CampaignPaused || read.PausedReason != domain.PausedQualityRed {
		t.Fatalf("read back %s %q", read.Status, read.PausedReason)
	}
	read, err = s.UpdateCampaign(f.ctx, f.ws, c.ID, func(c *domain.Campaign) error { return c.Activate(at) })
	if err != nil || !read.PausedReason.IsZero() {
		t.Fatalf("activated: %q %v", read.PausedReason, err)
	}
	if read, err = s.GetCampaign(f.ctx, f.ws, c.ID); err != nil || !read.PausedReason.IsZero() {
		t.Fatalf("activated, read back: %q %v", read.PausedReason, err)
	}
}

// testCampaignsOnNumber: the campaigns bound to a number, whatever their
// workspace and status, and no others.
func testCampaignsOnNumber(t *testing.T, s Store) {
	f, g := newFixture(t, s), newFixture(t, s)
	number := domain.BusinessNumberID(NewID(domain.PrefixBusinessNumber))
	var want []domain.Campaign
	for _, fx := range []*fixture{f, g} {
		c := NewCampaign(t, fx.ws)
		c.Number = number
		if err := s.CreateCampaign(fx.ctx, c); err != nil {
			t.Fatalf("CreateCampaign: %v", err)
		}
		want = append(want, c)
	}
	f.campaign() // on no number
	if want[1].ID < want[0].ID {
		want[0], want[1] = want[1], want[0]
	}
	got, err := s.ListCampaignsOnNumber(t.Context(), number)
	if err != nil {
		t.Fatalf("ListCampaignsOnNumber: %v", err)
	}
	mustEqual(t, "campaigns on the number", want, got)
}
