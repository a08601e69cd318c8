package porttest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// The parked statuses (ports.ParkedStatusRepository); their cases are
// listed with the messages' (messageTests).

// takeParked takes the events parked for a wamid.
func takeParked(t *testing.T, s Store, providerID string) []ports.StatusEvent {
	t.Helper()
	got, err := s.TakeParkedStatuses(t.Context(), providerID)
	if err != nil {
		t.Fatalf("TakeParkedStatuses: %v", err)
	}
	return got
}

func park(t *testing.T, s ports.ParkedStatusRepository, e ports.StatusEvent, parkedAt time.Time) {
	t.Helper()
	if err := s.ParkStatus(t.Context(), e, parkedAt); err != nil {
		t.Fatalf("ParkStatus: %v", err)
	}
}

// Parked events are kept once per wamid and status (the first one parked
// stays), and taken once, oldest event first, ties in lifecycle order.
func testMessageParkStatuses(t *testing.T, s Store) {
	wamid, theirs := NewWamid(), NewWamid()
	t0 := Now()
	ist := time.FixedZone("IST", 5*60*60+30*60)
	sent := ports.StatusEvent{MessageID: domain.MessageID(NewID(domain.PrefixMessage)), ProviderID: wamid,
		Status: domain.StatusSent, At: t0.Add(2 * time.Second).In(ist),
		Pricing: &domain.Pricing{Model: "PMP", Type: "regular", Category: "marketing", Billable: true}}
	delivered := ports.StatusEvent{ProviderID: wamid, Status: domain.StatusDelivered, At: t0.Add(time.Second)}
	failed := ports.StatusEvent{ProviderID: wamid, Status: domain.StatusFailed, At: t0.Add(time.Second),
		Failure: &domain.Failure{Code: 131049, Title: "Healthy ecosystem"}}
	sentAgain := ports.StatusEvent{ProviderID: wamid, Status: domain.StatusSent, At: t0.Add(5 * time.Second)}
	read := ports.StatusEvent{ProviderID: theirs, Status: domain.StatusRead, At: t0}

	wantSent := sent
	wantSent.At = sent.At.UTC()
	wantSent.Pricing = clonePtr(sent.Pricing)
	for _, e := range []ports.StatusEvent{sent, delivered, sentAgain, failed, read} {
		park(t, s, e, t0)
	}
	sent.Pricing.Billable = false // the store keeps its own copy
	if err := s.ParkStatus(t.Context(), ports.StatusEvent{Status: domain.StatusSent, At: t0}, t0); err == nil {
		t.Fatal("ParkStatus of an event without a wamid succeeded")
	}

	mustEqual(t, "events taken", []ports.StatusEvent{delivered, failed, wantSent}, takeParked(t, s, wamid))
	mustEqual(t, "events taken again", []ports.StatusEvent{}, takeParked(t, s, wamid))
	mustEqual(t, "events of an unknown wamid", []ports.StatusEvent{}, takeParked(t, s, NewWamid()))
	mustEqual(t, "events of the other wamid", []ports.StatusEvent{read}, takeParked(t, s, theirs))
}

// Parking an event kept already leaves the transaction usable (on
// PostgreSQL a failed statement would abort it); a rolled-back park is
// gone.
func testMessageParkStatusInTx(t *testing.T, s Store) {
	f := newFixture(t, s)
	wamid, t0 := NewWamid(), Now()
	sent := ports.StatusEvent{ProviderID: wamid, Status: domain.StatusSent, At: t0}
	delivered := ports.StatusEvent{ProviderID: wamid, Status: domain.StatusDelivered, At: t0.Add(time.Second)}
	park(t, s, sent, t0)
	c := NewCampaign(t, f.ws)
	err := s.WithinTx(f.ctx, func(ctx context.Context, r ports.Repos) error {
		if err := r.Parked.ParkStatus(ctx, sent, t0); err != nil {
			return fmt.Errorf("ParkStatus of a parked event: %w", err)
		}
		if err := r.Parked.ParkStatus(ctx, delivered, t0); err != nil {
			return fmt.Errorf("ParkStatus: %w", err)
		}
		return r.Campaigns.CreateCampaign(ctx, c)
	})
	if err != nil {
		t.Fatalf("WithinTx: %v", err)
	}
	if _, err := s.GetCampaign(f.ctx, f.ws, c.ID); err != nil {
		t.Fatalf("GetCampaign of the campaign created after the repeated park: %v", err)
	}

	rolledBack := NewWamid()
	boom := errors.New("boom")
	err = s.WithinTx(f.ctx, func(ctx context.Context, r ports.Repos) error {
		if err := r.Parked.ParkStatus(ctx, ports.StatusEvent{ProviderID: rolledBack, Status: domain.StatusRead, At: t0}, t0); err != nil {
			return err
		}
		return boom
	})
	mustBe(t, "WithinTx with a failing fn", err, boom)
	mustEqual(t, "events parked in and around the transaction", []ports.StatusEvent{sent, delivered}, takeParked(t, s, wamid))
	mustEqual(t, "events parked in a rolled-back transaction", []ports.StatusEvent{}, takeParked(t, s, rolledBack))
}

// PurgeParkedStatuses removes what was parked before the time, and only
// that. Its events are parked decades ago, so no other case's events are
// purged or counted.
func testMessagePurgeParkedStatuses(t *testing.T, s Store) {
	long := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	old, atLimit, newer, recent := NewWamid(), NewWamid(), NewWamid(), NewWamid()
	event := func(wamid string) ports.StatusEvent {
		return ports.StatusEvent{ProviderID: wamid, Status: domain.StatusDelivered, At: long}
	}
	park(t, s, event(old), long)
	park(t, s, event(atLimit), long.Add(time.Hour))
	park(t, s, event(newer), long.Add(2*time.Hour))
	park(t, s, event(recent), Now())
	n, err := s.PurgeParkedStatuses(t.Context(), long.Add(time.Hour))
	if err != nil {
		t.Fatalf("PurgeParkedStatuses: %v", err)
	}
	if n != 1 {
		t.Fatalf("PurgeParkedStatuses removed %d events, want 1", n)
	}
	mustEqual(t, "purged events", []ports.StatusEvent{}, takeParked(t, s, old))
	for _, w := range []string{atLimit, newer, recent} {
		mustEqual(t, "events kept", []ports.StatusEvent{event(w)}, takeParked(t, s, w))
	}
}
