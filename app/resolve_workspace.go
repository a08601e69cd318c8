package app

import (
	"context"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

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
