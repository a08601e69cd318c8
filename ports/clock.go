package ports

import (
	"time"

	"github.com/heraldhq/herald/domain"
)

//go:generate go tool moq -rm -pkg portsmock -out portsmock/clock.go . Clock

// Clock tells the time; the domain never reads it itself.
type Clock interface {
	Now() time.Time
}

// IDGenerator makes identifiers and API key tokens.
type IDGenerator interface {
	// NewID returns a fresh sortable identifier with the given prefix
	// (domain.PrefixCampaign, …).
	NewID(prefix string) string
	// NewToken returns a fresh API key token of the given mode.
	NewToken(mode domain.KeyMode) (domain.Token, error)
	// NewSessionToken returns a fresh dashboard session token.
	NewSessionToken() (domain.SessionToken, error)
}
