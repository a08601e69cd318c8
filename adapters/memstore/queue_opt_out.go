package memstore

import (
	"context"
	"slices"
	"time"

	"github.com/heraldhq/herald/domain"
)

// FailQueuedMessages fails, with c.OptOutFailure for its campaign's
// category, each message of c's thread (of c's workspace and mode) that is
// still in the queue and not under a live lease, and takes it out of the
// queue. Like sqlstore, it finds c's messages through their outbound
// entries.
func (r *repos) FailQueuedMessages(ctx context.Context, c domain.Contact, now time.Time) ([]domain.MessageID, error) {
	defer r.enter(ctx)()
	now = utc(now)
	var failed []domain.MessageID
	for _, e := range r.st.entries {
		if e.Workspace != c.Workspace || e.ContactID != c.ID || e.MessageID == "" {
			continue
		}
		id := e.MessageID
		q, queued := r.st.queue[id]
		old, ok := r.st.messages[id]
		if !queued || !ok || old.Workspace != c.Workspace || old.ContactID != c.ID || old.Mode != c.Mode ||
			old.Status != domain.StatusQueued && old.Status != domain.StatusSending ||
			q.leased && q.leaseUntil.After(now) {
			continue
		}
		f := c.OptOutState().SessionFailure()
		if !old.IsSession() {
			f = c.OptOutFailure(r.st.campaigns[old.CampaignID].Category)
		}
		if f == nil {
			continue
		}
		m := copyMessage(old)
		m.Advance(domain.StatusFailed, now, f)
		r.st.saveMessage(old, m)
		del(r.st, r.st.queue, id)
		failed = append(failed, id)
	}
	slices.Sort(failed)
	return failed, nil
}

// GetOptOutState returns one of the workspace's contacts' opt-out flags.
func (r *repos) GetOptOutState(ctx context.Context, ws domain.WorkspaceID, id domain.ContactID) (domain.OptOutState, error) {
	defer r.enter(ctx)()
	c, ok := r.st.contacts[id]
	if !ok || c.Workspace != ws {
		return domain.OptOutState{}, domain.NotFound(domain.ErrContactNotFound)
	}
	return c.OptOutState(), nil
}
