package ports

import (
	"time"

	"github.com/heraldhq/herald/domain"
)

// NumberHealthEvent is Meta's word on a business number's health: a
// phone_number_quality_update (the number, by its display number in
// digits, was flagged or unflagged, or its business's messaging limit
// changed) or a business_capability_update (the limit of every number of
// the account's business changed; DisplayNumber is empty).
type NumberHealthEvent struct {
	Account string // the entry id: the WhatsApp Business Account
	// DisplayNumber is the number as Meta names it here, digits only:
	// quality webhooks carry no phone_number_id.
	DisplayNumber string
	// Event is Meta's event name as sent (FLAGGED, UNFLAGGED, UPGRADE,
	// DOWNGRADE, ONBOARDING, …); empty for a capability update.
	Event string
	// Quality is the rating the event implies: RED for FLAGGED, UNKNOWN
	// for UNFLAGGED (no longer low; the next read from Meta says which),
	// zero when the event says nothing of quality.
	Quality domain.QualityRating
	// Tier is the business's messaging limit the event reports; zero when
	// it reports none Herald can read.
	Tier domain.MessagingTier
	At   time.Time
}

// AccountEvent is Meta's word on a WhatsApp Business Account or one of its
// numbers that Herald records without acting on it yet: an account_update
// (a restriction, a ban, an offboarding, …) or an account_alerts alert.
type AccountEvent struct {
	Account string // the entry id (for partner events, waba_info.waba_id)
	Field   string // account_update or account_alerts
	// Event is account_update's event, or the alert's type.
	Event string
	// Severity and Status are an alert's (CRITICAL, WARNING,
	// INFORMATIONAL; ACTIVE or NONE); EntityType and EntityID what it is
	// about.
	Severity, Status     string
	EntityType, EntityID string
	Description          string
	At                   time.Time
}
