package memstore

import (
	"context"

	"github.com/heraldhq/herald/domain"
)

// CreateWorkspace stores a new workspace.
func (r *repos) CreateWorkspace(ctx context.Context, w domain.Workspace) error {
	defer r.enter(ctx)()
	if _, ok := r.st.workspaces[w.ID]; ok {
		return conflict("a workspace with this id exists")
	}
	w.IsDefault = false
	w.CreatedAt = utc(w.CreatedAt)
	put(r.st, r.st.workspaces, w.ID, w)
	return nil
}

// GetWorkspace returns a workspace.
func (r *repos) GetWorkspace(ctx context.Context, id domain.WorkspaceID) (domain.Workspace, error) {
	defer r.enter(ctx)()
	return r.st.workspace(id)
}

func (st *state) workspace(id domain.WorkspaceID) (domain.Workspace, error) {
	w, ok := st.workspaces[id]
	if !ok {
		return domain.Workspace{}, domain.NotFound(domain.ErrWorkspaceNotFound)
	}
	w.IsDefault = id == st.defaultWS
	return w, nil
}

// EnsureDefaultWorkspace returns the default workspace, storing candidate as
// the default if there is none yet.
func (r *repos) EnsureDefaultWorkspace(ctx context.Context, candidate domain.Workspace) (domain.Workspace, error) {
	defer r.enter(ctx)()
	st := r.st
	if st.defaultWS == "" {
		if _, ok := st.workspaces[candidate.ID]; !ok {
			candidate.IsDefault = false
			candidate.CreatedAt = utc(candidate.CreatedAt)
			put(st, st.workspaces, candidate.ID, candidate)
		}
		if st.undo != nil {
			*st.undo = append(*st.undo, func() { st.defaultWS = "" })
		}
		st.defaultWS = candidate.ID
	}
	return st.workspace(st.defaultWS)
}
