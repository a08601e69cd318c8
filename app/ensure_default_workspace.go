package app

import (
	"context"

	"github.com/heraldhq/herald/app/usecase"
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
	return usecase.EnsureDefaultWorkspace(ctx, h.workspaces, h.ids, h.clock.Now())
}
