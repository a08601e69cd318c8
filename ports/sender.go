package ports

import (
	"context"
	"fmt"
	"time"

	"github.com/heraldhq/herald/domain"
)

//go:generate go tool moq -rm -pkg portsmock -out portsmock/whatsapp_sender.go . WhatsAppSender
//go:generate go tool moq -rm -pkg portsmock -out portsmock/status_sink.go . StatusSink
//go:generate go tool moq -rm -pkg portsmock -out portsmock/template_source.go . TemplateSource
//go:generate go tool moq -rm -pkg portsmock -out portsmock/template_author.go . TemplateAuthor

// OutboundMessage is one template message as a sender needs it.
type OutboundMessage struct {
	ID             domain.MessageID // echoed by the provider in status events
	Workspace      domain.WorkspaceID
	Mode           domain.KeyMode
	To             domain.PhoneNumber
	TemplateName   string
	Language       string
	HeaderFormat   domain.HeaderFormat
	MediaHeaderURL string
	MediaFilename  string // a document header's file name, shown to the recipient
	Variables      []string
	// Session messages: the content and the wamid quoted. MediaIDs are
	// Meta's ids of the Herald media the content names (by Herald's id)
	// and of the header links Herald uploaded (by link), filled right
	// before the send (MediaStager).
	Session  *domain.SessionContent
	ReplyTo  string
	MediaIDs map[string]string
	// Values are every slot with its value; nil for a message accepted
	// before slots, which sends Variables as the body's parameters.
	Values []domain.SlotValue
}

// SendResult is the provider's acceptance of a message.
type SendResult struct {
	ProviderID string // Meta's wamid
	WaID       string // the recipient's WhatsApp id
}

// WhatsAppSender hands template messages to WhatsApp (or the sandbox). A
// returned error is a *SendError that says how to handle it.
type WhatsAppSender interface {
	Send(ctx context.Context, m OutboundMessage) (SendResult, error)
}

// ReadMarker marks a contact's message read on WhatsApp (blue ticks),
// with the typing indicator when typing is set. Senders implement it.
type ReadMarker interface {
	MarkRead(ctx context.Context, wamid string, typing bool) error
}

// SendErrorClass says how a failed send is handled.
type SendErrorClass string

// The classes of send failure.
const (
	ClassRetryable   SendErrorClass = "retryable"    // try again later, with backoff
	ClassThrottled   SendErrorClass = "throttled"    // the sender number is over its rate
	ClassPairLimited SendErrorClass = "pair_limited" // too many messages to this recipient
	ClassPermanent   SendErrorClass = "permanent"    // the message fails with the provider's code
	ClassAuth        SendErrorClass = "auth"         // credentials are wrong: stop sending
)

// SendError is a classified send failure.
type SendError struct {
	Class      SendErrorClass
	Code       int    // the provider's error code, when it gave one
	Title      string // the provider's error title
	RetryAfter time.Duration
	// Ambiguous is set when the request was written but no answer came
	// back (a timeout or a cut connection): the provider may have accepted
	// the message, so a retry may deliver it twice.
	Ambiguous bool
	// TemplateStatus is set when the failure says the template itself
	// cannot be sent (paused or disabled by Meta): every campaign using it
	// stops at once, without waiting for the next template sync.
	TemplateStatus domain.TemplateStatus
	// MarketingStopped is set when the failure says the recipient stopped
	// the business's marketing messages (Meta's 131050): Herald records
	// it on the contact, as Meta's user_preferences webhook would.
	MarketingStopped bool
	// MediaRefused is set when the failure says the message's media
	// could not be used (Meta lost an uploaded file, or never had it for
	// this number): sent by ids, the files are uploaded again.
	MediaRefused bool
	Err          error
}

func (e *SendError) Error() string {
	s := fmt.Sprintf("send failed (%s)", e.Class)
	if e.Code != 0 {
		s += fmt.Sprintf(": %d %s", e.Code, e.Title)
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *SendError) Unwrap() error { return e.Err }

// TemplateSource reads a WhatsApp Business Account's message templates.
type TemplateSource interface {
	// Account is the business account (WABA) id the templates belong to.
	Account() string
	// ListTemplates reads every template of the account, all pages.
	ListTemplates(ctx context.Context) ([]domain.SyncedTemplate, error)
}

// StatusEvent is a provider's report that a message reached a status: from
// Meta's webhooks or from the sandbox, through the same pipeline.
type StatusEvent struct {
	MessageID  domain.MessageID // from biz_opaque_callback_data, when present
	ProviderID string           // the wamid
	Status     domain.MessageStatus
	At         time.Time
	Failure    *domain.Failure // when Status is failed
	Pricing    *domain.Pricing // when Meta reports it (on sent, and on delivered or read)
	// Number and Recipient come with Meta's webhooks only, and are not
	// kept while a status is parked: the business number (its
	// phone_number_id) and what Meta says of the recipient (recipient_id,
	// recipient_user_id, and the status's contacts: wa_id, BSUIDs,
	// username), which is recorded on the message's contact.
	Number    string
	Recipient domain.WhatsAppUser
	// MarketingStopped says the failure is Meta's refusal of a marketing
	// template to a recipient who stopped the business's marketing
	// messages (131050).
	MarketingStopped bool
}

// StatusSink takes status events and applies them to messages.
type StatusSink interface {
	RecordStatus(ctx context.Context, e StatusEvent) error
}

// TemplateAuthor submits new templates to a WhatsApp Business Account for
// Meta's review, and deletes them.
type TemplateAuthor interface {
	// Account is the business account (WABA) id templates are submitted to.
	Account() string
	// SubmitTemplate submits d, which LintTemplate has passed. A refusal
	// is a *SendError with Meta's code and title.
	SubmitTemplate(ctx context.Context, d domain.TemplateDraft) (SubmittedTemplate, error)
	// DeleteTemplate deletes every language of the template called name.
	DeleteTemplate(ctx context.Context, name string) error
}

// SubmittedTemplate is Meta's answer to a submission.
type SubmittedTemplate struct {
	ID       string
	Status   domain.TemplateStatus // PENDING, or APPROVED at once for some authentication templates
	Category string
}
