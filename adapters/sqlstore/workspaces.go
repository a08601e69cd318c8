package sqlstore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/heraldhq/herald/domain"
)

type workspaceRow struct {
	ID        string `db:"id"`
	Name      string `db:"name"`
	IsDefault bool   `db:"is_default"`
	CreatedAt dbTime `db:"created_at"`
}

func toWorkspaceRow(w domain.Workspace) workspaceRow {
	return workspaceRow{ID: string(w.ID), Name: w.Name, IsDefault: w.IsDefault, CreatedAt: newDBTime(w.CreatedAt)}
}

func (r workspaceRow) toDomain() domain.Workspace {
	return domain.Workspace{ID: domain.WorkspaceID(r.ID), Name: r.Name, IsDefault: r.IsDefault, CreatedAt: r.CreatedAt.time()}
}

// CreateWorkspace stores a new workspace.
func (s *Store) CreateWorkspace(ctx context.Context, w domain.Workspace) error {
	const q = `INSERT INTO workspaces (id, name, is_default, created_at)
VALUES (:id, :name, :is_default, :created_at)`
	_, err := s.exec(ctx, q, toWorkspaceRow(w))
	return s.fail("create workspace", err, nil)
}

// GetWorkspace returns a workspace by id.
func (s *Store) GetWorkspace(ctx context.Context, id domain.WorkspaceID) (domain.Workspace, error) {
	const q = `SELECT id, name, is_default, created_at FROM workspaces WHERE id = :id`
	var row workspaceRow
	if err := s.get(ctx, &row, q, map[string]any{"id": string(id)}); err != nil {
		return domain.Workspace{}, s.fail("get workspace", err, domain.ErrWorkspaceNotFound)
	}
	return row.toDomain(), nil
}

// EnsureDefaultWorkspace returns the default workspace, storing candidate as
// the default first when there is none. The unique index on is_default makes
// concurrent calls agree: every insert but one is ignored, and all read the
// one that won.
func (s *Store) EnsureDefaultWorkspace(ctx context.Context, candidate domain.Workspace) (domain.Workspace, error) {
	const qGet = `SELECT id, name, is_default, created_at FROM workspaces WHERE is_default`
	const qInsert = `INSERT INTO workspaces (id, name, is_default, created_at)
VALUES (:id, :name, TRUE, :created_at)
ON CONFLICT DO NOTHING`
	var row workspaceRow
	err := s.get(ctx, &row, qGet, map[string]any{})
	if errors.Is(err, sql.ErrNoRows) {
		if _, err = s.exec(ctx, qInsert, toWorkspaceRow(candidate)); err == nil {
			err = s.get(ctx, &row, qGet, map[string]any{})
		}
	}
	if errors.Is(err, sql.ErrNoRows) {
		// The insert was ignored yet there is no default: the candidate's id
		// belongs to another workspace.
		return domain.Workspace{}, &domain.Error{Code: domain.CodeConflict,
			Detail: "the candidate default workspace's id is already taken"}
	}
	if err != nil {
		return domain.Workspace{}, s.fail("ensure default workspace", err, nil)
	}
	return row.toDomain(), nil
}
