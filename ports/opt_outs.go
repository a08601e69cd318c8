package ports

import (
	"context"

	"github.com/heraldhq/herald/domain"
)

// OptOutReader reads whether contacts still take messages, for the
// dispatcher's check right before each send: two flags, not the whole
// contact, since it runs once per message sent.
type OptOutReader interface {
	// GetOptOutState returns the opt-out state of one of the workspace's
	// contacts, of any mode, or domain.ErrContactNotFound.
	GetOptOutState(ctx context.Context, ws domain.WorkspaceID, id domain.ContactID) (domain.OptOutState, error)
}
