package app

import (
	"context"
	"time"

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
	return ensureDefaultWorkspace(ctx, h.workspaces, h.ids, h.clock.Now())
}

// ensureDefaultWorkspace returns the default workspace from workspaces
// (which may be bound to a transaction), creating it if there is none.
func ensureDefaultWorkspace(ctx context.Context, workspaces ports.WorkspaceRepository, ids ports.IDGenerator, now time.Time) (domain.Workspace, error) {
	w, err := domain.NewWorkspace(domain.WorkspaceID(ids.NewID(domain.PrefixWorkspace)), domain.DefaultWorkspaceName, now)
	if err != nil {
		return domain.Workspace{}, err
	}
	w.IsDefault = true
	return workspaces.EnsureDefaultWorkspace(ctx, w)
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
