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
	err := s.inTx(ctx, func(ts *Store) error {
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

// ReleaseMessage ends owner's lease on a message: with retryAt nil it is no
// longer due, otherwise it is due again at retryAt. A release by anyone but
// the lease holder, or of an unknown message, changes nothing.
func (s *Store) ReleaseMessage(ctx context.Context, id domain.MessageID, owner string, retryAt *time.Time) error {
	const q = `UPDATE messages SET due_at = :due_at, lease_owner = NULL, lease_until = NULL
WHERE id = :id AND lease_owner = :owner`
	_, err := s.exec(ctx, q, map[string]any{"id": string(id), "owner": owner, "due_at": newNullTime(retryAt)})
	return s.fail("release message", err, nil)
}
