package app

import (
	"context"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// RevokeKey revokes an API key for good.
type RevokeKey struct {
	Workspace string
	KeyID     string
}

// RevokeKeyHandler answers RevokeKey. The revocation takes effect on this
// instance at once and on others within the key cache's TTL.
type RevokeKeyHandler struct {
	workspaces ports.WorkspaceRepository
	keys       ports.KeyRepository
	def        *EnsureDefaultWorkspaceHandler
	auth       *AuthenticateKeyHandler
	clock      ports.Clock
}

// NewRevokeKeyHandler builds the handler; auth may be nil (the CLI has no cache).
func NewRevokeKeyHandler(workspaces ports.WorkspaceRepository, keys ports.KeyRepository, def *EnsureDefaultWorkspaceHandler, auth *AuthenticateKeyHandler, clock ports.Clock) *RevokeKeyHandler {
	return &RevokeKeyHandler{workspaces: workspaces, keys: keys, def: def, auth: auth, clock: clock}
}

// Handle revokes the key; revoking a revoked key keeps the first time.
func (h *RevokeKeyHandler) Handle(ctx context.Context, cmd RevokeKey) (domain.APIKey, error) {
	ws, err := resolveWorkspace(ctx, h.workspaces, h.def, cmd.Workspace)
	if err != nil {
		return domain.APIKey{}, err
	}
	id, err := domain.ParseKeyID(cmd.KeyID)
	if err != nil {
		return domain.APIKey{}, err
	}
	now := h.clock.Now()
	k, err := h.keys.UpdateKey(ctx, ws, id, func(k *domain.APIKey) error {
		k.Revoke(now)
		return nil
	})
	if err != nil {
		return domain.APIKey{}, err
	}
	if h.auth != nil {
		h.auth.Forget(k.Identifier)
	}
	return k, nil
}
