package ports

import (
	"context"

	"github.com/heraldhq/herald/domain"
)

//go:generate go tool moq -rm -pkg portsmock -out portsmock/number_repository.go . NumberRepository
//go:generate go tool moq -rm -pkg portsmock -out portsmock/secret_sealer.go . SecretSealer

// NumberRepository stores the WhatsApp business numbers Herald sends from
// and the Meta apps whose webhooks it receives. Numbers and apps belong to
// the server, not to a workspace: a number lists the workspaces that may
// use it. Secrets arrive sealed (SecretSealer) and are stored as given.
type NumberRepository interface {
	// CreateNumber stores a new number; an id or a Meta phone number id
	// stored already is domain.ErrConflict.
	CreateNumber(ctx context.Context, n domain.BusinessNumber) error
	// GetNumber returns a number or domain.ErrPhoneNumberNotFound.
	GetNumber(ctx context.Context, id domain.BusinessNumberID) (domain.BusinessNumber, error)
	// GetNumberByMetaID returns the number with Meta's phone number id, or
	// domain.ErrPhoneNumberNotFound.
	GetNumberByMetaID(ctx context.Context, metaID string) (domain.BusinessNumber, error)
	// ListNumbers returns every number, oldest first.
	ListNumbers(ctx context.Context) ([]domain.BusinessNumber, error)
	// UpdateNumber runs fn on the number and stores what it leaves; its id
	// and creation time do not change. A Meta id another number has is
	// domain.ErrConflict. fn's error is returned and nothing is stored.
	UpdateNumber(ctx context.Context, id domain.BusinessNumberID, fn func(*domain.BusinessNumber) error) (domain.BusinessNumber, error)
	// DeleteNumber removes a number, or returns
	// domain.ErrPhoneNumberNotFound.
	DeleteNumber(ctx context.Context, id domain.BusinessNumberID) error

	// PutApp stores a Meta app, replacing the one with its id (keeping
	// that one's creation time).
	PutApp(ctx context.Context, a domain.MetaApp) error
	// GetApp returns a Meta app or ErrAppNotFound.
	GetApp(ctx context.Context, id string) (domain.MetaApp, error)
	// ListApps returns every Meta app, by id.
	ListApps(ctx context.Context) ([]domain.MetaApp, error)
	// DeleteApp removes a Meta app; an unknown id is not an error.
	DeleteApp(ctx context.Context, id string) error
}

// SecretSealer encrypts secrets for storage and decrypts them for use
// (AEAD). The associated data binds a sealed secret to what it belongs to
// (e.g. "number:pn_…:token"), so a sealed value copied onto another row
// does not open. Sealing uses the current key; opening finds the key by the
// sealed value's key id.
type SecretSealer interface {
	// KeyID names the current key; "" when the server holds none (then
	// Seal fails with ErrNoSecretKey).
	KeyID() string
	// Holds reports whether the key named keyID is held, current or
	// previous.
	Holds(keyID string) bool
	// Seal encrypts plaintext under the current key.
	Seal(plaintext, associated []byte) (domain.SealedSecret, error)
	// Open decrypts s; ErrSecretKeyUnknown when s's key is not held, and
	// ErrSecretUnreadable when s does not open under it.
	Open(s domain.SealedSecret, associated []byte) ([]byte, error)
}

//go:generate go tool moq -rm -pkg portsmock -out portsmock/cloud_clients.go . CloudClients

// NumberCredentials are what a Cloud API call needs to act for one
// business number: Meta's id of the number, its business account and its
// access token (in clear: held in memory only while the server runs).
type NumberCredentials struct {
	PhoneNumberID string
	WABAID        string
	AccessToken   string
}

// NumberClient acts for one business number: it sends from it, marks
// messages it received read, reads its business account's templates and
// submits new ones to it.
type NumberClient interface {
	WhatsAppSender
	ReadMarker
	TemplateSource
	TemplateAuthor
}

// CloudClients makes a client for each business number, all sharing one
// connection pool.
type CloudClients interface {
	ForNumber(c NumberCredentials) NumberClient
}
