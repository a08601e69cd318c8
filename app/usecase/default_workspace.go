package usecase

import (
	"context"
	"time"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// EnsureDefaultWorkspace returns the default workspace from workspaces
// (which may be bound to a transaction), creating it if there is none: the
// server at start and the CLI (app.EnsureDefaultWorkspaceHandler), and a
// person who writes first to no workspace's contact (app/delivery).
func EnsureDefaultWorkspace(ctx context.Context, workspaces ports.WorkspaceRepository, ids ports.IDGenerator, now time.Time) (domain.Workspace, error) {
	w, err := domain.NewWorkspace(domain.WorkspaceID(ids.NewID(domain.PrefixWorkspace)), domain.DefaultWorkspaceName, now)
	if err != nil {
		return domain.Workspace{}, err
	}
	w.IsDefault = true
	return workspaces.EnsureDefaultWorkspace(ctx, w)
}
