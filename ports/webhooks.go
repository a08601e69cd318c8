package ports

import (
	"time"

	"github.com/heraldhq/herald/domain"
)

//go:generate go tool moq -rm -pkg portsmock -out portsmock/webhook_decoder.go . WebhookDecoder

// WebhookDecoder authenticates Meta's webhook calls and reads their
// payloads (adapters/whatsapp).
type WebhookDecoder interface {
	// VerifySubscription answers Meta's verification handshake: nil when
	// mode is "subscribe" and token is the configured verify token,
	// domain.ErrVerificationFailed otherwise (also when none is configured).
	VerifySubscription(mode, token string) error
	// VerifySignature checks an X-Hub-Signature-256 header against the raw
	// body for each configured app secret, in constant time:
	// domain.ErrInvalidSignature when none matches or none is configured.
	VerifySignature(body []byte, header string) error
	// Decode reads a verified body. Parts it does not know are skipped;
	// an error means the body is not a webhook payload at all.
	Decode(body []byte) (WebhookBatch, error)
}

// WebhookBatch is what one webhook call reported, in payload order.
type WebhookBatch struct {
	Statuses  []StatusEvent
	Inbound   []InboundEvent
	Templates []TemplateStatusEvent
	// Preferences and Categories are users' marketing opt-outs and
	// templates' category changes (webhook_marketing.go).
	Preferences []MarketingPreferenceEvent
	Categories  []TemplateCategoryEvent
	// Errors are account-level errors (no message concerned), for the log.
	Errors []domain.Failure
	// Skipped says, one line each, what was not understood and why.
	Skipped []string
}

// InboundEvent is a message a contact sent to the business number.
type InboundEvent struct {
	// From is the sender's phone number as Meta gives it (digits, no +);
	// WaID and ProfileName come from the payload's contacts.
	From        string
	WaID        string
	ProfileName string
	Message     domain.InboundMessage
}

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
