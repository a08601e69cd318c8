package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// Events to the customer's systems: the outbox (decision 0020). Events are
// appended in the transaction of the change they report, with one delivery
// per subscribed endpoint (deliveries.go); the sequencer gives them their
// place in the pull API after commit.

type eventRow struct {
	ID          string        `db:"id"`
	WorkspaceID string        `db:"workspace_id"`
	Mode        string        `db:"mode"`
	Type        string        `db:"type"`
	Subject     string        `db:"subject"`
	OccurredAt  dbTime        `db:"occurred_at"`
	Body        []byte        `db:"body"`
	Seq         sql.NullInt64 `db:"seq"`
}

const eventColumns = `id, workspace_id, mode, type, subject, occurred_at, body, seq`

func toEventRow(e domain.Event) eventRow {
	body := e.Body
	if body == nil {
		body = []byte{} // the column is NOT NULL
	}
	return eventRow{
		ID: string(e.ID), WorkspaceID: string(e.Workspace), Mode: e.Mode.String(), Type: e.Type.String(),
		Subject: e.Subject, OccurredAt: newDBTime(e.OccurredAt), Body: body,
	}
}

func (r eventRow) toDomain() (domain.Event, error) {
	mode, err := parseStored("event mode", r.Mode, domain.ParseKeyMode)
	if err != nil {
		return domain.Event{}, err
	}
	typ, err := parseStored("event type", r.Type, domain.ParseEventType)
	if err != nil {
		return domain.Event{}, err
	}
	return domain.Event{
		ID: domain.EventID(r.ID), Workspace: domain.WorkspaceID(r.WorkspaceID), Mode: mode, Type: typ,
		Subject: r.Subject, OccurredAt: r.OccurredAt.time(), Body: r.Body, Seq: r.Seq.Int64,
	}, nil
}

func toEvents(rows []eventRow) ([]domain.Event, error) {
	out := make([]domain.Event, 0, len(rows))
	for _, r := range rows {
		e, err := r.toDomain()
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// errTestEventByType refuses webhook.test events in AppendEvents: they go to
// one endpoint, by AppendEventTo.
var errTestEventByType = errors.New("sqlstore: webhook.test events are appended to one endpoint (AppendEventTo)")

// fanOutRow is what the fan-out of one appended event needs.
type fanOutRow struct {
	eventRow
	Appended int64 `db:"appended"`
}

// AppendEvents stores es and, in the same transaction, each event's
// pending deliveries to the enabled endpoints of its workspace and mode
// that subscribe to its type. A delivery's order is its event's appended;
// it is due at the event's time, or later when an earlier delivery of the
// same subject to the endpoint is pending and due later. The fan-out reads
// the endpoints, their subscriptions and the subject's pending deliveries
// ("pending" written as deliveries.go's note on ClaimDeliveries says), each
// through its index whatever PostgreSQL's statistics say, and reads the
// endpoints FOR SHARE on PostgreSQL: an endpoint being disabled or deleted
// at the same moment is waited for, then skipped.
//
// One event takes two statements: one inserts it and returns its
// appended, one fans it out. Several events take one fan-out in all
// (appendEventsTogether).
func (s *Store) AppendEvents(ctx context.Context, es ...domain.Event) error {
	const qInsert = `INSERT INTO events (id, workspace_id, mode, type, subject, occurred_at, body)
VALUES (:id, :workspace_id, :mode, :type, :subject, :occurred_at, :body)
RETURNING appended`
	qFanOut := `INSERT INTO event_deliveries (event_id, endpoint_id, subject, event_order, state, attempts, next_attempt_at, updated_at)
SELECT :id, w.id, :subject, :appended, 'pending', 0,
    ` + deliveryDue(":subject", ":appended", ":occurred_at") + `,
    :occurred_at
FROM webhook_endpoints w
WHERE w.workspace_id = :workspace_id AND w.mode = :mode AND w.status = 'enabled'
  AND EXISTS (SELECT 1 FROM webhook_endpoint_events t WHERE t.endpoint_id = w.id AND t.type IN (:type, '*'))` +
		s.d.shareRows("w")
	for _, e := range es {
		if e.Type == domain.EventWebhookTest {
			return errTestEventByType
		}
	}
	if len(es) == 0 {
		return nil
	}
	return s.inTx(ctx, func(ctx context.Context, ts *Store) error {
		if len(es) > 1 {
			return ts.appendEventsTogether(ctx, es)
		}
		for _, e := range es {
			row := fanOutRow{eventRow: toEventRow(e)}
			if err := ts.get(ctx, &row.Appended, qInsert, row.eventRow); err != nil {
				return ts.fail("append events", err, nil)
			}
			if _, err := ts.exec(ctx, qFanOut, row); err != nil {
				return ts.fail("append events: deliveries", err, nil)
			}
		}
		return nil
	})
}

// deliveryDue is when a new delivery to endpoint w of an event of subject,
// appended at order and occurred at occurred, is due: at occurred, or
// later when an earlier delivery of the same non-empty subject to w is
// pending and due later.
func deliveryDue(subject, order, occurred string) string {
	return `coalesce((SELECT max(p.next_attempt_at) FROM event_deliveries p
              WHERE p.endpoint_id = w.id AND p.subject = ` + subject + ` AND p.subject <> '' AND p.state NOT IN ('succeeded', 'given_up')
                AND p.event_order < ` + order + ` AND p.next_attempt_at > ` + occurred + `), ` + occurred + `)`
}

// appendEventsTogether appends es with one fan-out, where AppendEvents
// takes one per event: the events are inserted in es's order (on
// PostgreSQL in one statement, a VALUES list inserted, and its identity
// given, row by row; on SQLite by the prepared one-row statement each),
// then one statement fans them all out from the rows just inserted. A
// webhook group appends an event for each status it applies, so on
// PostgreSQL this is two statements a group where there were two a
// status. On SQLite the fan-out of a group's events was two fifths of the
// group's transaction (docs/benchmarks.md).
//
// The fan-out reads the subject's pending deliveries as they were before
// it, as AppendEvents does per event: a later event of es never waits for
// an earlier event's new delivery, which is due at the earlier event's
// time or at a time that stored deliveries set, and those set the later
// event's the same way.
func (s *Store) appendEventsTogether(ctx context.Context, es []domain.Event) error {
	const qInsert = `INSERT INTO events (id, workspace_id, mode, type, subject, occurred_at, body)
VALUES (:id, :workspace_id, :mode, :type, :subject, :occurred_at, :body)`
	qFanOut := `INSERT INTO event_deliveries (event_id, endpoint_id, subject, event_order, state, attempts, next_attempt_at, updated_at)
SELECT e.id, w.id, e.subject, e.appended, 'pending', 0,
    ` + deliveryDue("e.subject", "e.appended", "e.occurred_at") + `,
    e.occurred_at
FROM events e
JOIN webhook_endpoints w ON w.workspace_id = e.workspace_id AND w.mode = e.mode AND w.status = 'enabled'
WHERE ` + s.d.inList("e.id", "ids") + `
  AND EXISTS (SELECT 1 FROM webhook_endpoint_events t WHERE t.endpoint_id = w.id AND t.type IN (e.type, '*'))` +
		s.d.shareRows("w")
	rows := make([]eventRow, len(es))
	ids := make([]string, len(es))
	for i, e := range es {
		rows[i], ids[i] = toEventRow(e), string(e.ID)
	}
	if _, err := execRows(ctx, s, qInsert, rows); err != nil {
		return s.fail("append events", err, nil)
	}
	list, err := toJSON(ids)
	if err != nil {
		return err
	}
	_, err = s.execPlanned(ctx, qFanOut, map[string]any{"ids": list})
	return s.fail("append events: deliveries", err, nil)
}

// AppendEventTo stores e with one pending delivery, to the endpoint, which
// must be of e's workspace and mode; it is read FOR SHARE on PostgreSQL, so
// that its status decides the delivery's due time and it cannot go away
// meanwhile.
func (s *Store) AppendEventTo(ctx context.Context, e domain.Event, endpoint domain.WebhookEndpointID) error {
	const qInsert = `INSERT INTO events (id, workspace_id, mode, type, subject, occurred_at, body)
VALUES (:id, :workspace_id, :mode, :type, :subject, :occurred_at, :body)`
	const qDeliver = `INSERT INTO event_deliveries (event_id, endpoint_id, subject, event_order, state, attempts, next_attempt_at, updated_at)
SELECT e.id, :endpoint, e.subject, e.appended, 'pending', 0, :due, e.occurred_at
FROM events e WHERE e.id = :event`
	return s.inTx(ctx, func(ctx context.Context, ts *Store) error {
		w, err := ts.lockEndpointStatus(ctx, e.Workspace, e.Mode, endpoint)
		if err != nil {
			return ts.fail("append event", err, domain.ErrWebhookEndpointNotFound)
		}
		if _, err := ts.exec(ctx, qInsert, toEventRow(e)); err != nil {
			return ts.fail("append event", err, nil)
		}
		var due *time.Time
		if w.Status == domain.EndpointEnabled.String() {
			due = &e.OccurredAt
		}
		_, err = ts.exec(ctx, qDeliver, map[string]any{"event": string(e.ID), "endpoint": string(endpoint), "due": newNullTime(due)})
		return ts.fail("append event: delivery", err, nil)
	})
}

// GetEvent returns one of the workspace's events of mode (any mode for the
// zero mode).
func (s *Store) GetEvent(ctx context.Context, ws domain.WorkspaceID, mode domain.KeyMode, id domain.EventID) (domain.Event, error) {
	return s.getEvent(ctx, ws, mode, id, "")
}

// getEvent reads one of the workspace's events of mode, its SELECT ended
// by lock.
func (s *Store) getEvent(ctx context.Context, ws domain.WorkspaceID, mode domain.KeyMode, id domain.EventID, lock string) (domain.Event, error) {
	const q = `SELECT ` + eventColumns + ` FROM events WHERE id = :id AND workspace_id = :ws AND (:mode = '' OR mode = :mode)`
	var row eventRow
	if err := s.get(ctx, &row, q+lock, map[string]any{"id": string(id), "ws": string(ws), "mode": mode.String()}); err != nil {
		return domain.Event{}, s.fail("get event", err, domain.ErrEventNotFound)
	}
	e, err := row.toDomain()
	return e, s.fail("get event", err, nil)
}

// ListEvents returns the workspace's sequenced events of mode after
// f.AfterSeq, by seq, from events_pull. Without types every type is kept.
// The zero mode (the dashboard) has its own query, which reads the
// workspace's events of every mode.
func (s *Store) ListEvents(ctx context.Context, ws domain.WorkspaceID, mode domain.KeyMode, f ports.EventFilter) ([]domain.Event, error) {
	qMode := `SELECT ` + eventColumns + ` FROM events
WHERE workspace_id = :ws AND mode = :mode AND seq > :after AND ` + s.d.inList("type", "types") + `
ORDER BY seq
LIMIT :limit`
	qAny := `SELECT ` + eventColumns + ` FROM events
WHERE workspace_id = :ws AND seq > :after AND ` + s.d.inList("type", "types") + `
ORDER BY seq
LIMIT :limit`
	q := qMode
	if mode.IsZero() {
		q = qAny
	}
	types := f.Types
	if len(types) == 0 {
		types = domain.EventTypes()
	}
	names := make([]string, len(types))
	for i, t := range types {
		names[i] = t.String()
	}
	list, err := toJSON(names)
	if err != nil {
		return nil, err
	}
	limit := f.Limit
	if limit <= 0 {
		limit = ports.DefaultEventLimit
	}
	var rows []eventRow
	arg := map[string]any{"ws": string(ws), "mode": mode.String(), "after": f.AfterSeq, "types": list, "limit": limit}
	if err := s.selectAll(ctx, &rows, q, arg); err != nil {
		return nil, s.fail("list events", err, nil)
	}
	out, err := toEvents(rows)
	return out, s.fail("list events", err, nil)
}

// SequenceEvents gives the next seqs to up to limit unsequenced events, in
// the order they were appended, in one statement, and counts them in
// event_sequence, in one transaction that sequencers take in turns (on
// PostgreSQL after the advisory lock: the statement then sees the previous
// sequencer's commit).
func (s *Store) SequenceEvents(ctx context.Context, limit int) (int, error) {
	const qSequence = `UPDATE events SET seq = c.last_seq + next.pos
FROM (SELECT id, row_number() OVER (ORDER BY appended) AS pos FROM events
      WHERE seq IS NULL
      ORDER BY appended
      LIMIT :limit) AS next,
     event_sequence AS c
WHERE events.id = next.id`
	const qCount = `UPDATE event_sequence SET last_seq = last_seq + :n`
	if limit <= 0 {
		return 0, nil
	}
	var n int64
	err := s.inTx(ctx, func(ctx context.Context, ts *Store) error {
		if err := ts.plan(ctx, ts.d.sequencerLock(), ts.d.indexPlan()); err != nil {
			return ts.fail("sequence events", err, nil)
		}
		res, err := ts.exec(ctx, qSequence, map[string]any{"limit": limit})
		if err != nil {
			return ts.fail("sequence events", err, nil)
		}
		if n, err = res.RowsAffected(); err != nil || n == 0 {
			return ts.fail("sequence events", err, nil)
		}
		_, err = ts.exec(ctx, qCount, map[string]any{"n": n})
		return ts.fail("sequence events", err, nil)
	})
	if err != nil {
		return 0, err
	}
	return int(n), nil
}

// PurgeEvents takes up to limit events older than before, oldest first
// (on PostgreSQL skipping those a concurrent purge holds), and deletes
// their attempts, deliveries and themselves, in one transaction.
func (s *Store) PurgeEvents(ctx context.Context, before time.Time, limit int) (int, error) {
	qPick := `SELECT id FROM events WHERE occurred_at < :before ORDER BY occurred_at LIMIT :limit` + s.d.claimLock()
	qAttempts := `DELETE FROM event_attempts WHERE ` + s.d.inList("event_id", "ids")
	qDeliveries := `DELETE FROM event_deliveries WHERE ` + s.d.inList("event_id", "ids")
	qEvents := `DELETE FROM events WHERE ` + s.d.inList("id", "ids")
	if limit <= 0 {
		return 0, nil
	}
	var n int
	err := s.inTx(ctx, func(ctx context.Context, ts *Store) error {
		if err := ts.plan(ctx, ts.d.indexPlan()); err != nil {
			return ts.fail("purge events", err, nil)
		}
		var ids []string
		if err := ts.selectAll(ctx, &ids, qPick, map[string]any{"before": newDBTime(before), "limit": limit}); err != nil {
			return ts.fail("purge events", err, nil)
		}
		if len(ids) == 0 {
			return nil
		}
		list, err := toJSON(ids)
		if err != nil {
			return err
		}
		for _, q := range []string{qAttempts, qDeliveries, qEvents} {
			if _, err := ts.exec(ctx, q, map[string]any{"ids": list}); err != nil {
				return ts.fail("purge events", err, nil)
			}
		}
		n = len(ids)
		return nil
	})
	if err != nil {
		return 0, err
	}
	return n, nil
}
