package memstore

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/heraldhq/herald/domain"
)

// CreateKey stores a key; its identifier must be unused.
func (r *repos) CreateKey(ctx context.Context, k domain.APIKey) error {
	defer r.enter(ctx)()
	if _, ok := r.st.keys[k.ID]; ok {
		return conflict("a key with this id exists")
	}
	if _, ok := r.st.keyIDs[k.Identifier]; ok {
		return conflict("a key with this identifier exists")
	}
	put(r.st, r.st.keys, k.ID, copyKey(k))
	put(r.st, r.st.keyIDs, k.Identifier, k.ID)
	return nil
}

// GetKeyByIdentifier finds a key by its identifier, in any workspace.
func (r *repos) GetKeyByIdentifier(ctx context.Context, identifier string) (domain.APIKey, error) {
	defer r.enter(ctx)()
	id, ok := r.st.keyIDs[identifier]
	if !ok {
		return domain.APIKey{}, domain.NotFound(domain.ErrKeyNotFound)
	}
	return copyKey(r.st.keys[id]), nil
}

// ListKeys lists the workspace's keys, newest first.
func (r *repos) ListKeys(ctx context.Context, ws domain.WorkspaceID) ([]domain.APIKey, error) {
	defer r.enter(ctx)()
	var out []domain.APIKey
	for _, k := range r.st.keys {
		if k.Workspace == ws {
			out = append(out, copyKey(k))
		}
	}
	slices.SortFunc(out, func(a, b domain.APIKey) int { return cmp.Compare(b.ID, a.ID) })
	return out, nil
}

// UpdateKey runs fn on the key and stores the result if fn succeeds.
func (r *repos) UpdateKey(ctx context.Context, ws domain.WorkspaceID, id domain.KeyID, fn func(*domain.APIKey) error) (domain.APIKey, error) {
	defer r.enter(ctx)()
	old, ok := r.st.keys[id]
	if !ok || old.Workspace != ws {
		return domain.APIKey{}, domain.NotFound(domain.ErrKeyNotFound)
	}
	k := copyKey(old)
	if err := fn(&k); err != nil {
		return domain.APIKey{}, err
	}
	k.ID, k.Workspace, k.Identifier = old.ID, old.Workspace, old.Identifier
	k = copyKey(k)
	put(r.st, r.st.keys, id, k)
	return copyKey(k), nil
}

// TouchKeys moves each known key's last use forward to the given time.
func (r *repos) TouchKeys(ctx context.Context, lastUsed map[domain.KeyID]time.Time) error {
	defer r.enter(ctx)()
	for id, at := range lastUsed {
		k, ok := r.st.keys[id]
		if !ok {
			continue
		}
		at = utc(at)
		if k.LastUsedAt != nil && !at.After(*k.LastUsedAt) {
			continue
		}
		k.LastUsedAt = &at
		put(r.st, r.st.keys, id, k)
	}
	return nil
}

func copyKey(k domain.APIKey) domain.APIKey {
	k.CreatedAt = utc(k.CreatedAt)
	k.LastUsedAt, k.RevokedAt, k.ExpiresAt = utcPtr(k.LastUsedAt), utcPtr(k.RevokedAt), utcPtr(k.ExpiresAt)
	return k
}
