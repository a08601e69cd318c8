package memstore

import (
	"context"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// providerKey is an entry's provider id, unique in its workspace.
type providerKey struct {
	ws         domain.WorkspaceID
	providerID string
}

// AppendEntries adds entries to contacts' threads. An entry whose id or
// provider id is stored already, or taken by an earlier entry of the call,
// is skipped, and the call is then a conflict; the others are stored.
func (r *repos) AppendEntries(ctx context.Context, es ...domain.Entry) error {
	defer r.enter(ctx)()
	var err error
	for _, e := range es {
		if _, ok := r.st.entries[e.ID]; ok {
			err = conflict("an entry with this id exists")
			continue
		}
		pk := providerKey{e.Workspace, e.ProviderID}
		if e.ProviderID != "" {
			if _, ok := r.st.entryIDs[pk]; ok {
				err = conflict("the workspace already holds an entry with this provider id")
				continue
			}
			put(r.st, r.st.entryIDs, pk, e.ID)
		}
		put(r.st, r.st.entries, e.ID, copyEntry(e))
	}
	return err
}

// ListEntries returns one page of the contact's thread of mode, newest
// first, with each outbound entry's message status. An unknown contact, or
// another workspace's, has an empty thread.
func (r *repos) ListEntries(ctx context.Context, ws domain.WorkspaceID, contact domain.ContactID, mode domain.KeyMode, p ports.Page) ([]domain.Entry, string, error) {
	defer r.enter(ctx)()
	var all []domain.Entry
	for _, e := range r.st.entries {
		if e.Workspace == ws && e.ContactID == contact && ofMode(e.Mode, mode) {
			all = append(all, e)
		}
	}
	out, next := page(all, func(e domain.Entry) string { return string(e.ID) }, p)
	for i, e := range out {
		out[i] = copyEntry(e)
		if m, ok := r.st.messages[e.MessageID]; ok && e.Direction == domain.Outbound && m.Workspace == ws {
			out[i].Status = m.Status
		}
	}
	return out, next, nil
}

// GetInboundEntry finds an inbound entry by its wamid.
func (r *repos) GetInboundEntry(ctx context.Context, ws domain.WorkspaceID, mode domain.KeyMode, providerID string) (domain.Entry, error) {
	defer r.enter(ctx)()
	for _, e := range r.st.entries {
		if e.Workspace == ws && e.Direction == domain.Inbound && e.ProviderID == providerID && providerID != "" && ofMode(e.Mode, mode) {
			return copyEntry(e), nil
		}
	}
	return domain.Entry{}, domain.NotFound(domain.ErrMessageNotFound)
}

func copyEntry(e domain.Entry) domain.Entry {
	e.Media = clonePtr(e.Media)
	e.CreatedAt = utc(e.CreatedAt)
	return e
}
