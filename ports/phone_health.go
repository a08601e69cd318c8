package ports

import (
	"context"
	"time"

	"github.com/heraldhq/herald/domain"
)

// PhoneHealthRepository keeps what Meta last said of each business
// number's health (quality rating, messaging limit tier) and every change
// of it with its time: the number's health history. Numbers are Meta's
// phone number ids. The repository conventions of repositories.go hold.
type PhoneHealthRepository interface {
	// GetPhoneHealth returns the number's health; a number Meta said
	// nothing of yet has zero values (with Number set), not an error.
	GetPhoneHealth(ctx context.Context, number string) (domain.PhoneHealth, error)
	// RecordPhoneHealth applies r to the number's health
	// (domain.PhoneHealth.Apply) and, when it changes anything, keeps the
	// change in the history; it returns the change and whether there was
	// one. Concurrent records of one number are serialised, so each change
	// names the value it replaced.
	RecordPhoneHealth(ctx context.Context, number string, r domain.HealthReading) (domain.HealthChange, bool, error)
	// ListPhoneHealthChanges returns the number's changes, newest first,
	// at most limit (1 to 1000).
	ListPhoneHealthChanges(ctx context.Context, number string, limit int) ([]domain.HealthChange, error)
	// ListCampaignsOnNumber returns every campaign bound to the business
	// number, in every workspace and status, by id: those a quality drop
	// pauses, and the workspaces told of it.
	ListCampaignsOnNumber(ctx context.Context, number domain.BusinessNumberID) ([]domain.Campaign, error)
}

// MessagingReachRepository counts the unique recipients that a business
// portfolio's business-initiated templates reached in the moving 24 hours
// (domain.MessagingWindow), for Meta's messaging limit. It is the store's,
// so every instance sees one count.
type MessagingReachRepository interface {
	// ReachRecipients records that templates go from the portfolio to
	// recipients, one reach after the other, and says what became of each.
	// A recipient reached in the 24 hours before its reach's At takes no
	// new place (its time moves to At); a new one takes a place when fewer
	// than its reach's Limit recipients are in the window, or always when
	// Limit is below 1. When the window is full the reach records nothing
	// and says when the oldest recipient in it leaves it. The window is
	// counted once a call, at the first reach that needs the count: a
	// call's reaches are of one moment.
	//
	// Concurrent calls for one portfolio whose reaches have a limit are
	// serialised (in a transaction, until it ends), so the count never
	// passes a limit; calls without one only wait for those with one. A
	// rollback undoes the reaches. A transaction that reaches several
	// portfolios takes them in portfolio order, or two such transactions
	// may deadlock.
	ReachRecipients(ctx context.Context, portfolio string, reaches []Reach) ([]Reached, error)
	// CountReached says how many unique recipients the portfolio reached
	// in the 24 hours before now.
	CountReached(ctx context.Context, portfolio string, now time.Time) (int, error)
	// PurgeReach deletes reaches older than the time and says how many
	// went.
	PurgeReach(ctx context.Context, before time.Time) (int, error)
}

// Reach is a template going to Recipient at At. Limit is the unique
// recipients the portfolio may have reached in the window for it to take a
// new place; below 1 it always takes one.
type Reach struct {
	Recipient string
	At        time.Time
	Limit     int
}

// Reached is what became of a Reach: whether the recipient has a place in
// the window, and when not, when the oldest place frees up.
type Reached struct {
	Reached bool
	FreesAt time.Time
}

// NumberHealthReader asks Meta for a business number's health: its quality
// rating and its business's messaging limit tier (the phone numbers
// endpoint, adapters/whatsapp).
type NumberHealthReader interface {
	// ReadNumberHealth reads the number c names, with c's access token
	// (none: the server's configured one, for its configured number). The
	// reading's Source is domain.HealthFromRead and its At zero: the caller
	// stamps it.
	ReadNumberHealth(ctx context.Context, c NumberCredentials) (domain.HealthReading, error)
}
