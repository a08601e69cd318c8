package memstore

import (
	"context"
	"time"

	"github.com/heraldhq/herald/domain"
)

// CreateOperator stores an operator; its id and its email address, in any
// workspace, must be unused.
func (r *repos) CreateOperator(ctx context.Context, o domain.Operator) error {
	defer r.enter(ctx)()
	if _, ok := r.st.operators[o.ID]; ok {
		return conflict("an operator with this id exists")
	}
	if _, ok := r.st.operatorIDs[o.Email]; ok {
		return conflict("an operator with this email address exists")
	}
	o.CreatedAt = utc(o.CreatedAt)
	put(r.st, r.st.operators, o.ID, o)
	put(r.st, r.st.operatorIDs, o.Email, o.ID)
	return nil
}

// GetOperatorByEmail finds an operator by its email address, in any
// workspace.
func (r *repos) GetOperatorByEmail(ctx context.Context, email string) (domain.Operator, error) {
	defer r.enter(ctx)()
	id, ok := r.st.operatorIDs[email]
	if !ok {
		return domain.Operator{}, domain.NotFound(domain.ErrOperatorNotFound)
	}
	return r.st.operators[id], nil
}

// CreateSession stores a sign-in; its token hash must be unused.
func (r *repos) CreateSession(ctx context.Context, s domain.Session) error {
	defer r.enter(ctx)()
	if _, ok := r.st.sessions[s.TokenHash]; ok {
		return conflict("a session with this token exists")
	}
	s.CreatedAt, s.ExpiresAt = utc(s.CreatedAt), utc(s.ExpiresAt)
	put(r.st, r.st.sessions, s.TokenHash, s)
	return nil
}

// GetSession finds a sign-in by its token's hash, expired or not.
func (r *repos) GetSession(ctx context.Context, tokenHash string) (domain.Session, error) {
	defer r.enter(ctx)()
	s, ok := r.st.sessions[tokenHash]
	if !ok {
		return domain.Session{}, domain.NotFound(domain.ErrSessionNotFound)
	}
	return s, nil
}

// DeleteSession ends a sign-in; an unknown hash changes nothing.
func (r *repos) DeleteSession(ctx context.Context, tokenHash string) error {
	defer r.enter(ctx)()
	del(r.st, r.st.sessions, tokenHash)
	return nil
}

// DeleteExpiredSessions removes the sign-ins that ended before the time and
// says how many went.
func (r *repos) DeleteExpiredSessions(ctx context.Context, before time.Time) (int, error) {
	defer r.enter(ctx)()
	before = utc(before)
	return deleteWhere(r.st, r.st.sessions, func(_ string, s domain.Session) bool { return s.ExpiresAt.Before(before) }), nil
}
