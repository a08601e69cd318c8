package app

import (
	"context"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// ResolveWorkspaceHandler names a workspace for the commands that take an
// id: the given one when it exists, the default one when none is given.
type ResolveWorkspaceHandler struct {
	workspaces ports.WorkspaceRepository
	def        *EnsureDefaultWorkspaceHandler
}

// NewResolveWorkspaceHandler builds the handler.
func NewResolveWorkspaceHandler(workspaces ports.WorkspaceRepository, def *EnsureDefaultWorkspaceHandler) *ResolveWorkspaceHandler {
	return &ResolveWorkspaceHandler{workspaces: workspaces, def: def}
}

// Handle returns the workspace's id, or workspace_not_found.
func (h *ResolveWorkspaceHandler) Handle(ctx context.Context, id string) (domain.WorkspaceID, error) {
	return resolveWorkspace(ctx, h.workspaces, h.def, id)
}
