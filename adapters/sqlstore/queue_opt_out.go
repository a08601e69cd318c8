package sqlstore

import (
	"context"
	"time"

	"github.com/heraldhq/herald/domain"
)

// pendingRow is a message of a contact that has not left the queue, with
// its lease.
type pendingRow struct {
	messageRow
	LeaseUntil nullTime `db:"lease_until"`
}

// FailQueuedMessages fails, with c.OptOutFailure for its campaign's
// category, each message to c still waiting to be sent, in one transaction.
//
// The contact's messages are found through its thread
// (conversation_entries_contact: every message has its outbound entry), so
// no index of messages is added for this, and a send writes no more than
// before; a contact's thread is short next to the queue, which a big
// campaign can fill. Every one of them not yet out of the queue is locked
// (PostgreSQL), those under a live lease too, though these are left as
// they are: a dispatcher recording such a send's outcome locks the message
// before it reads the contact, so either it waits for this transaction and
// then sees the opt-out, or this one waits for it and then finds the
// message released for a retry, and fails it.
func (s *Store) FailQueuedMessages(ctx context.Context, c domain.Contact, now time.Time) ([]domain.MessageID, error) {
	const qPending = `SELECT ` + messageColumns + `, lease_until FROM messages
WHERE id IN (SELECT message_id FROM conversation_entries
             WHERE workspace_id = :workspace_id AND contact_id = :contact_id AND message_id IS NOT NULL)
  AND workspace_id = :workspace_id AND contact_id = :contact_id AND mode = :mode
  AND due_at IS NOT NULL AND status IN ('queued', 'sending')
ORDER BY id`
	const qDequeue = `UPDATE messages SET due_at = NULL, lease_owner = NULL, lease_until = NULL WHERE id = :id`
	var failed []domain.MessageID
	err := s.inTx(ctx, func(ctx context.Context, ts *Store) error {
		var rows []pendingRow
		arg := map[string]any{"workspace_id": string(c.Workspace), "contact_id": string(c.ID), "mode": c.Mode.String()}
		if err := ts.selectAll(ctx, &rows, qPending+ts.d.lockRows(), arg); err != nil {
			return ts.fail("fail queued messages", err, nil)
		}
		categories := map[domain.CampaignID]domain.TemplateCategory{}
		failed = nil
		for _, r := range rows {
			if until := r.LeaseUntil.ptr(); until != nil && until.After(now) {
				continue // a send in flight
			}
			m, err := r.toDomain()
			if err != nil {
				return ts.fail("fail queued messages", err, nil)
			}
			f := c.OptOutState().SessionFailure()
			if !m.IsSession() {
				cat, ok := categories[m.CampaignID]
				if !ok {
					camp, err := ts.GetCampaign(ctx, m.Workspace, m.CampaignID)
					if err != nil {
						return err
					}
					cat, categories[m.CampaignID] = camp.Category, camp.Category
				}
				f = c.OptOutFailure(cat)
			}
			if f == nil {
				continue
			}
			m.Advance(domain.StatusFailed, now, f)
			if err := ts.writeMessageDelivery(ctx, m); err != nil {
				return ts.fail("fail queued messages", err, nil)
			}
			if _, err := ts.exec(ctx, qDequeue, map[string]any{"id": string(m.ID)}); err != nil {
				return ts.fail("fail queued messages", err, nil)
			}
			failed = append(failed, m.ID)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return failed, nil
}

// GetOptOutState reads one contact's opt-out flags, by primary key.
func (s *Store) GetOptOutState(ctx context.Context, ws domain.WorkspaceID, id domain.ContactID) (domain.OptOutState, error) {
	const q = `SELECT opted_out, marketing_stopped FROM contacts WHERE workspace_id = :workspace_id AND id = :id`
	var row struct {
		OptedOut  bool `db:"opted_out"`
		Marketing bool `db:"marketing_stopped"`
	}
	if err := s.get(ctx, &row, q, map[string]any{"workspace_id": string(ws), "id": string(id)}); err != nil {
		return domain.OptOutState{}, s.fail("get opt-out state", err, domain.ErrContactNotFound)
	}
	return domain.OptOutState{OptedOut: row.OptedOut, MarketingStopped: row.Marketing}, nil
}
