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

// deliveryKey names the delivery of one event to one endpoint.
type deliveryKey struct {
	event    domain.EventID
	endpoint domain.WebhookEndpointID
}

// delivery is where the delivery of one event to one endpoint is.
type delivery struct {
	subject    string
	order      int64 // the event's appended
	state      domain.DeliveryState
	attempts   int        // in the current series
	next       *time.Time // when a pending delivery is due; nil while its endpoint is disabled
	owner      string
	leaseUntil *time.Time
	updated    time.Time
}

// storedAttempt is an attempt with the order it was recorded in.
type storedAttempt struct {
	a domain.DeliveryAttempt
	n int64
}

// putDelivery stores a new pending delivery of e to endpoint.
func (st *state) putDelivery(e outboxEvent, endpoint domain.WebhookEndpointID, due *time.Time, now time.Time) {
	put(st, st.deliveries, deliveryKey{e.e.ID, endpoint}, delivery{
		subject: e.e.Subject, order: e.appended, state: domain.DeliveryPending, next: utcPtr(due), updated: utc(now),
	})
}

// heldBack reports whether an earlier pending delivery to the endpoint with
// the delivery's non-empty subject holds it back.
func (st *state) heldBack(k deliveryKey, d delivery) bool {
	if d.subject == "" {
		return false
	}
	for ok, o := range st.deliveries {
		if ok.endpoint == k.endpoint && o.subject == d.subject && o.state == domain.DeliveryPending && o.order < d.order {
			return true
		}
	}
	return false
}

// ClaimDeliveries leases up to c.Limit due deliveries of enabled endpoints
// that nothing holds back, oldest due first, then in their events' order.
func (r *repos) ClaimDeliveries(ctx context.Context, c ports.DeliveryClaim) ([]ports.ClaimedDelivery, error) {
	defer r.enter(ctx)()
	now := utc(c.Now)
	var due []deliveryKey
	for k, d := range r.st.deliveries {
		w, ok := r.st.endpoints[k.endpoint]
		if d.state == domain.DeliveryPending && d.next != nil && !d.next.After(now) &&
			(d.leaseUntil == nil || !d.leaseUntil.After(now)) && ok && w.Status == domain.EndpointEnabled &&
			!r.st.heldBack(k, d) {
			due = append(due, k)
		}
	}
	slices.SortFunc(due, func(a, b deliveryKey) int {
		da, db := r.st.deliveries[a], r.st.deliveries[b]
		return cmp.Or(da.next.Compare(*db.next), cmp.Compare(da.order, db.order))
	})
	out := []ports.ClaimedDelivery{}
	for _, k := range due[:min(len(due), max(c.Limit, 0))] {
		d := r.st.deliveries[k]
		d.attempts++
		d.owner, d.leaseUntil = c.Owner, utcPtr(&c.LeaseUntil)
		put(r.st, r.st.deliveries, k, d)
		out = append(out, ports.ClaimedDelivery{Event: copyOutboxEvent(r.st.outbox[k.event].e),
			Endpoint: copyEndpoint(r.st.endpoints[k.endpoint]), Attempt: d.attempts})
	}
	return out, nil
}

// RecordAttempt stores the attempt, moves the delivery to r.State and
// applies endpoint, if the delivery is still leased to r.Owner for
// r.Attempt.
func (r *repos) RecordAttempt(ctx context.Context, rec ports.AttemptRecord, endpoint func(*domain.WebhookEndpoint) error) (domain.WebhookEndpoint, error) {
	defer r.enter(ctx)()
	return r.recordAttempt(rec, endpoint)
}

// errAttemptState refuses an attempt record without a state, or pending
// without a retry time.
var errAttemptState = errors.New("memstore: an attempt record needs a state, and a retry time when pending")

// RecordAttempts records recs in order, as one transaction: a record's own
// error (its lease lost, its state missing) is its outcome; any other
// failure undoes the records before it and is returned.
func (r *repos) RecordAttempts(ctx context.Context, recs []ports.AttemptRecord, endpoint func(ports.AttemptRecord, *domain.WebhookEndpoint) error) ([]ports.AttemptOutcome, error) {
	if len(recs) == 0 {
		return nil, nil
	}
	defer r.enter(ctx)()
	outer := r.st.undo
	var undo []func()
	r.st.undo = &undo
	defer func() { r.st.undo = outer }()
	out := make([]ports.AttemptOutcome, len(recs))
	for i, rec := range recs {
		var fn func(*domain.WebhookEndpoint) error
		if endpoint != nil {
			fn = func(e *domain.WebhookEndpoint) error { return endpoint(rec, e) }
		}
		ep, err := r.recordAttempt(rec, fn)
		switch {
		case errors.Is(err, ports.ErrDeliveryLeaseLost), errors.Is(err, errAttemptState):
			out[i].Err = err
		case err != nil:
			for j := len(undo) - 1; j >= 0; j-- {
				undo[j]()
			}
			return nil, err
		default:
			out[i].Endpoint = ep
		}
	}
	if outer != nil {
		*outer = append(*outer, undo...)
	}
	return out, nil
}

// recordAttempt is RecordAttempt, holding the store.
func (r *repos) recordAttempt(rec ports.AttemptRecord, endpoint func(*domain.WebhookEndpoint) error) (domain.WebhookEndpoint, error) {
	pending := rec.State == domain.DeliveryPending
	if rec.State.IsZero() || pending && rec.RetryAt.IsZero() {
		return domain.WebhookEndpoint{}, errAttemptState
	}
	k := deliveryKey{rec.Event, rec.Endpoint}
	d, ok := r.st.deliveries[k]
	w, found := r.st.endpoints[rec.Endpoint]
	if !ok || !found || d.owner != rec.Owner || d.attempts != rec.Attempt || d.leaseUntil == nil {
		return domain.WebhookEndpoint{}, ports.ErrDeliveryLeaseLost
	}
	after := copyEndpoint(w)
	if endpoint != nil {
		var err error
		if after, err = applyEndpoint(w, endpoint); err != nil {
			return domain.WebhookEndpoint{}, err
		}
	}
	d.state, d.next, d.owner, d.leaseUntil = rec.State, nil, "", nil
	if pending {
		d.next = utcPtr(&rec.RetryAt)
	}
	d.updated = utc(rec.At.Add(rec.Duration))
	put(r.st, r.st.deliveries, k, d)
	a := rec.DeliveryAttempt
	a.At = utc(a.At)
	a.Duration = a.Duration.Truncate(time.Microsecond)
	a.ResponseHead = slices.Clone(a.ResponseHead[:min(len(a.ResponseHead), domain.MaxResponseHead)])
	n := r.st.next(counterAttempts)
	put(r.st, r.st.attempts, n, storedAttempt{a: a, n: n})
	if pending && d.subject != "" {
		retry := utc(rec.RetryAt)
		for ok, o := range r.st.deliveries {
			if ok.endpoint == k.endpoint && o.subject == d.subject && o.state == domain.DeliveryPending && o.order > d.order &&
				o.next != nil && o.next.Before(retry) {
				o.next = &retry
				put(r.st, r.st.deliveries, ok, o)
			}
		}
	}
	if endpoint != nil {
		r.st.storeEndpoint(w, after)
	}
	return copyEndpoint(after), nil
}

// ListDeliveries returns one event's deliveries by endpoint id, each with
// its attempts oldest first.
func (r *repos) ListDeliveries(ctx context.Context, ws domain.WorkspaceID, mode domain.KeyMode, id domain.EventID) ([]domain.EventDelivery, error) {
	defer r.enter(ctx)()
	if _, err := r.st.event(ws, mode, id); err != nil {
		return nil, err
	}
	out := []domain.EventDelivery{}
	for k, d := range r.st.deliveries {
		if k.event != id {
			continue
		}
		ed := domain.EventDelivery{Event: k.event, Endpoint: k.endpoint, State: d.state, UpdatedAt: d.updated}
		if d.state == domain.DeliveryPending {
			ed.NextAttemptAt = clonePtr(d.next)
		}
		ed.Attempts = r.st.attemptsWhere(func(a domain.DeliveryAttempt) bool { return a.Event == id && a.Endpoint == k.endpoint })
		out = append(out, ed)
	}
	slices.SortFunc(out, func(a, b domain.EventDelivery) int { return cmp.Compare(a.Endpoint, b.Endpoint) })
	return out, nil
}

// attemptsWhere returns the attempts that match, oldest first (by time,
// then as recorded).
func (st *state) attemptsWhere(match func(domain.DeliveryAttempt) bool) []domain.DeliveryAttempt {
	var found []storedAttempt
	for _, a := range st.attempts {
		if match(a.a) {
			found = append(found, a)
		}
	}
	slices.SortFunc(found, func(a, b storedAttempt) int { return cmp.Or(a.a.At.Compare(b.a.At), cmp.Compare(a.n, b.n)) })
	out := make([]domain.DeliveryAttempt, len(found))
	for i, a := range found {
		out[i] = a.a
		out[i].ResponseHead = slices.Clone(a.a.ResponseHead)
	}
	return out
}

// ListEndpointAttempts returns an endpoint's latest attempts, newest first.
func (r *repos) ListEndpointAttempts(ctx context.Context, ws domain.WorkspaceID, mode domain.KeyMode, id domain.WebhookEndpointID, limit int) ([]domain.DeliveryAttempt, error) {
	defer r.enter(ctx)()
	if _, err := r.st.endpoint(ws, mode, id); err != nil {
		return nil, err
	}
	if limit <= 0 {
		limit = ports.DefaultEventLimit
	}
	all := r.st.attemptsWhere(func(a domain.DeliveryAttempt) bool { return a.Endpoint == id })
	slices.Reverse(all)
	return all[:min(len(all), limit)], nil
}

// Redeliver makes the event's deliveries to its targets pending again, or
// appends them.
func (r *repos) Redeliver(ctx context.Context, ws domain.WorkspaceID, mode domain.KeyMode, id domain.EventID, endpoint domain.WebhookEndpointID, now time.Time) (int, error) {
	defer r.enter(ctx)()
	e, err := r.st.event(ws, mode, id)
	if err != nil {
		return 0, err
	}
	var targets []domain.WebhookEndpoint
	switch {
	case endpoint != "":
		w, err := r.st.endpoint(e.e.Workspace, e.e.Mode, endpoint)
		if err != nil {
			return 0, err
		}
		targets = append(targets, w)
	default:
		for _, w := range r.st.endpoints {
			_, sent := r.st.deliveries[deliveryKey{id, w.ID}]
			if e.e.Type == domain.EventWebhookTest && sent ||
				w.Workspace == e.e.Workspace && w.Mode == e.e.Mode && w.Status == domain.EndpointEnabled && w.Events.Matches(e.e.Type) {
				targets = append(targets, w)
			}
		}
	}
	n := 0
	for _, w := range targets {
		if r.st.deliverAgain(e, w, now) {
			n++
		}
	}
	return n, nil
}

// deliverAgain makes e's delivery to w pending in a new series, due at now
// (without a due time while w is disabled), unless it is pending already,
// or appends it; it reports whether it did either.
func (st *state) deliverAgain(e outboxEvent, w domain.WebhookEndpoint, now time.Time) bool {
	k := deliveryKey{e.e.ID, w.ID}
	d, ok := st.deliveries[k]
	switch {
	case !ok:
		st.putDelivery(e, w.ID, dueIfEnabled(w, now), now)
	case d.state == domain.DeliveryPending:
		return false
	default:
		d.state, d.attempts, d.next, d.owner, d.leaseUntil, d.updated = domain.DeliveryPending, 0, utcPtr(dueIfEnabled(w, now)), "", nil, utc(now)
		put(st, st.deliveries, k, d)
	}
	return true
}

// Recover makes the endpoint's given-up deliveries of events since a time
// pending again and appends those it never had.
func (r *repos) Recover(ctx context.Context, ws domain.WorkspaceID, mode domain.KeyMode, id domain.WebhookEndpointID, since, now time.Time) (int, error) {
	defer r.enter(ctx)()
	w, err := r.st.endpoint(ws, mode, id)
	if err != nil {
		return 0, err
	}
	since = utc(since)
	n := 0
	for _, e := range r.st.outbox {
		if e.e.OccurredAt.Before(since) {
			continue
		}
		d, ok := r.st.deliveries[deliveryKey{e.e.ID, w.ID}]
		switch {
		case ok && d.state == domain.DeliveryGivenUp,
			!ok && e.e.Workspace == w.Workspace && e.e.Mode == w.Mode && w.Events.Matches(e.e.Type):
			r.st.deliverAgain(e, w, now)
			n++
		}
	}
	return n, nil
}
