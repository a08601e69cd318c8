package memstore

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"time"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// outboxEvent is a stored event with the order in which it was appended.
type outboxEvent struct {
	e        domain.Event
	appended int64
}

// The counters of the outbox, in state.counters.
const (
	counterAppended = "events appended" // the last event's appended
	counterSeq      = "events seq"      // the last seq given
	counterAttempts = "attempts"        // the last attempt's number
)

// next increments the counter name (undoably) and returns its new value.
func (st *state) next(name string) int64 {
	n := st.counters[name] + 1
	put(st, st.counters, name, n)
	return n
}

// AppendEvents stores es and a pending delivery of each to every enabled
// endpoint of its workspace and mode that subscribes to its type. Nothing
// is stored unless every event can be.
func (r *repos) AppendEvents(ctx context.Context, es ...domain.Event) error {
	defer r.enter(ctx)()
	seen := map[domain.EventID]bool{}
	for _, e := range es {
		if e.Type == domain.EventWebhookTest {
			return errors.New("memstore: webhook.test events are appended to one endpoint (AppendEventTo)")
		}
		if _, ok := r.st.outbox[e.ID]; ok || seen[e.ID] {
			return conflict("an event with this id exists")
		}
		seen[e.ID] = true
	}
	for _, e := range es {
		stored := r.st.appendEvent(e)
		for _, w := range r.st.endpoints {
			if w.Workspace != e.Workspace || w.Mode != e.Mode || w.Status != domain.EndpointEnabled || !w.Events.Matches(e.Type) {
				continue
			}
			due := stored.e.OccurredAt
			if later := r.st.latestDue(w.ID, e.Subject, stored.appended); later != nil && later.After(due) {
				due = *later
			}
			r.st.putDelivery(stored, w.ID, &due, stored.e.OccurredAt)
		}
	}
	return nil
}

// appendEvent stores e, unsequenced, as the next appended.
func (st *state) appendEvent(e domain.Event) outboxEvent {
	stored := outboxEvent{e: copyOutboxEvent(e), appended: st.next(counterAppended)}
	stored.e.Seq = 0
	put(st, st.outbox, e.ID, stored)
	return stored
}

// latestDue is the latest due time of the pending deliveries to endpoint
// with the non-empty subject appended before order, or nil.
func (st *state) latestDue(endpoint domain.WebhookEndpointID, subject string, order int64) *time.Time {
	if subject == "" {
		return nil
	}
	var latest *time.Time
	for k, d := range st.deliveries {
		if k.endpoint == endpoint && d.subject == subject && d.state == domain.DeliveryPending && d.order < order &&
			d.next != nil && (latest == nil || d.next.After(*latest)) {
			latest = d.next
		}
	}
	return latest
}

// AppendEventTo stores e with one pending delivery, to the endpoint, which
// must be of e's workspace and mode.
func (r *repos) AppendEventTo(ctx context.Context, e domain.Event, endpoint domain.WebhookEndpointID) error {
	defer r.enter(ctx)()
	w, ok := r.st.endpoints[endpoint]
	if !ok || w.Workspace != e.Workspace || w.Mode != e.Mode {
		return domain.NotFound(domain.ErrWebhookEndpointNotFound)
	}
	if _, ok := r.st.outbox[e.ID]; ok {
		return conflict("an event with this id exists")
	}
	stored := r.st.appendEvent(e)
	r.st.putDelivery(stored, w.ID, dueIfEnabled(w, stored.e.OccurredAt), stored.e.OccurredAt)
	return nil
}

// dueIfEnabled is at for an enabled endpoint's delivery, nil (no due time)
// for a disabled one's.
func dueIfEnabled(w domain.WebhookEndpoint, at time.Time) *time.Time {
	if w.Status != domain.EndpointEnabled {
		return nil
	}
	return &at
}

// GetEvent returns one of the workspace's events of mode (any mode for the
// zero mode).
func (r *repos) GetEvent(ctx context.Context, ws domain.WorkspaceID, mode domain.KeyMode, id domain.EventID) (domain.Event, error) {
	defer r.enter(ctx)()
	e, err := r.st.event(ws, mode, id)
	return copyOutboxEvent(e.e), err
}

func (st *state) event(ws domain.WorkspaceID, mode domain.KeyMode, id domain.EventID) (outboxEvent, error) {
	e, ok := st.outbox[id]
	if !ok || e.e.Workspace != ws || !ofMode(e.e.Mode, mode) {
		return outboxEvent{}, domain.NotFound(domain.ErrEventNotFound)
	}
	return e, nil
}

// ListEvents returns the workspace's sequenced events of mode after
// f.AfterSeq, by seq.
func (r *repos) ListEvents(ctx context.Context, ws domain.WorkspaceID, mode domain.KeyMode, f ports.EventFilter) ([]domain.Event, error) {
	defer r.enter(ctx)()
	out := []domain.Event{}
	for _, e := range r.st.outbox {
		if e.e.Workspace == ws && ofMode(e.e.Mode, mode) && e.e.Seq != 0 && e.e.Seq > f.AfterSeq &&
			(len(f.Types) == 0 || slices.Contains(f.Types, e.e.Type)) {
			out = append(out, e.e)
		}
	}
	slices.SortFunc(out, func(a, b domain.Event) int { return cmp.Compare(a.Seq, b.Seq) })
	limit := f.Limit
	if limit <= 0 {
		limit = ports.DefaultEventLimit
	}
	out = out[:min(len(out), limit)]
	for i := range out {
		out[i] = copyOutboxEvent(out[i])
	}
	return out, nil
}

// SequenceEvents gives the next seqs to up to limit unsequenced events, in
// the order they were appended.
func (r *repos) SequenceEvents(ctx context.Context, limit int) (int, error) {
	defer r.enter(ctx)()
	var waiting []outboxEvent
	for _, e := range r.st.outbox {
		if e.e.Seq == 0 {
			waiting = append(waiting, e)
		}
	}
	slices.SortFunc(waiting, func(a, b outboxEvent) int { return cmp.Compare(a.appended, b.appended) })
	waiting = waiting[:min(len(waiting), max(limit, 0))]
	for _, e := range waiting {
		e.e.Seq = r.st.next(counterSeq)
		put(r.st, r.st.outbox, e.e.ID, e)
	}
	return len(waiting), nil
}

// PurgeEvents removes up to limit events older than before, oldest first,
// with their deliveries and attempts.
func (r *repos) PurgeEvents(ctx context.Context, before time.Time, limit int) (int, error) {
	defer r.enter(ctx)()
	var old []domain.Event
	for _, e := range r.st.outbox {
		if e.e.OccurredAt.Before(utc(before)) {
			old = append(old, e.e)
		}
	}
	slices.SortFunc(old, func(a, b domain.Event) int {
		return cmp.Or(a.OccurredAt.Compare(b.OccurredAt), cmp.Compare(a.ID, b.ID))
	})
	old = old[:min(len(old), max(limit, 0))]
	gone := map[domain.EventID]bool{}
	for _, e := range old {
		gone[e.ID] = true
		del(r.st, r.st.outbox, e.ID)
	}
	deleteWhere(r.st, r.st.deliveries, func(k deliveryKey, _ delivery) bool { return gone[k.event] })
	deleteWhere(r.st, r.st.attempts, func(_ int64, a storedAttempt) bool { return gone[a.a.Event] })
	return len(old), nil
}

func copyOutboxEvent(e domain.Event) domain.Event {
	e.Body = slices.Clone(e.Body)
	e.OccurredAt = utc(e.OccurredAt)
	return e
}
