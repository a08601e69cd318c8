package domain

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"io"
	"net/mail"
	"strings"
	"time"
	"unicode/utf8"
)

// Operator is a person who signs in to the dashboard of one workspace. Its
// password is kept only as a slow, salted hash (PasswordHash, in the
// hasher's own encoded form).
type Operator struct {
	ID           OperatorID
	Workspace    WorkspaceID
	Email        string
	PasswordHash string
	CreatedAt    time.Time
}

// Password length bounds: long enough to resist guessing, short enough that
// hashing stays cheap for the server.
const (
	MinPasswordLength = 12
	MaxPasswordLength = 256
)

// NewOperator makes an operator from a normalised email address (see
// ParseEmail) and the hash of a password that passed CheckPassword.
func NewOperator(id OperatorID, ws WorkspaceID, email, passwordHash string, now time.Time) (Operator, error) {
	email, err := ParseEmail(email)
	if err != nil {
		return Operator{}, err
	}
	if passwordHash == "" {
		return Operator{}, InvalidParameter("password", "an operator needs a password")
	}
	return Operator{ID: id, Workspace: ws, Email: email, PasswordHash: passwordHash,
		CreatedAt: now.UTC().Truncate(time.Microsecond)}, nil
}

// ParseEmail checks a bare email address (no display name) and returns it
// trimmed and lower-cased, the form operators are stored and found by.
func ParseEmail(s string) (string, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	bad := InvalidParameter("email", "an email address such as ops@example.com is needed")
	if s == "" || len(s) > 254 {
		return "", bad
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s || a.Name != "" {
		return "", bad
	}
	return s, nil
}

// CheckPassword checks a new password's length, in characters.
func CheckPassword(pw string) error {
	if !utf8.ValidString(pw) {
		return InvalidParameter("password", "the password is not valid UTF-8")
	}
	if n := utf8.RuneCountInString(pw); n < MinPasswordLength || len(pw) > MaxPasswordLength {
		return InvalidParameter("password", "a password is 12 to 256 characters")
	}
	return nil
}

// SessionLifetime is how long a dashboard sign-in lasts.
const SessionLifetime = 12 * time.Hour

// sessionTokenBytes is the session token's randomness: 256 bits.
const sessionTokenBytes = 32

// SessionToken is the secret a signed-in browser holds in its cookie. Like
// an API key it is stored only as its SHA-256 (Hash).
type SessionToken struct{ raw string }

// NewSessionToken makes a fresh token from random, which should be a
// cryptographically secure source.
func NewSessionToken(random io.Reader) (SessionToken, error) {
	b := make([]byte, sessionTokenBytes)
	if _, err := io.ReadFull(random, b); err != nil {
		return SessionToken{}, err
	}
	return SessionToken{raw: base64.RawURLEncoding.EncodeToString(b)}, nil
}

// ParseSessionToken checks a token's shape; a malformed one never reaches
// storage.
func ParseSessionToken(s string) (SessionToken, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(b) != sessionTokenBytes {
		return SessionToken{}, ErrSessionNotFound
	}
	return SessionToken{raw: s}, nil
}

// Plaintext returns the token for the cookie.
func (t SessionToken) Plaintext() string { return t.raw }

// Hash is the stored form: hex SHA-256 of the token.
func (t SessionToken) Hash() string {
	sum := sha256.Sum256([]byte(t.raw))
	return hex.EncodeToString(sum[:])
}

// CSRFToken is the value the session's forms carry. It is derived from the
// token, so only a page served to the browser holding the cookie can know
// it, and it reveals nothing of the token.
func (t SessionToken) CSRFToken() string {
	sum := sha256.Sum256([]byte("herald csrf\x00" + t.raw))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// String never shows the token.
func (t SessionToken) String() string { return "session token (redacted)" }

// Session is a stored sign-in: whose, in which workspace, and until when.
type Session struct {
	TokenHash string
	Operator  OperatorID
	Workspace WorkspaceID
	Email     string
	CreatedAt time.Time
	ExpiresAt time.Time
}

// NewSession signs o in at now for SessionLifetime.
func NewSession(tok SessionToken, o Operator, now time.Time) Session {
	now = now.UTC().Truncate(time.Microsecond)
	return Session{TokenHash: tok.Hash(), Operator: o.ID, Workspace: o.Workspace, Email: o.Email,
		CreatedAt: now, ExpiresAt: now.Add(SessionLifetime)}
}

// Expired reports whether the session has ended at now.
func (s Session) Expired(now time.Time) bool { return !now.Before(s.ExpiresAt) }
