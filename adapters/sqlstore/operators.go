package sqlstore

import (
	"context"
	"time"

	"github.com/heraldhq/herald/domain"
)

type operatorRow struct {
	ID           string `db:"id"`
	WorkspaceID  string `db:"workspace_id"`
	Email        string `db:"email"`
	PasswordHash string `db:"password_hash"`
	CreatedAt    dbTime `db:"created_at"`
}

const operatorColumns = `id, workspace_id, email, password_hash, created_at`

func toOperatorRow(o domain.Operator) operatorRow {
	return operatorRow{ID: string(o.ID), WorkspaceID: string(o.Workspace), Email: o.Email,
		PasswordHash: o.PasswordHash, CreatedAt: newDBTime(o.CreatedAt)}
}

func (r operatorRow) toDomain() domain.Operator {
	return domain.Operator{ID: domain.OperatorID(r.ID), Workspace: domain.WorkspaceID(r.WorkspaceID), Email: r.Email,
		PasswordHash: r.PasswordHash, CreatedAt: r.CreatedAt.time()}
}

type sessionRow struct {
	TokenHash   string `db:"token_hash"`
	OperatorID  string `db:"operator_id"`
	WorkspaceID string `db:"workspace_id"`
	Email       string `db:"email"`
	CreatedAt   dbTime `db:"created_at"`
	ExpiresAt   dbTime `db:"expires_at"`
}

const sessionColumns = `token_hash, operator_id, workspace_id, email, created_at, expires_at`

func toSessionRow(s domain.Session) sessionRow {
	return sessionRow{TokenHash: s.TokenHash, OperatorID: string(s.Operator), WorkspaceID: string(s.Workspace),
		Email: s.Email, CreatedAt: newDBTime(s.CreatedAt), ExpiresAt: newDBTime(s.ExpiresAt)}
}

func (r sessionRow) toDomain() domain.Session {
	return domain.Session{TokenHash: r.TokenHash, Operator: domain.OperatorID(r.OperatorID),
		Workspace: domain.WorkspaceID(r.WorkspaceID), Email: r.Email,
		CreatedAt: r.CreatedAt.time(), ExpiresAt: r.ExpiresAt.time()}
}

// CreateOperator stores an operator; an email address another operator has,
// in any workspace, is a conflict.
func (s *Store) CreateOperator(ctx context.Context, o domain.Operator) error {
	const q = `INSERT INTO operators (` + operatorColumns + `)
VALUES (:id, :workspace_id, :email, :password_hash, :created_at)`
	_, err := s.exec(ctx, q, toOperatorRow(o))
	return s.fail("create operator", err, nil)
}

// GetOperatorByEmail finds an operator by its normalised email address, in
// any workspace.
func (s *Store) GetOperatorByEmail(ctx context.Context, email string) (domain.Operator, error) {
	const q = `SELECT ` + operatorColumns + ` FROM operators WHERE email = :email`
	var row operatorRow
	if err := s.get(ctx, &row, q, map[string]any{"email": email}); err != nil {
		return domain.Operator{}, s.fail("get operator by email", err, domain.ErrOperatorNotFound)
	}
	return row.toDomain(), nil
}

// CreateSession stores a sign-in of a stored operator.
func (s *Store) CreateSession(ctx context.Context, sn domain.Session) error {
	const q = `INSERT INTO operator_sessions (` + sessionColumns + `)
VALUES (:token_hash, :operator_id, :workspace_id, :email, :created_at, :expires_at)`
	_, err := s.exec(ctx, q, toSessionRow(sn))
	return s.fail("create session", err, nil)
}

// GetSession finds a sign-in by its token's hash, expired or not.
func (s *Store) GetSession(ctx context.Context, tokenHash string) (domain.Session, error) {
	const q = `SELECT ` + sessionColumns + ` FROM operator_sessions WHERE token_hash = :token_hash`
	var row sessionRow
	if err := s.get(ctx, &row, q, map[string]any{"token_hash": tokenHash}); err != nil {
		return domain.Session{}, s.fail("get session", err, domain.ErrSessionNotFound)
	}
	return row.toDomain(), nil
}

// DeleteSession ends a sign-in; an unknown hash changes nothing.
func (s *Store) DeleteSession(ctx context.Context, tokenHash string) error {
	const q = `DELETE FROM operator_sessions WHERE token_hash = :token_hash`
	_, err := s.exec(ctx, q, map[string]any{"token_hash": tokenHash})
	return s.fail("delete session", err, nil)
}

// DeleteExpiredSessions deletes the sign-ins that ended before the time and
// says how many went.
func (s *Store) DeleteExpiredSessions(ctx context.Context, before time.Time) (int, error) {
	const q = `DELETE FROM operator_sessions WHERE expires_at < :before`
	res, err := s.exec(ctx, q, map[string]any{"before": newDBTime(before)})
	if err != nil {
		return 0, s.fail("delete expired sessions", err, nil)
	}
	n, err := res.RowsAffected()
	return int(n), s.fail("delete expired sessions", err, nil)
}
