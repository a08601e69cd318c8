package memstore

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// queueItem is a message's place in the queue.
type queueItem struct {
	due        time.Time
	leased     bool
	owner      string
	leaseUntil time.Time
	attempts   int
}

// ClaimMessages leases up to c.Limit due messages, oldest due first (then by
// id), and moves them to sending.
func (r *repos) ClaimMessages(ctx context.Context, c ports.Claim) ([]ports.Claimed, error) {
	defer r.enter(ctx)()
	now := utc(c.Now)
	var due []domain.MessageID
	for id, q := range r.st.queue {
		if !q.due.After(now) && (!q.leased || !q.leaseUntil.After(now)) {
			due = append(due, id)
		}
	}
	slices.SortFunc(due, func(a, b domain.MessageID) int {
		if c := r.st.queue[a].due.Compare(r.st.queue[b].due); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	var out []ports.Claimed
	for _, id := range due[:min(len(due), max(c.Limit, 0))] {
		q := r.st.queue[id]
		q.attempts++
		q.leased, q.owner, q.leaseUntil = true, c.Owner, utc(c.LeaseUntil)
		put(r.st, r.st.queue, id, q)
		old := r.st.messages[id]
		m := copyMessage(old)
		m.Advance(domain.StatusSending, now, nil)
		r.st.saveMessage(old, m)
		out = append(out, ports.Claimed{Message: copyMessage(m), Attempt: q.attempts})
	}
	return out, nil
}

// ReleaseMessage ends the lease owner took for attempt: for good when
// retryAt is nil, otherwise until retryAt. A lease that owner no longer holds
// for that attempt is ports.ErrLeaseLost, and nothing changes.
func (r *repos) ReleaseMessage(ctx context.Context, id domain.MessageID, owner string, attempt int, retryAt *time.Time) error {
	defer r.enter(ctx)()
	q, ok := r.st.queue[id]
	if !ok || !q.leased || q.owner != owner || q.attempts != attempt {
		return ports.ErrLeaseLost
	}
	if retryAt == nil {
		del(r.st, r.st.queue, id)
		return nil
	}
	q.leased, q.owner, q.leaseUntil = false, "", time.Time{}
	q.due = utc(*retryAt)
	put(r.st, r.st.queue, id, q)
	return nil
}

// RenewLeases moves owner's leases on ids to until.
func (r *repos) RenewLeases(ctx context.Context, owner string, ids []domain.MessageID, until time.Time) error {
	defer r.enter(ctx)()
	for _, id := range ids {
		if q, ok := r.st.queue[id]; ok && q.leased && q.owner == owner {
			q.leaseUntil = utc(until)
			put(r.st, r.st.queue, id, q)
		}
	}
	return nil
}

// QueueStats counts the messages waiting to be sent (queued or sending,
// with a due time) and finds the earliest due time among them.
func (r *repos) QueueStats(ctx context.Context) (ports.QueueStats, error) {
	defer r.enter(ctx)()
	var s ports.QueueStats
	for id, q := range r.st.queue {
		m, ok := r.st.messages[id]
		if !ok || (m.Status != domain.StatusQueued && m.Status != domain.StatusSending) {
			continue
		}
		s.Depth++
		if s.OldestDue.IsZero() || q.due.Before(s.OldestDue) {
			s.OldestDue = q.due
		}
	}
	return s, nil
}
