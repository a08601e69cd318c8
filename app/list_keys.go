package app

import (
	"context"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// ListKeys lists a workspace's keys (the default one when empty).
type ListKeys struct {
	Workspace string
}

// ListKeysHandler answers ListKeys.
type ListKeysHandler struct {
	workspaces ports.WorkspaceRepository
	keys       ports.KeyRepository
	def        *EnsureDefaultWorkspaceHandler
}

// NewListKeysHandler builds the handler.
func NewListKeysHandler(workspaces ports.WorkspaceRepository, keys ports.KeyRepository, def *EnsureDefaultWorkspaceHandler) *ListKeysHandler {
	return &ListKeysHandler{workspaces: workspaces, keys: keys, def: def}
}

// Handle returns the keys, newest first.
func (h *ListKeysHandler) Handle(ctx context.Context, q ListKeys) ([]domain.APIKey, error) {
	ws, err := resolveWorkspace(ctx, h.workspaces, h.def, q.Workspace)
	if err != nil {
		return nil, err
	}
	return h.keys.ListKeys(ctx, ws)
}
