package sqlstore

import (
	"context"
	"time"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// claimRow is a due message with its attempt count.
type claimRow struct {
	messageRow
	Attempts int `db:"attempts"`
}

// ClaimMessages leases up to c.Limit due messages, oldest due first, in one
// transaction: on SQLite a BEGIN IMMEDIATE one, so claimers take turns; on
// PostgreSQL the due rows are locked with SKIP LOCKED, so concurrent claimers
// take different messages. Each claimed message moves to sending (recorded
// once in its history) and counts one more attempt.
//
// Only queued and sending messages are claimed: a message whose status has
// moved on (a status event arrived while a retry was pending) is not sent
// again.
func (s *Store) ClaimMessages(ctx context.Context, c ports.Claim) ([]ports.Claimed, error) {
	const qDue = `SELECT ` + messageColumns + `, attempts FROM messages
WHERE due_at IS NOT NULL AND due_at <= :now
  AND (lease_until IS NULL OR lease_until <= :now)
  AND status IN ('queued', 'sending')
ORDER BY due_at, id
LIMIT :limit`
	const qLease = `UPDATE messages
SET status = :status, history = :history, updated_at = :updated_at,
    lease_owner = :lease_owner, lease_until = :lease_until, attempts = :attempts
WHERE id = :id`
	if c.Limit <= 0 {
		return nil, nil
	}
	var claimed []ports.Claimed
	err := s.inTx(ctx, func(ctx context.Context, ts *Store) error {
		if plan := ts.d.claimPlan(); plan != "" {
			if _, err := ts.ext.ExecContext(ctx, plan); err != nil {
				return ts.fail("claim messages", err, nil)
			}
		}
		var rows []claimRow
		arg := map[string]any{"now": newDBTime(c.Now), "limit": c.Limit}
		if err := ts.selectAll(ctx, &rows, qDue+ts.d.claimLock(), arg); err != nil {
			return ts.fail("claim messages", err, nil)
		}
		claimed = make([]ports.Claimed, 0, len(rows))
		for _, r := range rows {
			m, err := r.toDomain()
			if err != nil {
				return ts.fail("claim messages", err, nil)
			}
			m.Advance(domain.StatusSending, c.Now, nil)
			row, err := toMessageRow(m)
			if err != nil {
				return ts.fail("claim messages", err, nil)
			}
			attempt := r.Attempts + 1
			if _, err := ts.exec(ctx, qLease, map[string]any{
				"id": row.ID, "status": row.Status, "history": row.History, "updated_at": row.UpdatedAt,
				"lease_owner": c.Owner, "lease_until": newDBTime(c.LeaseUntil), "attempts": attempt,
			}); err != nil {
				return ts.fail("claim messages", err, nil)
			}
			claimed = append(claimed, ports.Claimed{Message: m, Attempt: attempt})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return claimed, nil
}

// ReleaseMessage ends the lease owner took for attempt: with retryAt nil
// the message is no longer due, otherwise it is due again at retryAt. If the
// message is not leased to owner for that attempt any more, nothing changes
// and the error is ports.ErrLeaseLost.
func (s *Store) ReleaseMessage(ctx context.Context, id domain.MessageID, owner string, attempt int, retryAt *time.Time) error {
	const q = `UPDATE messages SET due_at = :due_at, lease_owner = NULL, lease_until = NULL
WHERE id = :id AND lease_owner = :owner AND attempts = :attempt`
	ok, err := s.execOne(ctx, q, map[string]any{"id": string(id), "owner": owner, "attempt": attempt, "due_at": newNullTime(retryAt)})
	if err != nil {
		return s.fail("release message", err, nil)
	}
	if !ok {
		return ports.ErrLeaseLost
	}
	return nil
}

// RenewLeases moves owner's leases on ids to until, in one transaction.
func (s *Store) RenewLeases(ctx context.Context, owner string, ids []domain.MessageID, until time.Time) error {
	const q = `UPDATE messages SET lease_until = :lease_until WHERE id = :id AND lease_owner = :owner`
	if len(ids) == 0 {
		return nil
	}
	return s.inTx(ctx, func(ctx context.Context, ts *Store) error {
		for _, id := range ids {
			if _, err := ts.exec(ctx, q, map[string]any{"id": string(id), "owner": owner, "lease_until": newDBTime(until)}); err != nil {
				return ts.fail("renew leases", err, nil)
			}
		}
		return nil
	})
}

// QueueStats counts the messages waiting to be sent and finds the earliest
// due time among them, through the queue's partial index on due_at: the
// cost grows with the queue, not with the messages table.
func (s *Store) QueueStats(ctx context.Context) (ports.QueueStats, error) {
	const q = `SELECT COUNT(*) AS depth, MIN(due_at) AS oldest FROM messages
WHERE due_at IS NOT NULL AND status IN ('queued', 'sending')`
	var row struct {
		Depth  int      `db:"depth"`
		Oldest nullTime `db:"oldest"`
	}
	if err := s.get(ctx, &row, q, map[string]any{}); err != nil {
		return ports.QueueStats{}, s.fail("queue stats", err, nil)
	}
	st := ports.QueueStats{Depth: row.Depth}
	if row.Oldest.Valid {
		st.OldestDue = row.Oldest.T.time()
	}
	return st, nil
}
