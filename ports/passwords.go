package ports

import (
	"context"
	"errors"
)

//go:generate go tool moq -rm -pkg portsmock -out portsmock/password_hasher.go . PasswordHasher

// PasswordHasher turns operators' passwords into slow, salted hashes and
// checks passwords against them.
type PasswordHasher interface {
	// HashPassword returns the encoded hash of pw, its parameters and salt
	// included.
	HashPassword(pw string) (string, error)
	// CheckPassword reports whether pw matches hash, in time that does not
	// depend on where they differ. A hash it cannot read is an error. Each
	// check holds the hash's memory while it runs, so checks run a bounded
	// number at a time: one that finds no room within a short wait (or
	// before ctx ends) returns ErrTooManyPasswordChecks.
	CheckPassword(ctx context.Context, hash, pw string) (bool, error)
}

// ErrTooManyPasswordChecks means as many password checks as the server
// allows were running and none ended in time for this one; nothing was
// checked. The dashboard answers 429 with Retry-After.
var ErrTooManyPasswordChecks = errors.New("too many password checks at once")
