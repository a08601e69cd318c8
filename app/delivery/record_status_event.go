package delivery

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// RecordStatusEventHandler applies a provider's status event to its message:
// forward-only and idempotent (domain.Message.Advance). Meta's webhooks and
// the sandbox both report through it, so test mode exercises the same path as
// production. It implements ports.StatusSink.
type RecordStatusEventHandler struct {
	tx     ports.Transactor
	clock  ports.Clock
	events *usecase.Events
	obs    *usecase.Observer
}

// NewRecordStatusEventHandler builds the handler. A status that changes
// its message writes its event (message.sent, …) in the same transaction.
func NewRecordStatusEventHandler(tx ports.Transactor, clock ports.Clock, events *usecase.Events, obs *usecase.Observer) *RecordStatusEventHandler {
	return &RecordStatusEventHandler{tx: tx, clock: clock, events: events, obs: obs}
}

// RecordStatus applies e in one transaction (see applyStatus).
func (h *RecordStatusEventHandler) RecordStatus(ctx context.Context, e ports.StatusEvent) error {
	_, err := usecase.Observe(ctx, h.obs, "record_status_event", func(ctx context.Context) (struct{}, error) {
		return struct{}{}, h.tx.WithinTx(ctx, func(ctx context.Context, r ports.Repos) error {
			_, _, err := applyStatus(ctx, r, h.events, e, h.clock.Now())
			return err
		})
	})
	return err
}

// statusOutcome says what applyStatus did with an event.
type statusOutcome int

const (
	statusApplied   statusOutcome = iota // the message changed
	statusUnchanged                      // a duplicate or stale event: kept nothing new
	statusParked                         // no message has this wamid yet: kept for later
)

// applyStatus finds the event's message by our id (Meta echoes it in
// biz_opaque_callback_data) or by its wamid, advances it, and returns it as
// it was found. An event for a wamid no message holds yet (it raced ahead
// of the send's answer, or came without our id) is parked, and applied when
// a message gets that wamid. A change of the message's status writes its
// event, at now.
//
// The message is read once, locked, and written in the same step
// (UpdateLocatedMessage). Statuses parked for the wamid the event gives a
// message without one are taken after that write, and applied to it in a
// second one: the same order of events as applying them together.
func applyStatus(ctx context.Context, r ports.Repos, ev *usecase.Events, e ports.StatusEvent, now time.Time) (statusOutcome, domain.Message, error) {
	var found domain.Message
	advanceBy := func(events ...ports.StatusEvent) func(*domain.Message) error {
		return func(m *domain.Message) error {
			if found.ID == "" {
				found = *m
				found.History = slices.Clone(m.History)
			}
			if !advance(m, events...) {
				return usecase.ErrUnchanged
			}
			return nil
		}
	}
	updated, err := r.Messages.UpdateLocatedMessage(ctx, e.MessageID, e.ProviderID, advanceBy(e))
	if errors.Is(err, domain.ErrMessageNotFound) && e.MessageID != "" && e.ProviderID != "" {
		updated, err = r.Messages.UpdateLocatedMessage(ctx, "", e.ProviderID, advanceBy(e))
	}
	switch {
	case errors.Is(err, domain.ErrMessageNotFound) && e.ProviderID != "":
		return statusParked, domain.Message{}, r.Parked.ParkStatus(ctx, e, now)
	case errors.Is(err, usecase.ErrUnchanged):
		return statusUnchanged, found, nil
	case err != nil:
		return 0, domain.Message{}, err
	}
	if found.ProviderID == "" && e.ProviderID != "" {
		// The event names the wamid before the send's answer was recorded:
		// anything parked for it belongs to this message too.
		parked, err := r.Parked.TakeParkedStatuses(ctx, e.ProviderID)
		if err != nil {
			return 0, domain.Message{}, err
		}
		if len(parked) > 0 {
			again, err := r.Messages.UpdateLocatedMessage(ctx, updated.ID, "", advanceBy(parked...))
			switch {
			case errors.Is(err, usecase.ErrUnchanged):
			case err != nil:
				return 0, domain.Message{}, err
			default:
				updated = again
			}
		}
	}
	if err := ev.Message(ctx, r.Events, found.Status, updated, now); err != nil {
		return 0, domain.Message{}, err
	}
	return statusApplied, found, nil
}

// advance applies status events to m and reports whether it changed: the
// wamid when m has none, the status (forward only) and Meta's pricing.
func advance(m *domain.Message, events ...ports.StatusEvent) bool {
	changed := false
	for _, e := range events {
		if m.ProviderID == "" && e.ProviderID != "" {
			m.ProviderID = e.ProviderID
			changed = true
		}
		if m.Advance(e.Status, e.At, e.Failure) {
			changed = true
		}
		if m.RecordPricing(e.Pricing) {
			changed = true
		}
	}
	return changed
}

var _ ports.StatusSink = (*RecordStatusEventHandler)(nil)
