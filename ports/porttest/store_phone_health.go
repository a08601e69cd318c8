package porttest

import (
	"context"
	"errors"
	"fmt"
	"slices"
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
	{"ManyInOneCall", testReachMany},
	{"UnlimitedReachesWaitForACount", testReachUnlimitedBesideLimited},
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

// reachOne reaches one recipient.
func reachOne(ctx context.Context, s ports.MessagingReachRepository, portfolio, recipient string, at time.Time, limit int) (bool, time.Time, error) {
	got, err := s.ReachRecipients(ctx, portfolio, []ports.Reach{{Recipient: recipient, At: at, Limit: limit}})
	if err != nil {
		return false, time.Time{}, err
	}
	if len(got) != 1 {
		return false, time.Time{}, fmt.Errorf("ReachRecipients answered %d reaches for 1", len(got))
	}
	return got[0].Reached, got[0].FreesAt, nil
}

// testReachMany: one call's reaches go one after the other. A recipient of
// the call already in the window, refreshed by the call, does not hold the
// oldest place of a refusal later in the call; a recipient twice in a call
// takes one place; a reach without a limit takes a place past it; and the
// refreshed times are stored.
func testReachMany(t *testing.T, s Store) {
	ctx, portfolio, t0 := t.Context(), NewID("biz"), Now()
	for i, r := range []string{"a", "x"} {
		if reached, _, err := reachOne(ctx, s, portfolio, r, t0.Add(time.Duration(i)*time.Minute), 0); err != nil || !reached {
			t.Fatalf("reach %s: %v %v", r, reached, err)
		}
	}
	at := t0.Add(time.Hour)
	var reaches []ports.Reach
	for _, r := range []string{"b", "a", "c", "d", "b"} {
		reaches = append(reaches, ports.Reach{Recipient: r, At: at, Limit: 3})
	}
	reaches = append(reaches, ports.Reach{Recipient: "e", At: at})
	got, err := s.ReachRecipients(ctx, portfolio, reaches)
	if err != nil {
		t.Fatal(err)
	}
	xFrees := t0.Add(time.Minute).Add(domain.MessagingWindow) // a was refreshed: x holds the oldest place
	want := []ports.Reached{{Reached: true}, {Reached: true}, {FreesAt: xFrees}, {FreesAt: xFrees}, {Reached: true}, {Reached: true}}
	if len(got) != len(want) {
		t.Fatalf("ReachRecipients answered %d reaches for %d", len(got), len(want))
	}
	for i := range want {
		if got[i].Reached != want[i].Reached || !got[i].FreesAt.Equal(want[i].FreesAt) {
			t.Errorf("reach %d (%s): %+v, want %+v", i, reaches[i].Recipient, got[i], want[i])
		}
	}
	if n, err := s.CountReached(ctx, portfolio, at); err != nil || n != 4 {
		t.Fatalf("CountReached after the call: %d %v, want 4 (a, x, b, e)", n, err)
	}
	// A day after x: a's place moved with the call, so the window is full.
	later := t0.Add(domain.MessagingWindow + 2*time.Minute)
	reached, freesAt, err := reachOne(ctx, s, portfolio, "f", later, 3)
	if err != nil || reached {
		t.Fatalf("a new recipient a day later: %v %v, want refused (a, b and e in the window)", reached, err)
	}
	mustEqual(t, "frees at", at.Add(domain.MessagingWindow), freesAt)
}

// testReachUnlimitedBesideLimited: reaches without a limit and reaches with
// one, at once, in transactions. From a counted reach until its
// transaction ends, the window holds still: no reach without a limit
// slips in between the count and the commit.
func testReachUnlimitedBesideLimited(t *testing.T, s Store) {
	ctx, portfolio, now := t.Context(), NewID("biz"), Now()
	var wg sync.WaitGroup
	for i := range 24 {
		wg.Go(func() {
			err := s.WithinTx(ctx, func(ctx context.Context, r ports.Repos) error {
				limit := 1000 * (i % 2) // every other reach has no limit
				reached, _, err := reachOne(ctx, r.Reach, portfolio, NewID("r"), now.Add(time.Duration(i)*time.Millisecond), limit)
				if err != nil || !reached || limit == 0 {
					return err
				}
				var seen []int
				for range 4 {
					n, err := r.Reach.CountReached(ctx, portfolio, now.Add(time.Second))
					if err != nil {
						return err
					}
					seen = append(seen, n)
				}
				if slices.Min(seen) != slices.Max(seen) {
					t.Errorf("a counted reach's transaction saw the window change: %v", seen)
				}
				return nil
			})
			if err != nil {
				t.Errorf("reach %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	if n, err := s.CountReached(ctx, portfolio, now.Add(time.Second)); err != nil || n != 24 {
		t.Fatalf("CountReached: %d %v, want 24", n, err)
	}
}

// testReachLimit: new recipients take places until the limit; a recipient
// already reached takes none; a refusal says when the oldest place frees.
func testReachLimit(t *testing.T, s Store) {
	ctx, portfolio, now := t.Context(), NewID("biz"), Now()
	for i, r := range []string{"a", "b", "a"} {
		reached, _, err := reachOne(ctx, s, portfolio, r, now.Add(time.Duration(i)*time.Minute), 2)
		if err != nil || !reached {
			t.Fatalf("reach %d (%s): %v %v", i, r, reached, err)
		}
	}
	reached, freesAt, err := reachOne(ctx, s, portfolio, "c", now.Add(time.Hour), 2)
	if err != nil || reached {
		t.Fatalf("a third recipient: %v %v", reached, err)
	}
	// a was reached again at +2 min, so b (at +1 min) is the oldest.
	mustEqual(t, "frees at", now.Add(time.Minute).Add(domain.MessagingWindow), freesAt)
	if reached, _, err := reachOne(ctx, s, portfolio, "b", now.Add(time.Hour), 2); err != nil || !reached {
		t.Fatalf("a recipient of the window: %v %v", reached, err)
	}
	if n, err := s.CountReached(ctx, portfolio, now.Add(time.Hour)); err != nil || n != 2 {
		t.Fatalf("CountReached: %d %v", n, err)
	}
	if reached, _, err := reachOne(ctx, s, NewID("biz"), "c", now, 2); err != nil || !reached {
		t.Fatalf("another portfolio: %v %v", reached, err)
	}
	if reached, _, err := reachOne(ctx, s, portfolio, "d", now.Add(time.Hour), 0); err != nil || !reached {
		t.Fatalf("without a limit: %v %v", reached, err)
	}
}

// testReachWindowMoves: 24 hours after a recipient was reached, their
// place is free.
func testReachWindowMoves(t *testing.T, s Store) {
	ctx, portfolio, now := t.Context(), NewID("biz"), Now()
	if reached, _, err := reachOne(ctx, s, portfolio, "a", now, 1); err != nil || !reached {
		t.Fatalf("first: %v %v", reached, err)
	}
	if reached, _, err := reachOne(ctx, s, portfolio, "b", now.Add(domain.MessagingWindow-time.Second), 1); err != nil || reached {
		t.Fatalf("before the place frees: %v %v", reached, err)
	}
	if reached, _, err := reachOne(ctx, s, portfolio, "b", now.Add(domain.MessagingWindow), 1); err != nil || !reached {
		t.Fatalf("once it frees: %v %v", reached, err)
	}
}

func testReachRolledBack(t *testing.T, s Store) {
	ctx, portfolio, now := t.Context(), NewID("biz"), Now()
	boom := errors.New("boom")
	err := s.WithinTx(ctx, func(ctx context.Context, r ports.Repos) error {
		if _, _, err := reachOne(ctx, r.Reach, portfolio, "a", now, 1); err != nil {
			return err
		}
		return boom
	})
	mustBe(t, "WithinTx", err, boom)
	if reached, _, err := reachOne(ctx, s, portfolio, "b", now, 1); err != nil || !reached {
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
				reached, _, err := reachOne(ctx, r.Reach, portfolio, NewID("r"), now.Add(time.Duration(i)*time.Millisecond), 5)
				if err == nil && reached {
					mu.Lock()
					n++
					mu.Unlock()
				}
				return err
			})
			if err != nil {
				t.Errorf("ReachRecipients: %v", err)
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
	if _, _, err := reachOne(ctx, s, portfolio, "a", old, 0); err != nil {
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
