package porttest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// Webhook events belong to no workspace and ListWebhookEvents looks at them
// all: each case receives its events in its own random hour (see
// receiptWindow) and every listing filters on it.
var webhookTests = []storeTest{
	{"RoundTrip", testWebhookRoundTrip},
	{"Dedupe", testWebhookDedupe},
	{"DedupeInTx", testWebhookDedupeInTx},
	{"NotFound", testWebhookNotFound},
	{"Update", testWebhookUpdate},
	{"UpdateError", testWebhookUpdateError},
	{"List", testWebhookList},
	{"Rollback", testWebhookRollback},
	{"SaveMany", testWebhookSaveMany},
	{"SaveManyConflict", testWebhookSaveManyConflict},
}

// receiptWindow returns the start of a random, never-reused hour in the
// 22nd century, in which a case receives its webhook events.
func receiptWindow() time.Time {
	return time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(rand.Int64N(800_000)) * time.Hour)
}

func saveEvent(t *testing.T, s ports.WebhookEventRepository, e domain.WebhookEvent) domain.WebhookEvent {
	t.Helper()
	stored, created, err := s.SaveWebhookEvent(t.Context(), cloneEvent(e))
	if err != nil {
		t.Fatalf("SaveWebhookEvent: %v", err)
	}
	if !created {
		t.Fatal("SaveWebhookEvent of a new body did not create it")
	}
	mustEqual(t, "event saved", e, stored)
	return cloneEvent(e)
}

func getEvent(t *testing.T, s ports.WebhookEventRepository, id domain.WebhookEventID) domain.WebhookEvent {
	t.Helper()
	got, err := s.GetWebhookEvent(t.Context(), id)
	if err != nil {
		t.Fatalf("GetWebhookEvent: %v", err)
	}
	return got
}

// An event reads back as written, outcome fields included, and the store
// keeps its own copy of the body.
func testWebhookRoundTrip(t *testing.T, s Store) {
	base := receiptWindow()
	fresh := NewWebhookEvent(base)
	applied := NewWebhookEvent(base.Add(time.Second))
	applied.Failed("the store was unreachable")
	applied.Applied(base.Add(time.Minute))
	failed := NewWebhookEvent(base.Add(2 * time.Second))
	failed.Failed("decode: unexpected end of JSON input")
	for _, e := range []domain.WebhookEvent{fresh, applied, failed} {
		written := cloneEvent(e)
		stored, created, err := s.SaveWebhookEvent(t.Context(), written)
		if err != nil || !created {
			t.Fatalf("SaveWebhookEvent = created %v, %v; want created", created, err)
		}
		mustEqual(t, "event saved", e, stored)
		written.Body[0] = 'X'
		stored.Body[1] = 'X'
		got := getEvent(t, s, e.ID)
		mustEqual(t, "event read back", e, got)
		got.Body[2] = 'X'
		mustEqual(t, "event read again", e, getEvent(t, s, e.ID))
	}
}

// A body stored already is not stored again: saving it returns the stored
// event, whatever the new event's id and receipt time.
func testWebhookDedupe(t *testing.T, s Store) {
	base := receiptWindow()
	first := saveEvent(t, s, NewWebhookEvent(base))
	again := domain.NewWebhookEvent(domain.WebhookEventID(NewID(domain.PrefixWebhookEvent)),
		first.Body, first.SHA256, base.Add(time.Minute))
	stored, created, err := s.SaveWebhookEvent(t.Context(), again)
	if err != nil {
		t.Fatalf("SaveWebhookEvent of a stored body: %v", err)
	}
	if created {
		t.Fatal("SaveWebhookEvent stored a body twice")
	}
	mustEqual(t, "event returned for a stored body", first, stored)
	_, err = s.GetWebhookEvent(t.Context(), again.ID)
	mustBe(t, "GetWebhookEvent of the refused event", err, domain.ErrWebhookEventNotFound)
	got, err := s.ListWebhookEvents(t.Context(), ports.WebhookEventFilter{ReceivedSince: base, ReceivedBefore: base.Add(time.Hour)})
	if err != nil {
		t.Fatalf("ListWebhookEvents: %v", err)
	}
	mustEqual(t, "events stored", []domain.WebhookEvent{first}, got)
}

// Saving a stored body inside a transaction leaves it usable: it goes on
// writing and commits (on PostgreSQL a failed statement would abort it).
func testWebhookDedupeInTx(t *testing.T, s Store) {
	base := receiptWindow()
	first := saveEvent(t, s, NewWebhookEvent(base))
	again := domain.NewWebhookEvent(domain.WebhookEventID(NewID(domain.PrefixWebhookEvent)),
		first.Body, first.SHA256, base.Add(time.Minute))
	next := NewWebhookEvent(base.Add(time.Second))
	err := s.WithinTx(t.Context(), func(ctx context.Context, r ports.Repos) error {
		stored, created, err := r.Webhooks.SaveWebhookEvent(ctx, again)
		if err != nil {
			return fmt.Errorf("SaveWebhookEvent of a stored body: %w", err)
		}
		if created || stored.ID != first.ID {
			return fmt.Errorf("SaveWebhookEvent of a stored body = %s, created %v; want %s, not created", stored.ID, created, first.ID)
		}
		if _, created, err := r.Webhooks.SaveWebhookEvent(ctx, next); err != nil || !created {
			return fmt.Errorf("SaveWebhookEvent after the duplicate = created %v, %w", created, err)
		}
		_, err = r.Webhooks.UpdateWebhookEvent(ctx, first.ID, func(e *domain.WebhookEvent) error {
			e.Failed("retry")
			return nil
		})
		return err
	})
	if err != nil {
		t.Fatalf("WithinTx: %v", err)
	}
	first.Failed("retry")
	got, err := s.ListWebhookEvents(t.Context(), ports.WebhookEventFilter{ReceivedSince: base, ReceivedBefore: base.Add(time.Hour)})
	if err != nil {
		t.Fatalf("ListWebhookEvents: %v", err)
	}
	want := []domain.WebhookEvent{first, next}
	slices.SortFunc(want, func(a, b domain.WebhookEvent) int { return cmp.Compare(a.ID, b.ID) })
	mustEqual(t, "events after the transaction", want, got)
}

func testWebhookNotFound(t *testing.T, s Store) {
	id := domain.WebhookEventID(NewID(domain.PrefixWebhookEvent))
	_, err := s.GetWebhookEvent(t.Context(), id)
	mustBe(t, "GetWebhookEvent of an unknown id", err, domain.ErrWebhookEventNotFound)
	called := false
	_, err = s.UpdateWebhookEvent(t.Context(), id, func(*domain.WebhookEvent) error {
		called = true
		return nil
	})
	mustBe(t, "UpdateWebhookEvent of an unknown id", err, domain.ErrWebhookEventNotFound)
	if called {
		t.Fatal("UpdateWebhookEvent called fn for an unknown event")
	}
}

// UpdateWebhookEvent stores the outcome fields and only those: the id,
// body, digest and receipt time stay as received.
func testWebhookUpdate(t *testing.T, s Store) {
	base := receiptWindow()
	e := saveEvent(t, s, NewWebhookEvent(base))
	want := cloneEvent(e)
	want.Failed("sqlstore: begin transaction: unavailable")
	update := func(fn func(*domain.WebhookEvent)) domain.WebhookEvent {
		t.Helper()
		got, err := s.UpdateWebhookEvent(t.Context(), e.ID, func(e *domain.WebhookEvent) error {
			fn(e)
			e.ID = domain.WebhookEventID(NewID(domain.PrefixWebhookEvent))
			e.Body = []byte("changed")
			e.SHA256 = "changed"
			e.ReceivedAt = e.ReceivedAt.Add(time.Hour)
			return nil
		})
		if err != nil {
			t.Fatalf("UpdateWebhookEvent: %v", err)
		}
		return got
	}
	got := update(func(e *domain.WebhookEvent) { e.Failed("sqlstore: begin transaction: unavailable") })
	mustEqual(t, "UpdateWebhookEvent result", want, got)
	mustEqual(t, "failed event read back", want, getEvent(t, s, e.ID))

	appliedAt := base.Add(time.Minute).In(time.FixedZone("CET", 3600))
	want.Applied(appliedAt)
	got = update(func(e *domain.WebhookEvent) { e.Applied(appliedAt) })
	mustEqual(t, "UpdateWebhookEvent result", want, got)
	mustEqual(t, "applied event read back", want, getEvent(t, s, e.ID))
	if want.Attempts != 2 || want.LastError != "" || want.AppliedAt == nil {
		t.Fatalf("the updates do not cover the outcome fields: %+v", want)
	}
}

func testWebhookUpdateError(t *testing.T, s Store) {
	e := saveEvent(t, s, NewWebhookEvent(receiptWindow()))
	boom := errors.New("boom")
	_, err := s.UpdateWebhookEvent(t.Context(), e.ID, func(e *domain.WebhookEvent) error {
		e.Applied(Now())
		e.Body[0] = 'X'
		return boom
	})
	mustBe(t, "UpdateWebhookEvent with a failing fn", err, boom)
	mustEqual(t, "event after a failed update", e, getEvent(t, s, e.ID))
}

// ListWebhookEvents filters by outcome and receipt time (since inclusive,
// before exclusive) and pages by id, smallest first.
func testWebhookList(t *testing.T, s Store) {
	base := receiptWindow()
	var events []domain.WebhookEvent
	for i := range 5 {
		e := saveEvent(t, s, NewWebhookEvent(base.Add(time.Duration(i)*time.Minute)))
		if i%2 == 1 {
			var err error
			e, err = s.UpdateWebhookEvent(t.Context(), e.ID, func(e *domain.WebhookEvent) error {
				e.Applied(base.Add(time.Hour))
				return nil
			})
			if err != nil {
				t.Fatalf("UpdateWebhookEvent: %v", err)
			}
		}
		events = append(events, e)
	}
	saveEvent(t, s, NewWebhookEvent(base.Add(-time.Microsecond))) // before the window
	saveEvent(t, s, NewWebhookEvent(base.Add(time.Hour)))         // at its end, excluded
	byID := func(es ...domain.WebhookEvent) []domain.WebhookEvent {
		out := slices.Clone(es)
		slices.SortFunc(out, func(a, b domain.WebhookEvent) int { return cmp.Compare(a.ID, b.ID) })
		return out
	}
	window := func(f ports.WebhookEventFilter) ports.WebhookEventFilter {
		if f.ReceivedSince.IsZero() {
			f.ReceivedSince = base
		}
		if f.ReceivedBefore.IsZero() {
			f.ReceivedBefore = base.Add(time.Hour)
		}
		return f
	}
	for _, tc := range []struct {
		name   string
		filter ports.WebhookEventFilter
		want   []domain.WebhookEvent
	}{
		{"all", window(ports.WebhookEventFilter{}), byID(events...)},
		{"unapplied", window(ports.WebhookEventFilter{Unapplied: true}), byID(events[0], events[2], events[4])},
		{"since", window(ports.WebhookEventFilter{ReceivedSince: base.Add(2 * time.Minute)}), byID(events[2:]...)},
		{"before", window(ports.WebhookEventFilter{ReceivedBefore: base.Add(2 * time.Minute)}), byID(events[:2]...)},
		{"unapplied before", window(ports.WebhookEventFilter{Unapplied: true, ReceivedBefore: base.Add(3 * time.Minute)}),
			byID(events[0], events[2])},
		{"limited", window(ports.WebhookEventFilter{Limit: 3}), byID(events...)[:3]},
		// Applied events were tried once; the others never.
		{"below attempts", window(ports.WebhookEventFilter{BelowAttempts: 1}), byID(events[0], events[2], events[4])},
		{"unapplied below attempts", window(ports.WebhookEventFilter{Unapplied: true, BelowAttempts: 2}), byID(events[0], events[2], events[4])},
		{"after", window(ports.WebhookEventFilter{After: byID(events...)[1].ID}), byID(events...)[2:]},
	} {
		got, err := s.ListWebhookEvents(t.Context(), tc.filter)
		if err != nil {
			t.Fatalf("%s: ListWebhookEvents: %v", tc.name, err)
		}
		mustEqual(t, tc.name, tc.want, got)
	}

	for _, f := range []ports.WebhookEventFilter{{Limit: 2}, {Unapplied: true, Limit: 1}} {
		want := byID(events...)
		if f.Unapplied {
			want = byID(events[0], events[2], events[4])
		}
		var all []domain.WebhookEvent
		f = window(f)
		for page := 1; ; page++ {
			got, err := s.ListWebhookEvents(t.Context(), f)
			if err != nil {
				t.Fatalf("ListWebhookEvents page %d: %v", page, err)
			}
			if len(got) > f.Limit {
				t.Fatalf("page %d has %d events, over the limit of %d", page, len(got), f.Limit)
			}
			if len(got) == 0 {
				break
			}
			all = append(all, got...)
			f.After = got[len(got)-1].ID
		}
		mustEqual(t, fmt.Sprintf("events listed in pages of %d", f.Limit), want, all)
	}
}

// An event saved in a transaction that fails is gone, and its body can be
// saved again.
func testWebhookRollback(t *testing.T, s Store) {
	base := receiptWindow()
	e := NewWebhookEvent(base)
	boom := errors.New("boom")
	err := s.WithinTx(t.Context(), func(ctx context.Context, r ports.Repos) error {
		if _, created, err := r.Webhooks.SaveWebhookEvent(ctx, cloneEvent(e)); err != nil || !created {
			return fmt.Errorf("SaveWebhookEvent = created %v, %w", created, err)
		}
		if _, err := r.Webhooks.GetWebhookEvent(ctx, e.ID); err != nil {
			return fmt.Errorf("the transaction does not see its own event: %w", err)
		}
		return boom
	})
	mustBe(t, "WithinTx with a failing fn", err, boom)
	_, err = s.GetWebhookEvent(t.Context(), e.ID)
	mustBe(t, "GetWebhookEvent after rollback", err, domain.ErrWebhookEventNotFound)
	saveEvent(t, s, e)
}

// SaveWebhookEvents saves each event as SaveWebhookEvent does and answers
// in the events' order: a new body is created, a body stored before gets
// the stored event, and of two events with one body in the call the first
// is created and the second gets it. Inside a transaction it leaves the
// transaction usable.
func testWebhookSaveMany(t *testing.T, s Store) {
	base := receiptWindow()
	before := saveEvent(t, s, NewWebhookEvent(base))
	a, b := NewWebhookEvent(base.Add(time.Second)), NewWebhookEvent(base.Add(2*time.Second))
	a.Applied(base.Add(time.Minute))
	same := func(e domain.WebhookEvent, after time.Duration) domain.WebhookEvent {
		return domain.NewWebhookEvent(domain.WebhookEventID(NewID(domain.PrefixWebhookEvent)), e.Body, e.SHA256, base.Add(after))
	}
	in := []domain.WebhookEvent{cloneEvent(a), same(before, 3*time.Second), cloneEvent(b), same(a, 4*time.Second)}
	var got []ports.SavedWebhookEvent
	err := s.WithinTx(t.Context(), func(ctx context.Context, r ports.Repos) error {
		var err error
		if got, err = r.Webhooks.SaveWebhookEvents(ctx, in); err != nil {
			return err
		}
		_, err = r.Webhooks.UpdateWebhookEvent(ctx, b.ID, func(e *domain.WebhookEvent) error {
			e.Failed("retry")
			return nil
		})
		return err
	})
	if err != nil {
		t.Fatalf("SaveWebhookEvents in a transaction: %v", err)
	}
	want := []ports.SavedWebhookEvent{{Stored: a, Created: true}, {Stored: before}, {Stored: b, Created: true}, {Stored: a}}
	mustEqual(t, "SaveWebhookEvents", want, got)
	in[0].Body[0] = 'X'
	b.Failed("retry")
	listed, err := s.ListWebhookEvents(t.Context(), ports.WebhookEventFilter{ReceivedSince: base, ReceivedBefore: base.Add(time.Hour)})
	if err != nil {
		t.Fatalf("ListWebhookEvents: %v", err)
	}
	wantListed := []domain.WebhookEvent{before, a, b}
	slices.SortFunc(wantListed, func(x, y domain.WebhookEvent) int { return cmp.Compare(x.ID, y.ID) })
	mustEqual(t, "events stored", wantListed, listed)
	if got, err := s.SaveWebhookEvents(t.Context(), nil); err != nil || len(got) != 0 {
		t.Fatalf("SaveWebhookEvents of none = %v, %v", got, err)
	}
}

// An event whose id is taken by another body fails the call, and none of
// its events is stored.
func testWebhookSaveManyConflict(t *testing.T, s Store) {
	base := receiptWindow()
	taken := saveEvent(t, s, NewWebhookEvent(base))
	fresh := NewWebhookEvent(base.Add(time.Second))
	clash := NewWebhookEvent(base.Add(2 * time.Second))
	clash.ID = taken.ID
	_, err := s.SaveWebhookEvents(t.Context(), []domain.WebhookEvent{fresh, clash})
	if err == nil {
		t.Fatal("SaveWebhookEvents with an id taken by another body succeeded")
	}
	_, err = s.GetWebhookEvent(t.Context(), fresh.ID)
	mustBe(t, "GetWebhookEvent of the failed call's other event", err, domain.ErrWebhookEventNotFound)
	mustEqual(t, "the event whose id was taken", taken, getEvent(t, s, taken.ID))
}
