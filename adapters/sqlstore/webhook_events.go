package sqlstore

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

type webhookEventRow struct {
	ID         string   `db:"id"`
	Body       []byte   `db:"body"`
	SHA256     string   `db:"sha256"`
	ReceivedAt dbTime   `db:"received_at"`
	AppliedAt  nullTime `db:"applied_at"`
	Attempts   int      `db:"attempts"`
	LastError  string   `db:"last_error"`
}

const webhookEventColumns = `id, body, sha256, received_at, applied_at, attempts, last_error`

func toWebhookEventRow(e domain.WebhookEvent) webhookEventRow {
	body := e.Body
	if body == nil {
		body = []byte{} // the column is NOT NULL; an empty body is still a body
	}
	return webhookEventRow{
		ID: string(e.ID), Body: body, SHA256: e.SHA256, ReceivedAt: newDBTime(e.ReceivedAt),
		AppliedAt: newNullTime(e.AppliedAt), Attempts: e.Attempts, LastError: e.LastError,
	}
}

func (r webhookEventRow) toDomain() domain.WebhookEvent {
	return domain.WebhookEvent{
		ID: domain.WebhookEventID(r.ID), Body: r.Body, SHA256: r.SHA256, ReceivedAt: r.ReceivedAt.time(),
		AppliedAt: r.AppliedAt.ptr(), Attempts: r.Attempts, LastError: r.LastError,
	}
}

// SaveWebhookEvent stores e unless an event with the same SHA-256 is stored
// already; then it returns that event and created false. The insert does
// nothing on that conflict rather than fail, so a PostgreSQL transaction it
// runs in stays usable; a duplicate id with another digest still fails.
func (s *Store) SaveWebhookEvent(ctx context.Context, e domain.WebhookEvent) (domain.WebhookEvent, bool, error) {
	const qInsert = `INSERT INTO webhook_events (` + webhookEventColumns + `)
VALUES (:id, :body, :sha256, :received_at, :applied_at, :attempts, :last_error)
ON CONFLICT (sha256) DO NOTHING`
	const qBySHA = `SELECT ` + webhookEventColumns + ` FROM webhook_events WHERE sha256 = :sha256`
	row := toWebhookEventRow(e)
	created, err := s.execOne(ctx, qInsert, row)
	if err != nil {
		return domain.WebhookEvent{}, false, s.fail("save webhook event", err, nil)
	}
	if created {
		stored := row.toDomain()
		stored.Body = append([]byte{}, stored.Body...) // the caller's slice stays the caller's
		return stored, true, nil
	}
	var stored webhookEventRow
	if err := s.get(ctx, &stored, qBySHA, map[string]any{"sha256": e.SHA256}); err != nil {
		return domain.WebhookEvent{}, false, s.fail("save webhook event", err, nil)
	}
	return stored.toDomain(), false, nil
}

// SaveWebhookEvents saves es as SaveWebhookEvent does, in one transaction.
// On PostgreSQL that is one INSERT of them all, which returns the ids it
// stored, and, when some digest was stored before, one read of those: two
// statements for a webhook group where each call took one or two. SQLite
// saves each in turn.
func (s *Store) SaveWebhookEvents(ctx context.Context, es []domain.WebhookEvent) ([]ports.SavedWebhookEvent, error) {
	const qInsert = `INSERT INTO webhook_events (` + webhookEventColumns + `)
VALUES (:id, :body, :sha256, :received_at, :applied_at, :attempts, :last_error)
ON CONFLICT (sha256) DO NOTHING
RETURNING id`
	qBySHA := `SELECT ` + webhookEventColumns + ` FROM webhook_events WHERE ` + s.d.inList("sha256", "digests")
	if len(es) == 0 {
		return nil, nil
	}
	out := make([]ports.SavedWebhookEvent, len(es))
	err := s.inTx(ctx, func(ctx context.Context, ts *Store) error {
		if !ts.d.remote() {
			for i, e := range es {
				stored, created, err := ts.SaveWebhookEvent(ctx, e)
				if err != nil {
					return err
				}
				out[i] = ports.SavedWebhookEvent{Stored: stored, Created: created}
			}
			return nil
		}
		rows := make([]webhookEventRow, len(es))
		for i, e := range es {
			rows[i] = toWebhookEventRow(e)
		}
		var ids []string
		if err := ts.selectAll(ctx, &ids, qInsert, rows); err != nil {
			return ts.fail("save webhook events", err, nil)
		}
		created := make(map[string]bool, len(ids))
		for _, id := range ids {
			created[id] = true
		}
		var earlier []string // digests stored before, or by an earlier event of es
		for i, r := range rows {
			if created[r.ID] {
				stored := r.toDomain()
				stored.Body = append([]byte{}, stored.Body...) // the caller's slice stays the caller's
				out[i] = ports.SavedWebhookEvent{Stored: stored, Created: true}
				delete(created, r.ID) // an id given twice is created once
				continue
			}
			earlier = append(earlier, r.SHA256)
		}
		if len(earlier) == 0 {
			return nil
		}
		list, err := toJSON(earlier)
		if err != nil {
			return err
		}
		var found []webhookEventRow
		if err := ts.selectAll(ctx, &found, qBySHA, map[string]any{"digests": list}); err != nil {
			return ts.fail("save webhook events", err, nil)
		}
		bySHA := make(map[string]domain.WebhookEvent, len(found))
		for _, f := range found {
			bySHA[f.SHA256] = f.toDomain()
		}
		for i, r := range rows {
			if out[i].Stored.ID != "" {
				continue
			}
			stored, ok := bySHA[r.SHA256]
			if !ok {
				return fmt.Errorf("sqlstore: webhook event %s was neither stored nor found by its digest", r.ID)
			}
			out[i] = ports.SavedWebhookEvent{Stored: stored}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// GetWebhookEvent returns one stored event.
func (s *Store) GetWebhookEvent(ctx context.Context, id domain.WebhookEventID) (domain.WebhookEvent, error) {
	const q = `SELECT ` + webhookEventColumns + ` FROM webhook_events WHERE id = :id`
	return s.getWebhookEvent(ctx, "get webhook event", q, map[string]any{"id": string(id)})
}

func (s *Store) getWebhookEvent(ctx context.Context, op, q string, arg any) (domain.WebhookEvent, error) {
	var row webhookEventRow
	if err := s.get(ctx, &row, q, arg); err != nil {
		return domain.WebhookEvent{}, s.fail(op, err, domain.ErrWebhookEventNotFound)
	}
	return row.toDomain(), nil
}

// defaultWebhookEventLimit is how many events a filter without a limit
// lists.
const defaultWebhookEventLimit = 100

// ListWebhookEvents returns up to f.Limit events matching f (100 when f sets
// no limit), smallest id first. Unapplied listings use the partial index of
// waiting events, so they have their own query.
func (s *Store) ListWebhookEvents(ctx context.Context, f ports.WebhookEventFilter) ([]domain.WebhookEvent, error) {
	const qAll = `SELECT ` + webhookEventColumns + ` FROM webhook_events
WHERE received_at >= :since AND received_at < :before AND id > :after AND attempts < :below
ORDER BY id
LIMIT :limit`
	const qUnapplied = `SELECT ` + webhookEventColumns + ` FROM webhook_events
WHERE applied_at IS NULL AND received_at >= :since AND received_at < :before AND id > :after AND attempts < :below
ORDER BY id
LIMIT :limit`
	q := qAll
	if f.Unapplied {
		q = qUnapplied
	}
	since, before := f.ReceivedSince, f.ReceivedBefore
	if since.IsZero() {
		since = time.Unix(0, 0) // nothing arrived before 1970
	}
	if before.IsZero() {
		before = time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)
	}
	limit := f.Limit
	if limit <= 0 {
		limit = defaultWebhookEventLimit
	}
	below := f.BelowAttempts
	if below <= 0 {
		below = math.MaxInt32
	}
	arg := map[string]any{"since": newDBTime(since), "before": newDBTime(before), "after": string(f.After), "limit": limit, "below": below}
	var rows []webhookEventRow
	if err := s.selectAll(ctx, &rows, q, arg); err != nil {
		return nil, s.fail("list webhook events", err, nil)
	}
	out := make([]domain.WebhookEvent, 0, len(rows))
	for _, r := range rows {
		out = append(out, r.toDomain())
	}
	return out, nil
}

// UpdateWebhookEvent runs fn on the stored event and stores its outcome
// fields (AppliedAt, Attempts, LastError), atomically. The id, body, digest
// and receipt time do not change.
func (s *Store) UpdateWebhookEvent(ctx context.Context, id domain.WebhookEventID, fn func(*domain.WebhookEvent) error) (domain.WebhookEvent, error) {
	const qGet = `SELECT ` + webhookEventColumns + ` FROM webhook_events WHERE id = :id`
	const qUpdate = `UPDATE webhook_events SET applied_at = :applied_at, attempts = :attempts, last_error = :last_error
WHERE id = :id`
	var e domain.WebhookEvent
	err := s.inTx(ctx, func(ctx context.Context, ts *Store) error {
		var err error
		if e, err = ts.getWebhookEvent(ctx, "update webhook event", qGet+ts.d.lockRows(), map[string]any{"id": string(id)}); err != nil {
			return err
		}
		stored := e
		stored.Body = append([]byte(nil), e.Body...)
		if err := fn(&e); err != nil {
			return err
		}
		e.ID, e.Body, e.SHA256, e.ReceivedAt = stored.ID, stored.Body, stored.SHA256, stored.ReceivedAt
		e.AppliedAt = utcPtr(e.AppliedAt)
		ok, err := ts.execOne(ctx, qUpdate, toWebhookEventRow(e))
		if err == nil && !ok {
			err = fmt.Errorf("webhook event %s vanished during its update", id)
		}
		return ts.fail("update webhook event", err, nil)
	})
	if err != nil {
		return domain.WebhookEvent{}, err
	}
	return e, nil
}

// utcPtr is t as the store keeps times: UTC, microseconds.
func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC().Truncate(time.Microsecond)
	return &u
}
