package app

import (
	"context"
	"errors"
	"sync"

	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// LogIn signs an operator in to the dashboard.
type LogIn struct {
	Email    string
	Password string
}

// SignedIn is a new sign-in and the token for its cookie, which is never
// stored.
type SignedIn struct {
	Session domain.Session
	Token   domain.SessionToken
}

// LogInHandler answers LogIn, LogOut and session checks: the dashboard's
// sign-in life cycle.
type LogInHandler struct {
	operators ports.OperatorRepository
	passwords ports.PasswordHasher
	clock     ports.Clock
	ids       ports.IDGenerator
	obs       *usecase.Observer

	decoyOnce sync.Once
	decoy     string // a hash checked for unknown addresses, so they take as long
}

// NewLogInHandler builds the handler.
func NewLogInHandler(operators ports.OperatorRepository, passwords ports.PasswordHasher, clock ports.Clock, ids ports.IDGenerator, obs *usecase.Observer) *LogInHandler {
	return &LogInHandler{operators: operators, passwords: passwords, clock: clock, ids: ids, obs: obs}
}

// Handle checks the address and password and stores a new session. A wrong
// address and a wrong password are the same domain.ErrInvalidCredentials,
// and take the same time: an unknown address is checked against a decoy
// hash. When the hasher has no room for the check, both are
// ports.ErrTooManyPasswordChecks.
func (h *LogInHandler) Handle(ctx context.Context, cmd LogIn) (SignedIn, error) {
	return usecase.Observe(ctx, h.obs, "log_in", func(ctx context.Context) (SignedIn, error) {
		o, err := h.operator(ctx, cmd.Email)
		if err != nil && !errors.Is(err, domain.ErrOperatorNotFound) {
			return SignedIn{}, err
		}
		hash := o.PasswordHash
		if hash == "" {
			hash = h.decoyHash()
		}
		ok, checkErr := h.passwords.CheckPassword(ctx, hash, cmd.Password)
		switch {
		case errors.Is(checkErr, ports.ErrTooManyPasswordChecks):
			return SignedIn{}, checkErr // nothing was checked, whatever the address
		case err == nil && checkErr != nil:
			return SignedIn{}, checkErr // a stored hash that cannot be read
		case err != nil || !ok:
			return SignedIn{}, domain.ErrInvalidCredentials
		}
		tok, err := h.ids.NewSessionToken()
		if err != nil {
			return SignedIn{}, err
		}
		s := domain.NewSession(tok, o, h.clock.Now())
		if err := h.operators.CreateSession(ctx, s); err != nil {
			return SignedIn{}, err
		}
		return SignedIn{Session: s, Token: tok}, nil
	})
}

func (h *LogInHandler) operator(ctx context.Context, email string) (domain.Operator, error) {
	email, err := domain.ParseEmail(email)
	if err != nil {
		return domain.Operator{}, domain.ErrOperatorNotFound
	}
	return h.operators.GetOperatorByEmail(ctx, email)
}

func (h *LogInHandler) decoyHash() string {
	h.decoyOnce.Do(func() {
		h.decoy, _ = h.passwords.HashPassword("decoy password for unknown addresses")
	})
	return h.decoy
}

// Session returns the live session a cookie's token names, or
// domain.ErrSessionNotFound when the token is malformed, unknown, signed
// out or expired (an expired one is removed).
func (h *LogInHandler) Session(ctx context.Context, token string) (domain.Session, error) {
	tok, err := domain.ParseSessionToken(token)
	if err != nil {
		return domain.Session{}, err
	}
	s, err := h.operators.GetSession(ctx, tok.Hash())
	if err != nil {
		return domain.Session{}, err
	}
	if s.Expired(h.clock.Now()) {
		if err := h.operators.DeleteSession(ctx, s.TokenHash); err != nil {
			return domain.Session{}, err
		}
		return domain.Session{}, domain.ErrSessionNotFound
	}
	return s, nil
}

// LogOut ends the session a cookie's token names; an unknown or malformed
// token is already signed out.
func (h *LogInHandler) LogOut(ctx context.Context, token string) error {
	tok, err := domain.ParseSessionToken(token)
	if err != nil {
		return nil
	}
	return h.operators.DeleteSession(ctx, tok.Hash())
}

// PurgeExpired removes sessions that have ended.
func (h *LogInHandler) PurgeExpired(ctx context.Context) error {
	_, err := h.operators.DeleteExpiredSessions(ctx, h.clock.Now())
	return err
}
