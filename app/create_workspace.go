package app

import (
	"context"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// CreateWorkspace makes a new, empty workspace.
type CreateWorkspace struct {
	Name string
}

// CreateWorkspaceHandler answers CreateWorkspace.
type CreateWorkspaceHandler struct {
	workspaces ports.WorkspaceRepository
	clock      ports.Clock
	ids        ports.IDGenerator
}

// NewCreateWorkspaceHandler builds the handler.
func NewCreateWorkspaceHandler(workspaces ports.WorkspaceRepository, clock ports.Clock, ids ports.IDGenerator) *CreateWorkspaceHandler {
	return &CreateWorkspaceHandler{workspaces: workspaces, clock: clock, ids: ids}
}

// Handle stores the workspace.
func (h *CreateWorkspaceHandler) Handle(ctx context.Context, cmd CreateWorkspace) (domain.Workspace, error) {
	w, err := domain.NewWorkspace(domain.WorkspaceID(h.ids.NewID(domain.PrefixWorkspace)), cmd.Name, h.clock.Now())
	if err != nil {
		return domain.Workspace{}, err
	}
	return w, h.workspaces.CreateWorkspace(ctx, w)
}
