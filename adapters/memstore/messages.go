package memstore

import (
	"context"
	"slices"
	"strings"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// CreateMessages stores new messages, each due for sending from its
// creation time. An id already stored, or given twice, is a conflict and
// nothing is stored.
func (r *repos) CreateMessages(ctx context.Context, ms ...domain.Message) error {
	defer r.enter(ctx)()
	ids := make(map[domain.MessageID]bool, len(ms))
	for _, m := range ms {
		if _, ok := r.st.messages[m.ID]; ok || ids[m.ID] {
			return conflict("a message with this id exists")
		}
		ids[m.ID] = true
	}
	for _, m := range ms {
		m = copyMessage(m)
		put(r.st, r.st.messages, m.ID, m)
		if m.ProviderID != "" {
			put(r.st, r.st.providerIDs, m.ProviderID, m.ID)
		}
		put(r.st, r.st.queue, m.ID, queueItem{due: m.CreatedAt})
	}
	return nil
}

// GetMessage returns one of the workspace's messages.
func (r *repos) GetMessage(ctx context.Context, ws domain.WorkspaceID, id domain.MessageID) (domain.Message, error) {
	defer r.enter(ctx)()
	m, ok := r.st.messages[id]
	if !ok || m.Workspace != ws {
		return domain.Message{}, domain.NotFound(domain.ErrMessageNotFound)
	}
	return copyMessage(m), nil
}

// ListCampaignMessages returns one page of the campaign's messages, newest
// first.
func (r *repos) ListCampaignMessages(ctx context.Context, ws domain.WorkspaceID, id domain.CampaignID, p ports.Page) ([]domain.Message, string, error) {
	defer r.enter(ctx)()
	var all []domain.Message
	for _, m := range r.st.messages {
		if m.Workspace == ws && m.CampaignID == id {
			all = append(all, m)
		}
	}
	out, next := page(all, func(m domain.Message) string { return string(m.ID) }, p)
	for i := range out {
		out[i] = copyMessage(out[i])
	}
	return out, next, nil
}

// ListMessages returns one page of the workspace's messages matching f,
// newest first.
func (r *repos) ListMessages(ctx context.Context, ws domain.WorkspaceID, f ports.MessageFilter, p ports.Page) ([]domain.Message, string, error) {
	defer r.enter(ctx)()
	var all []domain.Message
	for _, m := range r.st.messages {
		if m.Workspace == ws && messageMatches(m, f) {
			all = append(all, m)
		}
	}
	out, next := page(all, func(m domain.Message) string { return string(m.ID) }, p)
	for i := range out {
		out[i] = copyMessage(out[i])
	}
	return out, next, nil
}

func messageMatches(m domain.Message, f ports.MessageFilter) bool {
	return ofMode(m.Mode, f.Mode) &&
		(f.Campaign == "" || m.CampaignID == f.Campaign) &&
		(f.Status.IsZero() || m.Status == f.Status) &&
		(f.Phone.IsZero() || m.Phone == f.Phone) &&
		(f.Since.IsZero() || !m.CreatedAt.Before(f.Since)) &&
		(f.Until.IsZero() || m.CreatedAt.Before(f.Until))
}

// LocateMessage finds a message in any workspace, by id when id is given,
// otherwise by the provider's id.
func (r *repos) LocateMessage(ctx context.Context, id domain.MessageID, providerID string) (domain.Message, error) {
	defer r.enter(ctx)()
	if id == "" && providerID != "" {
		id = r.st.providerIDs[providerID]
	}
	m, ok := r.st.messages[id]
	if !ok || id == "" {
		return domain.Message{}, domain.NotFound(domain.ErrMessageNotFound)
	}
	return copyMessage(m), nil
}

// UpdateMessage runs fn on the message and stores the result if fn
// succeeds.
func (r *repos) UpdateMessage(ctx context.Context, ws domain.WorkspaceID, id domain.MessageID, fn func(*domain.Message) error) (domain.Message, error) {
	defer r.enter(ctx)()
	old, ok := r.st.messages[id]
	if !ok || old.Workspace != ws {
		return domain.Message{}, domain.NotFound(domain.ErrMessageNotFound)
	}
	m := copyMessage(old)
	if err := fn(&m); err != nil {
		return domain.Message{}, err
	}
	m.ID, m.Workspace = old.ID, old.Workspace
	r.st.saveMessage(old, copyMessage(m))
	return copyMessage(m), nil
}

// UpdateLocatedMessage locates the message as LocateMessage does, runs fn
// on it and stores its delivery if fn succeeds.
func (r *repos) UpdateLocatedMessage(ctx context.Context, id domain.MessageID, providerID string, fn func(*domain.Message) error) (domain.Message, error) {
	defer r.enter(ctx)()
	if id == "" && providerID != "" {
		id = r.st.providerIDs[providerID]
	}
	old, ok := r.st.messages[id]
	if !ok || id == "" {
		return domain.Message{}, domain.NotFound(domain.ErrMessageNotFound)
	}
	m := copyMessage(old)
	if err := fn(&m); err != nil {
		return domain.Message{}, err
	}
	m = copyMessage(old).WithDelivery(m)
	r.st.saveMessage(old, copyMessage(m))
	return copyMessage(m), nil
}

// LockMessages returns the messages with the ids or provider ids, in id
// order (the store's lock already serialises writers).
func (r *repos) LockMessages(ctx context.Context, ids []domain.MessageID, providerIDs []string) ([]domain.Message, error) {
	defer r.enter(ctx)()
	found := map[domain.MessageID]bool{}
	for _, p := range providerIDs {
		if id, ok := r.st.providerIDs[p]; ok {
			ids = append(ids, id)
		}
	}
	var out []domain.Message
	for _, id := range ids {
		if m, ok := r.st.messages[id]; ok && !found[id] {
			found[id] = true
			out = append(out, copyMessage(m))
		}
	}
	slices.SortFunc(out, func(a, b domain.Message) int { return strings.Compare(string(a.ID), string(b.ID)) })
	return out, nil
}

// WriteMessageDeliveries stores each message's delivery, or none when one
// is not stored.
func (r *repos) WriteMessageDeliveries(ctx context.Context, ms []domain.Message) error {
	defer r.enter(ctx)()
	for _, m := range ms {
		if _, ok := r.st.messages[m.ID]; !ok {
			return domain.NotFound(domain.ErrMessageNotFound)
		}
	}
	for _, m := range ms {
		old := r.st.messages[m.ID]
		r.st.saveMessage(old, copyMessage(old.WithDelivery(m)))
	}
	return nil
}

// saveMessage replaces old with m and keeps the provider id index.
func (st *state) saveMessage(old, m domain.Message) {
	if m.ProviderID != old.ProviderID {
		if old.ProviderID != "" && st.providerIDs[old.ProviderID] == m.ID {
			del(st, st.providerIDs, old.ProviderID)
		}
		if m.ProviderID != "" {
			put(st, st.providerIDs, m.ProviderID, m.ID)
		}
	}
	put(st, st.messages, m.ID, m)
}

func copyMessage(m domain.Message) domain.Message {
	m.Variables = slices.Clone(m.Variables)
	m.History = slices.Clone(m.History)
	m.Values = slices.Clone(m.Values)
	for i := range m.History {
		m.History[i].At = utc(m.History[i].At)
	}
	m.Failure = clonePtr(m.Failure)
	m.Pricing = clonePtr(m.Pricing)
	m.Session = clonePtr(m.Session) // its content is never changed
	m.CreatedAt, m.UpdatedAt = utc(m.CreatedAt), utc(m.UpdatedAt)
	return m
}
