package app

import (
	"context"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// EnsureDefaultWorkspaceHandler makes sure the default workspace exists and
// returns it. The server calls it at start, and the CLI before any command
// that needs a workspace and was given none.
type EnsureDefaultWorkspaceHandler struct {
	workspaces ports.WorkspaceRepository
	clock      ports.Clock
	ids        ports.IDGenerator
}

// NewEnsureDefaultWorkspaceHandler builds the handler.
func NewEnsureDefaultWorkspaceHandler(workspaces ports.WorkspaceRepository, clock ports.Clock, ids ports.IDGenerator) *EnsureDefaultWorkspaceHandler {
	return &EnsureDefaultWorkspaceHandler{workspaces: workspaces, clock: clock, ids: ids}
}

// Handle returns the default workspace, creating it on first use.
func (h *EnsureDefaultWorkspaceHandler) Handle(ctx context.Context) (domain.Workspace, error) {
	w, err := domain.NewWorkspace(domain.WorkspaceID(h.ids.NewID(domain.PrefixWorkspace)), domain.DefaultWorkspaceName, h.clock.Now())
	if err != nil {
		return domain.Workspace{}, err
	}
	w.IsDefault = true
	return h.workspaces.EnsureDefaultWorkspace(ctx, w)
}

// resolveWorkspace returns the workspace named by id, or the default one
// when id is empty.
func resolveWorkspace(ctx context.Context, workspaces ports.WorkspaceRepository, def *EnsureDefaultWorkspaceHandler, id string) (domain.WorkspaceID, error) {
	if id == "" {
		w, err := def.Handle(ctx)
		return w.ID, err
	}
	ws, err := domain.ParseWorkspaceID(id)
	if err != nil {
		return "", err
	}
	if _, err := workspaces.GetWorkspace(ctx, ws); err != nil {
		return "", err
	}
	return ws, nil
}
