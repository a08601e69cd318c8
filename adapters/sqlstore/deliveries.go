package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"slices"
	"time"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// Deliveries of events to endpoints: the queue the webhook worker claims
// from, and the attempts it records.

// claimedRow is a delivery just leased.
type claimedRow struct {
	EventID       string `db:"event_id"`
	EndpointID    string `db:"endpoint_id"`
	Attempts      int    `db:"attempts"`
	NextAttemptAt dbTime `db:"next_attempt_at"`
	EventOrder    int64  `db:"event_order"`
}

// ClaimDeliveries leases up to c.Limit due deliveries in one statement:
// the subquery walks event_deliveries_due oldest due first and keeps those
// of enabled endpoints that no earlier pending delivery of their subject
// holds back; on PostgreSQL it locks them FOR UPDATE SKIP LOCKED, so
// concurrent claimers take different ones, and on SQLite claimers take
// turns. The events and endpoints are then read in the same transaction.
//
// Where a statement looks for an endpoint's pending deliveries of one
// subject, "pending" is written as "neither succeeded nor given up": the
// same rows, but a condition event_deliveries_due (partial, WHERE state =
// 'pending') cannot serve, so that event_deliveries_endpoint is the only
// index for it. A plan PostgreSQL made while the table was nearly empty
// otherwise walked every due delivery for each.
func (s *Store) ClaimDeliveries(ctx context.Context, c ports.DeliveryClaim) ([]ports.ClaimedDelivery, error) {
	qClaim := `UPDATE event_deliveries
SET lease_owner = :owner, lease_until = :lease_until, attempts = event_deliveries.attempts + 1
FROM (SELECT d.event_id, d.endpoint_id FROM event_deliveries d
      WHERE d.state = 'pending' AND d.next_attempt_at <= :now
        AND (d.lease_until IS NULL OR d.lease_until <= :now)
        AND EXISTS (SELECT 1 FROM webhook_endpoints w WHERE w.id = d.endpoint_id AND w.status = 'enabled')
        AND NOT EXISTS (SELECT 1 FROM event_deliveries p
                        WHERE d.subject <> '' AND p.endpoint_id = d.endpoint_id AND p.subject = d.subject
                          AND p.state NOT IN ('succeeded', 'given_up') AND p.event_order < d.event_order)
      ORDER BY d.next_attempt_at, d.event_order
      LIMIT :limit` + s.d.claimLock() + `) AS c
WHERE event_deliveries.event_id = c.event_id AND event_deliveries.endpoint_id = c.endpoint_id
RETURNING event_deliveries.event_id, event_deliveries.endpoint_id, event_deliveries.attempts,
    event_deliveries.next_attempt_at, event_deliveries.event_order`
	qEvents := `SELECT ` + eventColumns + ` FROM events WHERE ` + s.d.inList("id", "ids")
	qEndpoints := `SELECT ` + endpointColumns + ` FROM webhook_endpoints WHERE ` + s.d.inList("id", "ids")
	if c.Limit <= 0 {
		return nil, nil
	}
	var claimed []ports.ClaimedDelivery
	err := s.inTx(ctx, func(ctx context.Context, ts *Store) error {
		if err := ts.plan(ctx, ts.d.indexPlan()); err != nil {
			return ts.fail("claim deliveries", err, nil)
		}
		var rows []claimedRow
		arg := map[string]any{"owner": c.Owner, "lease_until": newDBTime(c.LeaseUntil), "now": newDBTime(c.Now), "limit": c.Limit}
		if err := ts.selectAll(ctx, &rows, qClaim, arg); err != nil {
			return ts.fail("claim deliveries", err, nil)
		}
		if len(rows) == 0 {
			return nil
		}
		slices.SortFunc(rows, func(a, b claimedRow) int {
			return cmp.Or(a.NextAttemptAt.time().Compare(b.NextAttemptAt.time()), cmp.Compare(a.EventOrder, b.EventOrder))
		})
		var eventIDs, endpointIDs []string
		for _, r := range rows {
			eventIDs = append(eventIDs, r.EventID)
			if !slices.Contains(endpointIDs, r.EndpointID) {
				endpointIDs = append(endpointIDs, r.EndpointID)
			}
		}
		events, err := ts.eventsByID(ctx, qEvents, eventIDs)
		if err != nil {
			return ts.fail("claim deliveries: events", err, nil)
		}
		endpoints, err := ts.endpointsByID(ctx, qEndpoints, endpointIDs)
		if err != nil {
			return ts.fail("claim deliveries: endpoints", err, nil)
		}
		for _, r := range rows {
			claimed = append(claimed, ports.ClaimedDelivery{Event: events[r.EventID], Endpoint: endpoints[r.EndpointID],
				Attempt: r.Attempts})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return claimed, nil
}

// eventsByID runs q, a query of events by the ids of a JSON list, and
// returns them by id.
func (s *Store) eventsByID(ctx context.Context, q string, ids []string) (map[string]domain.Event, error) {
	list, err := toJSON(ids)
	if err != nil {
		return nil, err
	}
	var rows []eventRow
	if err := s.selectAll(ctx, &rows, q, map[string]any{"ids": list}); err != nil {
		return nil, err
	}
	out := make(map[string]domain.Event, len(rows))
	for _, r := range rows {
		if out[r.ID], err = r.toDomain(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// endpointsByID runs q, a query of endpoints by the ids of a JSON list,
// and returns them, with their subscriptions and secrets, by id.
func (s *Store) endpointsByID(ctx context.Context, q string, ids []string) (map[string]domain.WebhookEndpoint, error) {
	list, err := toJSON(ids)
	if err != nil {
		return nil, err
	}
	var rows []endpointRow
	if err := s.selectAll(ctx, &rows, q, map[string]any{"ids": list}); err != nil {
		return nil, err
	}
	es, err := s.withParts(ctx, rows)
	if err != nil {
		return nil, err
	}
	out := make(map[string]domain.WebhookEndpoint, len(es))
	for _, e := range es {
		out[string(e.ID)] = e
	}
	return out, nil
}

// errAttemptState refuses an attempt record without a state to move the
// delivery to.
var errAttemptState = errors.New("sqlstore: an attempt record needs a state, and a retry time when pending")

// RecordAttempt records one attempt in one transaction. The endpoint is
// read first, without a lock; only when endpoint would change it is it
// read again locked for update and the function run again: attempts of
// one endpoint do not wait for each other while nothing changes it, and an
// endpoint is always locked before its deliveries, as UpdateEndpoint
// locks it. Then the delivery is updated if it is still leased to the
// record's owner for its attempt, the attempt is stored, a retry pushes
// the later deliveries of its subject back to its retry time, and the
// endpoint's change is stored.
func (s *Store) RecordAttempt(ctx context.Context, r ports.AttemptRecord, endpoint func(*domain.WebhookEndpoint) error) (domain.WebhookEndpoint, error) {
	if !validAttempt(r) {
		return domain.WebhookEndpoint{}, errAttemptState
	}
	var after domain.WebhookEndpoint
	err := s.inTx(ctx, func(ctx context.Context, ts *Store) error {
		var err error
		after, err = ts.recordAttempt(ctx, r, endpoint, nil)
		return err
	})
	if err != nil {
		return domain.WebhookEndpoint{}, err
	}
	return after, nil
}

// validAttempt reports whether r has a state, and a retry time when
// pending.
func validAttempt(r ports.AttemptRecord) bool {
	return !r.State.IsZero() && (r.State != domain.DeliveryPending || !r.RetryAt.IsZero())
}

// RecordAttempts records recs in one transaction, each as RecordAttempt
// does, reading each endpoint once for the batch: the records of one
// endpoint see it as the records before them left it.
func (s *Store) RecordAttempts(ctx context.Context, recs []ports.AttemptRecord, endpoint func(ports.AttemptRecord, *domain.WebhookEndpoint) error) ([]ports.AttemptOutcome, error) {
	if len(recs) == 0 {
		return nil, nil
	}
	var out []ports.AttemptOutcome
	err := s.inTx(ctx, func(ctx context.Context, ts *Store) error {
		out = make([]ports.AttemptOutcome, len(recs))
		seen := map[domain.WebhookEndpointID]*batchEndpoint{}
		for i, r := range recs {
			if !validAttempt(r) {
				out[i].Err = errAttemptState
				continue
			}
			var fn func(*domain.WebhookEndpoint) error
			if endpoint != nil {
				fn = func(e *domain.WebhookEndpoint) error { return endpoint(r, e) }
			}
			after, err := ts.recordAttempt(ctx, r, fn, seen)
			switch {
			case errors.Is(err, ports.ErrDeliveryLeaseLost):
				out[i].Err = err
			case err != nil:
				return err
			default:
				out[i].Endpoint = after
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// batchEndpoint is an endpoint as a batch of records has left it so far,
// and whether the batch's transaction holds its row's lock.
type batchEndpoint struct {
	e      domain.WebhookEndpoint
	locked bool
}

// recordAttempt records r in ts's transaction (see RecordAttempt). seen,
// when not nil, keeps the endpoints read and changed so far by a batch's
// records, which then need not read them again. A lost lease changes
// nothing.
func (ts *Store) recordAttempt(ctx context.Context, r ports.AttemptRecord, endpoint func(*domain.WebhookEndpoint) error, seen map[domain.WebhookEndpointID]*batchEndpoint) (domain.WebhookEndpoint, error) {
	const qEndpoint = `SELECT ` + endpointColumns + ` FROM webhook_endpoints WHERE id = :id`
	const qFence = `UPDATE event_deliveries
SET state = :state, next_attempt_at = :next_attempt_at, lease_owner = NULL, lease_until = NULL, updated_at = :updated_at
WHERE event_id = :event_id AND endpoint_id = :endpoint_id AND lease_owner = :owner AND attempts = :attempt
RETURNING subject, event_order`
	const qAttempt = `INSERT INTO event_attempts (event_id, endpoint_id, attempted_at, status, duration_us, error, response_head)
VALUES (:event_id, :endpoint_id, :attempted_at, :status, :duration_us, :error, :response_head)`
	const qPushBack = `UPDATE event_deliveries SET next_attempt_at = :retry_at
WHERE endpoint_id = :endpoint_id AND subject = :subject AND state NOT IN ('succeeded', 'given_up') AND event_order > :event_order
  AND next_attempt_at < :retry_at`
	pending := r.State == domain.DeliveryPending
	var next *time.Time
	if pending {
		next = &r.RetryAt
	}
	id := map[string]any{"id": string(r.Endpoint)}
	known := seen[r.Endpoint]
	var old domain.WebhookEndpoint
	if known != nil {
		old = known.e
	} else {
		var err error
		old, err = ts.getEndpoint(ctx, "record attempt", qEndpoint, id)
		if errors.Is(err, domain.ErrWebhookEndpointNotFound) {
			return domain.WebhookEndpoint{}, ports.ErrDeliveryLeaseLost
		}
		if err != nil {
			return domain.WebhookEndpoint{}, err
		}
		known = &batchEndpoint{e: old}
	}
	after := old
	if endpoint != nil {
		var err error
		if after, err = applyEndpoint(old, endpoint); err != nil {
			return domain.WebhookEndpoint{}, err
		}
		if !sameEndpoint(old, after) && !known.locked {
			if old, err = ts.getEndpoint(ctx, "record attempt", qEndpoint+ts.d.lockRows(), id); err != nil {
				return domain.WebhookEndpoint{}, err
			}
			if after, err = applyEndpoint(old, endpoint); err != nil {
				return domain.WebhookEndpoint{}, err
			}
			known = &batchEndpoint{e: old, locked: true}
		}
	}
	var fenced struct {
		Subject    string `db:"subject"`
		EventOrder int64  `db:"event_order"`
	}
	err := ts.get(ctx, &fenced, qFence, map[string]any{
		"state": r.State.String(), "next_attempt_at": newNullTime(next), "updated_at": newDBTime(r.At.Add(r.Duration)),
		"event_id": string(r.Event), "endpoint_id": string(r.Endpoint), "owner": r.Owner, "attempt": r.Attempt,
	})
	if errors.Is(err, sql.ErrNoRows) {
		if seen != nil {
			seen[r.Endpoint] = known // as read: this record changed nothing
		}
		return domain.WebhookEndpoint{}, ports.ErrDeliveryLeaseLost
	}
	if err != nil {
		return domain.WebhookEndpoint{}, ts.fail("record attempt", err, nil)
	}
	if _, err := ts.exec(ctx, qAttempt, toAttemptRow(r.DeliveryAttempt)); err != nil {
		return domain.WebhookEndpoint{}, ts.fail("record attempt", err, nil)
	}
	if pending && fenced.Subject != "" {
		// Its one statement that could read more than the rows it
		// names; a success reads and writes by primary key only.
		if err := ts.plan(ctx, ts.d.indexPlan()); err != nil {
			return domain.WebhookEndpoint{}, ts.fail("record attempt", err, nil)
		}
		if _, err := ts.exec(ctx, qPushBack, map[string]any{"endpoint_id": string(r.Endpoint), "subject": fenced.Subject,
			"event_order": fenced.EventOrder, "retry_at": newDBTime(r.RetryAt)}); err != nil {
			return domain.WebhookEndpoint{}, ts.fail("record attempt", err, nil)
		}
	}
	if !sameEndpoint(old, after) {
		if err := ts.storeEndpoint(ctx, old, after); err != nil {
			return domain.WebhookEndpoint{}, err
		}
	}
	if seen != nil {
		seen[r.Endpoint] = &batchEndpoint{e: after, locked: known.locked}
	}
	return after, nil
}

type attemptRow struct {
	EventID      string `db:"event_id"`
	EndpointID   string `db:"endpoint_id"`
	AttemptedAt  dbTime `db:"attempted_at"`
	Status       int    `db:"status"`
	DurationUS   int64  `db:"duration_us"`
	Error        string `db:"error"`
	ResponseHead []byte `db:"response_head"`
}

const attemptColumns = `event_id, endpoint_id, attempted_at, status, duration_us, error, response_head`

func toAttemptRow(a domain.DeliveryAttempt) attemptRow {
	head := a.ResponseHead[:min(len(a.ResponseHead), domain.MaxResponseHead)]
	if head == nil {
		head = []byte{} // the column is NOT NULL
	}
	return attemptRow{
		EventID: string(a.Event), EndpointID: string(a.Endpoint), AttemptedAt: newDBTime(a.At), Status: a.Status,
		DurationUS: a.Duration.Microseconds(), Error: a.Error, ResponseHead: head,
	}
}

func (r attemptRow) toDomain() domain.DeliveryAttempt {
	a := domain.DeliveryAttempt{
		Event: domain.EventID(r.EventID), Endpoint: domain.WebhookEndpointID(r.EndpointID), At: r.AttemptedAt.time(),
		Status: r.Status, Duration: time.Duration(r.DurationUS) * time.Microsecond, Error: r.Error,
	}
	if len(r.ResponseHead) > 0 {
		a.ResponseHead = r.ResponseHead
	}
	return a
}

type deliveryRow struct {
	EventID       string   `db:"event_id"`
	EndpointID    string   `db:"endpoint_id"`
	State         string   `db:"state"`
	NextAttemptAt nullTime `db:"next_attempt_at"`
	UpdatedAt     dbTime   `db:"updated_at"`
}

// ListDeliveries returns one event's deliveries by endpoint id, each with
// its attempts.
func (s *Store) ListDeliveries(ctx context.Context, ws domain.WorkspaceID, mode domain.KeyMode, id domain.EventID) ([]domain.EventDelivery, error) {
	const qDeliveries = `SELECT event_id, endpoint_id, state, next_attempt_at, updated_at FROM event_deliveries
WHERE event_id = :id
ORDER BY endpoint_id`
	const qAttempts = `SELECT ` + attemptColumns + ` FROM event_attempts
WHERE event_id = :id
ORDER BY endpoint_id, attempted_at, appended`
	if _, err := s.GetEvent(ctx, ws, mode, id); err != nil {
		return nil, err
	}
	var rows []deliveryRow
	if err := s.selectAll(ctx, &rows, qDeliveries, map[string]any{"id": string(id)}); err != nil {
		return nil, s.fail("list deliveries", err, nil)
	}
	var attempts []attemptRow
	if err := s.selectAll(ctx, &attempts, qAttempts, map[string]any{"id": string(id)}); err != nil {
		return nil, s.fail("list deliveries", err, nil)
	}
	byEndpoint := map[string][]domain.DeliveryAttempt{}
	for _, a := range attempts {
		byEndpoint[a.EndpointID] = append(byEndpoint[a.EndpointID], a.toDomain())
	}
	out := make([]domain.EventDelivery, 0, len(rows))
	for _, r := range rows {
		state, err := parseStored("delivery state", r.State, domain.ParseDeliveryState)
		if err != nil {
			return nil, s.fail("list deliveries", err, nil)
		}
		d := domain.EventDelivery{Event: domain.EventID(r.EventID), Endpoint: domain.WebhookEndpointID(r.EndpointID),
			State: state, Attempts: byEndpoint[r.EndpointID], UpdatedAt: r.UpdatedAt.time()}
		if state == domain.DeliveryPending {
			d.NextAttemptAt = r.NextAttemptAt.ptr()
		}
		out = append(out, d)
	}
	return out, nil
}

// ListEndpointAttempts returns an endpoint's latest attempts, newest first,
// from event_attempts_endpoint.
func (s *Store) ListEndpointAttempts(ctx context.Context, ws domain.WorkspaceID, mode domain.KeyMode, id domain.WebhookEndpointID, limit int) ([]domain.DeliveryAttempt, error) {
	const qEndpoint = `SELECT id FROM webhook_endpoints WHERE id = :id AND workspace_id = :ws AND (:mode = '' OR mode = :mode)`
	const q = `SELECT ` + attemptColumns + ` FROM event_attempts
WHERE endpoint_id = :id
ORDER BY attempted_at DESC, appended DESC
LIMIT :limit`
	if limit <= 0 {
		limit = ports.DefaultEventLimit
	}
	var found string
	if err := s.get(ctx, &found, qEndpoint, map[string]any{"id": string(id), "ws": string(ws), "mode": mode.String()}); err != nil {
		return nil, s.fail("list endpoint attempts", err, domain.ErrWebhookEndpointNotFound)
	}
	var rows []attemptRow
	if err := s.selectAll(ctx, &rows, q, map[string]any{"id": string(id), "limit": limit}); err != nil {
		return nil, s.fail("list endpoint attempts", err, nil)
	}
	out := make([]domain.DeliveryAttempt, len(rows))
	for i, r := range rows {
		out[i] = r.toDomain()
	}
	return out, nil
}

// Redeliver makes the event's deliveries to its targets pending again, or
// appends them: the named endpoint, the enabled endpoints that subscribe
// to its type, or, for a test event, the endpoints it was sent to. The
// event and each target are read FOR SHARE on PostgreSQL: a purge cannot
// take the event meanwhile, and a target's status decides the due time as
// it stays until the transaction ends.
func (s *Store) Redeliver(ctx context.Context, ws domain.WorkspaceID, mode domain.KeyMode, id domain.EventID, endpoint domain.WebhookEndpointID, now time.Time) (int, error) {
	qSubscribed := `SELECT w.id, w.workspace_id, w.mode, w.status FROM webhook_endpoints w
WHERE w.workspace_id = :ws AND w.mode = :mode AND w.status = 'enabled'
  AND EXISTS (SELECT 1 FROM webhook_endpoint_events t WHERE t.endpoint_id = w.id AND t.type IN (:type, '*'))
ORDER BY w.id` + s.d.shareRows("w")
	qSentTo := `SELECT w.id, w.workspace_id, w.mode, w.status FROM webhook_endpoints w
WHERE EXISTS (SELECT 1 FROM event_deliveries d WHERE d.event_id = :event AND d.endpoint_id = w.id)
ORDER BY w.id` + s.d.shareRows("w")
	n := 0
	err := s.inTx(ctx, func(ctx context.Context, ts *Store) error {
		if err := ts.plan(ctx, ts.d.indexPlan()); err != nil {
			return ts.fail("redeliver", err, nil)
		}
		e, err := ts.getEvent(ctx, ws, mode, id, ts.d.shareRows("events"))
		if err != nil {
			return err
		}
		var targets []endpointStatusRow
		switch {
		case endpoint != "":
			w, err := ts.lockEndpointStatus(ctx, e.Workspace, e.Mode, endpoint)
			if err != nil {
				return ts.fail("redeliver", err, domain.ErrWebhookEndpointNotFound)
			}
			targets = append(targets, w)
		case e.Type == domain.EventWebhookTest:
			err = ts.selectAll(ctx, &targets, qSentTo, map[string]any{"event": string(e.ID)})
		default:
			err = ts.selectAll(ctx, &targets, qSubscribed,
				map[string]any{"ws": string(e.Workspace), "mode": e.Mode.String(), "type": e.Type.String()})
		}
		if err != nil {
			return ts.fail("redeliver", err, nil)
		}
		for _, w := range targets {
			made, err := ts.deliverAgain(ctx, e.ID, w, now)
			if err != nil {
				return ts.fail("redeliver", err, nil)
			}
			if made {
				n++
			}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return n, nil
}

// deliverAgain makes the event's delivery to w pending in a new series,
// due at now (without a due time while w is disabled), unless it is
// pending already, or appends it; it reports whether it did either.
func (s *Store) deliverAgain(ctx context.Context, event domain.EventID, w endpointStatusRow, now time.Time) (bool, error) {
	const qReset = `UPDATE event_deliveries
SET state = 'pending', attempts = 0, next_attempt_at = :due, lease_owner = NULL, lease_until = NULL, updated_at = :now
WHERE event_id = :event AND endpoint_id = :endpoint AND state <> 'pending'`
	const qAppend = `INSERT INTO event_deliveries (event_id, endpoint_id, subject, event_order, state, attempts, next_attempt_at, updated_at)
SELECT e.id, :endpoint, e.subject, e.appended, 'pending', 0, :due, :now
FROM events e WHERE e.id = :event
ON CONFLICT (event_id, endpoint_id) DO NOTHING`
	arg := map[string]any{"event": string(event), "endpoint": w.ID, "due": newNullTime(dueIfEnabled(w, now)), "now": newDBTime(now)}
	if reset, err := s.execOne(ctx, qReset, arg); err != nil || reset {
		return reset, err
	}
	return s.execOne(ctx, qAppend, arg)
}

// dueIfEnabled is now for an enabled endpoint's delivery, nil (no due
// time) for a disabled one's.
func dueIfEnabled(w endpointStatusRow, now time.Time) *time.Time {
	if w.Status != domain.EndpointEnabled.String() {
		return nil
	}
	return &now
}

// Recover makes the endpoint's given-up deliveries of events since a time
// pending again and appends those it never had, in one transaction with
// the endpoint, and the events it appends, read FOR SHARE on PostgreSQL.
func (s *Store) Recover(ctx context.Context, ws domain.WorkspaceID, mode domain.KeyMode, id domain.WebhookEndpointID, since, now time.Time) (int, error) {
	const qReset = `UPDATE event_deliveries
SET state = 'pending', attempts = 0, next_attempt_at = :due, lease_owner = NULL, lease_until = NULL, updated_at = :now
WHERE endpoint_id = :endpoint AND state = 'given_up'
  AND EXISTS (SELECT 1 FROM events e WHERE e.id = event_deliveries.event_id AND e.occurred_at >= :since)`
	qAppend := `INSERT INTO event_deliveries (event_id, endpoint_id, subject, event_order, state, attempts, next_attempt_at, updated_at)
SELECT e.id, :endpoint, e.subject, e.appended, 'pending', 0, :due, :now
FROM events e
WHERE e.workspace_id = :ws AND e.mode = :mode AND e.occurred_at >= :since AND e.type <> 'webhook.test'
  AND EXISTS (SELECT 1 FROM webhook_endpoint_events t WHERE t.endpoint_id = :endpoint AND t.type IN (e.type, '*'))
  AND NOT EXISTS (SELECT 1 FROM event_deliveries d WHERE d.event_id = e.id AND d.endpoint_id = :endpoint)`
	qAppend += s.d.shareRows("e")
	var n int64
	err := s.inTx(ctx, func(ctx context.Context, ts *Store) error {
		if err := ts.plan(ctx, ts.d.indexPlan()); err != nil {
			return ts.fail("recover", err, nil)
		}
		w, err := ts.lockEndpointStatus(ctx, ws, mode, id)
		if err != nil {
			return ts.fail("recover", err, domain.ErrWebhookEndpointNotFound)
		}
		arg := map[string]any{"endpoint": w.ID, "ws": w.WorkspaceID, "mode": w.Mode, "since": newDBTime(since),
			"now": newDBTime(now), "due": newNullTime(dueIfEnabled(w, now))}
		for _, q := range []string{qReset, qAppend} {
			res, err := ts.exec(ctx, q, arg)
			if err != nil {
				return ts.fail("recover", err, nil)
			}
			k, err := res.RowsAffected()
			if err != nil {
				return ts.fail("recover", err, nil)
			}
			n += k
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return int(n), nil
}

// plan runs the dialect's statements (indexPlan, sequencerLock) that are
// not empty, at the start of the outbox's own transactions.
func (s *Store) plan(ctx context.Context, statements ...string) error {
	for _, q := range statements {
		if q == "" {
			continue
		}
		if _, err := s.ext.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return nil
}
