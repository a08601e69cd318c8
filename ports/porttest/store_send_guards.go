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

var sendGuardTests = []storeTest{
	{"IdempotencyRoundTrip", testIdempotencyRoundTrip},
	{"IdempotencyFreshClaimRefused", testIdempotencyFreshClaimRefused},
	{"IdempotencyStaleClaimReplaced", testIdempotencyStaleClaimReplaced},
	{"IdempotencyScopedByWorkspace", testIdempotencyScopedByWorkspace},
	{"IdempotencyScopedByMode", testIdempotencyScopedByMode},
	{"IdempotencyRolledBackWithTx", testIdempotencyRolledBack},
	{"IdempotencyConcurrentClaims", testIdempotencyConcurrentClaims},
	{"IdempotencyPurge", testIdempotencyPurge},
	{"SendCountLimit", testSendCountLimit},
	{"SendCountRolledBackWithTx", testSendCountRolledBack},
	{"SendCountPurge", testSendCountPurge},
}

func newIdempotencyRecord(ws domain.WorkspaceID, created time.Time) domain.IdempotencyRecord {
	return domain.IdempotencyRecord{Workspace: ws, Mode: domain.ModeLive, Key: domain.IdempotencyKey(NewID("idem")),
		Fingerprint: domain.FingerprintOf(NewID("body")), Message: domain.MessageID(NewID(domain.PrefixMessage)),
		CreatedAt: created}
}

func testIdempotencyRoundTrip(t *testing.T, s Store) {
	f := newFixture(t, s)
	now := Now()
	rec := newIdempotencyRecord(f.ws, now)
	if _, found, err := s.FindIdempotencyRecord(f.ctx, f.ws, rec.Mode, rec.Key); err != nil || found {
		t.Fatalf("FindIdempotencyRecord before the claim: found=%v, %v", found, err)
	}
	if err := s.ClaimIdempotencyKey(f.ctx, rec, now.Add(-domain.IdempotencyRetention)); err != nil {
		t.Fatalf("ClaimIdempotencyKey: %v", err)
	}
	got, found, err := s.FindIdempotencyRecord(f.ctx, f.ws, rec.Mode, rec.Key)
	if err != nil || !found {
		t.Fatalf("FindIdempotencyRecord: found=%v, %v", found, err)
	}
	mustEqual(t, "record", rec, got)
}

func testIdempotencyFreshClaimRefused(t *testing.T, s Store) {
	f := newFixture(t, s)
	now := Now()
	first := newIdempotencyRecord(f.ws, now.Add(-time.Hour))
	if err := s.ClaimIdempotencyKey(f.ctx, first, now.Add(-domain.IdempotencyRetention)); err != nil {
		t.Fatalf("ClaimIdempotencyKey: %v", err)
	}
	second := newIdempotencyRecord(f.ws, now)
	second.Key = first.Key
	mustBe(t, "second claim of a fresh key", s.ClaimIdempotencyKey(f.ctx, second, now.Add(-domain.IdempotencyRetention)), domain.ErrConflict)
	got, _, err := s.FindIdempotencyRecord(f.ctx, f.ws, first.Mode, first.Key)
	if err != nil {
		t.Fatal(err)
	}
	mustEqual(t, "record after a refused claim", first, got)
}

func testIdempotencyStaleClaimReplaced(t *testing.T, s Store) {
	f := newFixture(t, s)
	now := Now()
	old := newIdempotencyRecord(f.ws, now.Add(-25*time.Hour))
	if err := s.ClaimIdempotencyKey(f.ctx, old, now.Add(-50*time.Hour)); err != nil {
		t.Fatalf("ClaimIdempotencyKey: %v", err)
	}
	fresh := newIdempotencyRecord(f.ws, now)
	fresh.Key = old.Key
	if err := s.ClaimIdempotencyKey(f.ctx, fresh, now.Add(-domain.IdempotencyRetention)); err != nil {
		t.Fatalf("claim over a record past its retention: %v", err)
	}
	got, _, err := s.FindIdempotencyRecord(f.ctx, f.ws, old.Mode, old.Key)
	if err != nil {
		t.Fatal(err)
	}
	mustEqual(t, "record after replacing a stale one", fresh, got)
}

func testIdempotencyScopedByWorkspace(t *testing.T, s Store) {
	f := newFixture(t, s)
	other := f.otherWorkspace()
	now := Now()
	mine := newIdempotencyRecord(f.ws, now)
	theirs := newIdempotencyRecord(other, now)
	theirs.Key = mine.Key
	for _, rec := range []domain.IdempotencyRecord{mine, theirs} {
		if err := s.ClaimIdempotencyKey(f.ctx, rec, now.Add(-domain.IdempotencyRetention)); err != nil {
			t.Fatalf("ClaimIdempotencyKey in %s: %v", rec.Workspace, err)
		}
	}
	for _, want := range []domain.IdempotencyRecord{mine, theirs} {
		got, _, err := s.FindIdempotencyRecord(f.ctx, want.Workspace, want.Mode, want.Key)
		if err != nil {
			t.Fatal(err)
		}
		mustEqual(t, "record of "+string(want.Workspace), want, got)
	}
}

// testIdempotencyScopedByMode: a live key and a test key of one workspace
// each have their own record of the same key; a fresh claim in one mode
// refuses only that mode's next claim.
func testIdempotencyScopedByMode(t *testing.T, s Store) {
	f := newFixture(t, s)
	now := Now()
	live := newIdempotencyRecord(f.ws, now)
	test := newIdempotencyRecord(f.ws, now)
	test.Mode, test.Key = domain.ModeTest, live.Key
	if err := s.ClaimIdempotencyKey(f.ctx, test, now.Add(-domain.IdempotencyRetention)); err != nil {
		t.Fatalf("ClaimIdempotencyKey in test mode: %v", err)
	}
	if _, found, err := s.FindIdempotencyRecord(f.ctx, f.ws, domain.ModeLive, live.Key); err != nil || found {
		t.Fatalf("the live record of a key only test mode claimed: found=%v, %v", found, err)
	}
	if err := s.ClaimIdempotencyKey(f.ctx, live, now.Add(-domain.IdempotencyRetention)); err != nil {
		t.Fatalf("ClaimIdempotencyKey in live mode of a key test mode holds: %v", err)
	}
	for _, want := range []domain.IdempotencyRecord{live, test} {
		got, found, err := s.FindIdempotencyRecord(f.ctx, f.ws, want.Mode, want.Key)
		if err != nil || !found {
			t.Fatalf("FindIdempotencyRecord in %s mode: found=%v, %v", want.Mode, found, err)
		}
		mustEqual(t, want.Mode.String()+" record", want, got)
	}
	again := newIdempotencyRecord(f.ws, now)
	again.Key = live.Key
	mustBe(t, "a second live claim", s.ClaimIdempotencyKey(f.ctx, again, now.Add(-domain.IdempotencyRetention)), domain.ErrConflict)
}

func testIdempotencyRolledBack(t *testing.T, s Store) {
	f := newFixture(t, s)
	now := Now()
	rec := newIdempotencyRecord(f.ws, now)
	boom := errors.New("boom")
	err := s.WithinTx(f.ctx, func(ctx context.Context, r ports.Repos) error {
		if err := r.Idempotency.ClaimIdempotencyKey(ctx, rec, now.Add(-domain.IdempotencyRetention)); err != nil {
			return err
		}
		return boom
	})
	mustBe(t, "WithinTx", err, boom)
	if _, found, err := s.FindIdempotencyRecord(f.ctx, f.ws, rec.Mode, rec.Key); err != nil || found {
		t.Fatalf("a rolled-back claim is still there: found=%v, %v", found, err)
	}
	if err := s.ClaimIdempotencyKey(f.ctx, rec, now.Add(-domain.IdempotencyRetention)); err != nil {
		t.Fatalf("claim after the rollback: %v", err)
	}
}

// testIdempotencyConcurrentClaims: of 10 transactions claiming one key at
// once, exactly one commits; the others see ErrConflict.
func testIdempotencyConcurrentClaims(t *testing.T, s Store) {
	f := newFixture(t, s)
	now := Now()
	key := newIdempotencyRecord(f.ws, now).Key
	const n = 10
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			rec := newIdempotencyRecord(f.ws, now)
			rec.Key = key
			errs[i] = s.WithinTx(f.ctx, func(ctx context.Context, r ports.Repos) error {
				return r.Idempotency.ClaimIdempotencyKey(ctx, rec, now.Add(-domain.IdempotencyRetention))
			})
		})
	}
	wg.Wait()
	won := 0
	for i, err := range errs {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, domain.ErrConflict):
			t.Errorf("claim %d: %v, want nil or ErrConflict", i, err)
		}
	}
	if won != 1 {
		t.Fatalf("%d claims of one key committed, want exactly 1", won)
	}
}

func testIdempotencyPurge(t *testing.T, s Store) {
	f := newFixture(t, s)
	// Decades ago: no other case's records are this old, so the global
	// purge touches only these.
	ancient := time.Date(1990, 1, 1, 0, 0, 0, 0, time.UTC)
	old := newIdempotencyRecord(f.ws, ancient)
	kept := newIdempotencyRecord(f.ws, ancient.Add(2*time.Hour))
	for _, rec := range []domain.IdempotencyRecord{old, kept} {
		if err := s.ClaimIdempotencyKey(f.ctx, rec, ancient.Add(-time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	n, err := s.PurgeIdempotencyRecords(f.ctx, ancient.Add(time.Hour))
	if err != nil || n != 1 {
		t.Fatalf("PurgeIdempotencyRecords: %d, %v; want 1", n, err)
	}
	if _, found, _ := s.FindIdempotencyRecord(f.ctx, f.ws, old.Mode, old.Key); found {
		t.Fatal("the purged record is still there")
	}
	if _, found, _ := s.FindIdempotencyRecord(f.ctx, f.ws, kept.Mode, kept.Key); !found {
		t.Fatal("the newer record was purged")
	}
}

func testSendCountLimit(t *testing.T, s Store) {
	f := newFixture(t, s)
	day := time.Date(2030, 5, 6, 0, 0, 0, 0, time.UTC)
	count := func(mode domain.KeyMode, day time.Time, limit int) bool {
		t.Helper()
		ok, err := s.CountSend(f.ctx, f.ws, mode, day, limit)
		if err != nil {
			t.Fatalf("CountSend: %v", err)
		}
		return ok
	}
	for i := range 3 {
		if !count(domain.ModeLive, day, 3) {
			t.Fatalf("send %d of 3 was refused", i+1)
		}
	}
	if count(domain.ModeLive, day, 3) {
		t.Fatal("a fourth send was counted under a limit of 3")
	}
	if !count(domain.ModeLive, day, 4) {
		t.Fatal("a raised limit still refuses")
	}
	if !count(domain.ModeTest, day, 3) {
		t.Fatal("test-mode sends share the live count")
	}
	if !count(domain.ModeLive, day.AddDate(0, 0, 1), 3) {
		t.Fatal("the next day starts full")
	}
	other := f.otherWorkspace()
	if ok, err := s.CountSend(f.ctx, other, domain.ModeLive, day, 3); err != nil || !ok {
		t.Fatalf("another workspace shares the count: %v, %v", ok, err)
	}
	if count(domain.ModeLive, day.AddDate(0, 0, 2), 0) {
		t.Fatal("a limit of 0 counted a send")
	}
}

func testSendCountRolledBack(t *testing.T, s Store) {
	f := newFixture(t, s)
	day := time.Date(2030, 5, 7, 0, 0, 0, 0, time.UTC)
	boom := errors.New("boom")
	err := s.WithinTx(f.ctx, func(ctx context.Context, r ports.Repos) error {
		if ok, err := r.SendCounts.CountSend(ctx, f.ws, domain.ModeLive, day, 1); err != nil || !ok {
			t.Errorf("CountSend in the transaction: %v, %v", ok, err)
		}
		return boom
	})
	mustBe(t, "WithinTx", err, boom)
	if ok, err := s.CountSend(f.ctx, f.ws, domain.ModeLive, day, 1); err != nil || !ok {
		t.Fatalf("the rolled-back send still counts: %v, %v", ok, err)
	}
}

func testSendCountPurge(t *testing.T, s Store) {
	f := newFixture(t, s)
	ancient := time.Date(1990, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, day := range []time.Time{ancient, ancient.AddDate(0, 0, 1)} {
		if ok, err := s.CountSend(f.ctx, f.ws, domain.ModeLive, day, 1); err != nil || !ok {
			t.Fatalf("CountSend: %v, %v", ok, err)
		}
	}
	n, err := s.PurgeSendCounts(f.ctx, ancient.AddDate(0, 0, 1))
	if err != nil || n != 1 {
		t.Fatalf("PurgeSendCounts: %d, %v; want 1", n, err)
	}
	if ok, _ := s.CountSend(f.ctx, f.ws, domain.ModeLive, ancient, 1); !ok {
		t.Fatal("the purged day is still full")
	}
	if ok, _ := s.CountSend(f.ctx, f.ws, domain.ModeLive, ancient.AddDate(0, 0, 1), 1); ok {
		t.Fatal("the kept day was purged")
	}
}
