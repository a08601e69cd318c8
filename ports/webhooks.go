package ports

import (
	"time"

	"github.com/heraldhq/herald/domain"
)

//go:generate go tool moq -rm -pkg portsmock -out portsmock/webhook_verifier.go . WebhookVerifier
//go:generate go tool moq -rm -pkg portsmock -out portsmock/webhook_decoder.go . WebhookDecoder
//go:generate go tool moq -rm -pkg portsmock -out portsmock/business_numbers.go . BusinessNumbers

// WebhookVerifier authenticates Meta's webhook calls (adapters/whatsapp):
// the subscription handshake and the signature over each call's raw body.
type WebhookVerifier interface {
	// VerifySubscription answers Meta's verification handshake: nil when
	// mode is "subscribe" and token is the configured verify token,
	// domain.ErrVerificationFailed otherwise (also when none is configured).
	VerifySubscription(mode, token string) error
	// VerifySignature checks an X-Hub-Signature-256 header against the raw
	// body for each configured app secret, in constant time:
	// domain.ErrInvalidSignature when none matches or none is configured.
	VerifySignature(body []byte, header string) error
}

// WebhookDecoder reads the payloads of Meta's webhook calls
// (adapters/whatsapp).
type WebhookDecoder interface {
	// Decode reads a verified body. Parts it does not know are skipped;
	// an error means the body is not a webhook payload at all.
	Decode(body []byte) (WebhookBatch, error)
}

// BusinessNumbers says which WhatsApp business numbers this Herald sends
// from. Meta reports every number of a business account (and of an app) to
// one webhook: events for the others, another tool's, are stored but not
// applied.
type BusinessNumbers interface {
	// IsOurs reports whether phoneNumberID, Meta's id of a business
	// number (webhooks' metadata.phone_number_id), is one of them.
	IsOurs(phoneNumberID string) bool
}

// WebhookBatch is what one webhook call reported, in payload order.
type WebhookBatch struct {
	Statuses  []StatusEvent
	Inbound   []InboundEvent
	Templates []TemplateStatusEvent
	// IdentityChanges are WhatsApp's notices that a user changed their
	// number or their business-scoped user id.
	IdentityChanges []IdentityChangeEvent
	// Preferences and Categories are users' marketing opt-outs and
	// templates' category changes (whatsapp's decode_marketing.go).
	Preferences []MarketingPreferenceEvent
	Categories  []TemplateCategoryEvent
	// Health and Accounts are numbers' quality and messaging limit
	// changes and account notices (whatsapp's decode_health.go).
	Health   []NumberHealthEvent
	Accounts []AccountEvent
	// Errors are account-level errors (no message concerned), for the log.
	Errors []domain.Failure
	// Skipped says, one line each, what was not understood and why.
	Skipped []string
}

// InboundEvent is a message a contact sent to the business number.
type InboundEvent struct {
	// Number is the business number it was sent to (Meta's
	// phone_number_id).
	Number string
	// From is the sender's phone number as Meta gives it (digits, no +),
	// absent for a user known only by their business-scoped user id;
	// WaID, ProfileName, UserID, ParentUserID and Username come from the
	// payload's contacts and the message's from_user_id.
	From         string
	WaID         string
	ProfileName  string
	UserID       string
	ParentUserID string
	Username     string
	Message      domain.InboundMessage
}

// User is what the event says about its sender: wa_id (from when the
// contacts carry none), BSUIDs, username and profile name.
func (e InboundEvent) User() domain.WhatsAppUser {
	waID := e.WaID
	if waID == "" {
		waID = e.From
	}
	return domain.WhatsAppUser{WaID: waID, UserID: e.UserID, ParentUserID: e.ParentUserID, Username: e.Username,
		ProfileName: e.ProfileName}
}

// IdentityChangeEvent is WhatsApp's notice (a system message) that a user
// changed their number (Kind user_changed_number: New carries the new
// wa_id, and BSUIDs, which change with the number) or their business-scoped
// user id (user_changed_user_id). Old is who they were: the message's from
// and from_user_id.
type IdentityChangeEvent struct {
	Number     string // the business number (phone_number_id)
	Kind       string
	Old, New   domain.WhatsAppUser
	ProviderID string // the notice's wamid
	At         time.Time
}

// The kinds of identity change.
const (
	UserChangedNumber = "user_changed_number"
	UserChangedUserID = "user_changed_user_id"
)

// TemplateStatusEvent is Meta's report that a template's review status
// changed.
type TemplateStatusEvent struct {
	Account  string // the WhatsApp Business Account id (the entry id)
	Name     string
	Language string // in canonical form (domain.CanonicalLanguage): Meta also writes pt-BR for pt_BR
	// Status is the template's status now, in Herald's terms: REINSTATED
	// and UNARCHIVED are APPROVED again.
	Status domain.TemplateStatus
	Event  string // Meta's event name, as sent
	Reason string
	At     time.Time
}

// AppSecretSource gives the app secrets of the Meta apps stored as data
// (in clear, held in memory only), beside those the configuration names:
// a webhook call signed by any of them is Meta's.
type AppSecretSource interface {
	AppSecrets() [][]byte
}
