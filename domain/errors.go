package domain

import (
	"errors"
	"fmt"
	"strconv"
	"time"
)

// Code is a stable, snake_case error code. Its value is the wire code that
// clients see in problem+json bodies; it never changes once released.
type Code string

// The codes owned by the domain. Transport codes (invalid_json, …) belong to
// the HTTP adapter and infrastructure codes to ports.
const (
	CodeInvalidAPIKey          Code = "invalid_api_key"
	CodeInvalidPhoneNumber     Code = "invalid_phone_number"
	CodeCampaignNotFound       Code = "campaign_not_found"
	CodeContactNotFound        Code = "contact_not_found"
	CodeMessageNotFound        Code = "message_not_found"
	CodeKeyNotFound            Code = "key_not_found"
	CodeWorkspaceNotFound      Code = "workspace_not_found"
	CodeTemplateNotFound       Code = "template_not_found"
	CodeWebhookEventNotFound   Code = "webhook_event_not_found"
	CodeInvalidSignature       Code = "invalid_signature"
	CodeVerificationFailed     Code = "verification_failed"
	CodeCampaignNotActive      Code = "campaign_not_active"
	CodeContactOptedOut        Code = "contact_opted_out"
	CodeVariablesMismatch      Code = "variables_mismatch"
	CodeMediaHeaderRequired    Code = "media_header_required"
	CodeMediaHeaderNotAllowed  Code = "media_header_not_allowed"
	CodeInvalidMediaURL        Code = "invalid_media_url"
	CodeUnsupportedMediaFormat Code = "unsupported_media_format"
	CodeMediaUnreachable       Code = "media_unreachable"
	CodeInvalidParameter       Code = "invalid_parameter"
	CodeInvalidTransition      Code = "invalid_transition"
	CodeConflict               Code = "conflict"
	CodeInvalidIdempotencyKey  Code = "invalid_idempotency_key"
	CodeIdempotencyInFlight    Code = "idempotency_in_flight"
	CodeIdempotencyKeyReused   Code = "idempotency_key_reused"
	CodeDailySendCapReached    Code = "daily_send_cap_reached"
	CodeInvalidCredentials     Code = "invalid_credentials"
	CodeSessionNotFound        Code = "session_not_found"
	CodeOperatorNotFound       Code = "operator_not_found"
	CodeWhatsAppNotConfigured  Code = "whatsapp_not_configured"
	// Session messages.
	CodeOutsideServiceWindow Code = "outside_service_window"
	// CodeTemplateInvalid refuses a new template Meta's review would
	// refuse: the error's Findings say every reason.
	CodeTemplateInvalid Code = "template_invalid"
	// Events to the customer's systems.
	CodeWebhookEndpointNotFound Code = "webhook_endpoint_not_found"
	CodeEventNotFound           Code = "event_not_found"
	CodeInvalidWebhookURL       Code = "invalid_webhook_url"
	CodeInvalidEventType        Code = "invalid_event_type"
	// CodePhoneNumberNotFound: no business number with this id that the
	// workspace may use; CodePhoneNumberRequired: the workspace may use
	// several numbers and the request names none.
	CodePhoneNumberNotFound Code = "phone_number_not_found"
	CodePhoneNumberRequired Code = "phone_number_required"

	CodeMediaNotFound Code = "media_not_found"
	CodeMediaTooLarge Code = "media_too_large"
)

// Codes lists every code the domain defines, so the HTTP adapter's tests can
// prove each has a status.
func Codes() []Code {
	return []Code{
		CodeInvalidAPIKey, CodeInvalidPhoneNumber, CodeCampaignNotFound,
		CodeContactNotFound, CodeMessageNotFound, CodeKeyNotFound,
		CodeWorkspaceNotFound, CodeTemplateNotFound, CodeWebhookEventNotFound,
		CodeInvalidSignature, CodeVerificationFailed, CodeCampaignNotActive, CodeContactOptedOut,
		CodeVariablesMismatch, CodeMediaHeaderRequired, CodeMediaHeaderNotAllowed,
		CodeInvalidMediaURL, CodeUnsupportedMediaFormat, CodeMediaUnreachable,
		CodeInvalidParameter, CodeInvalidTransition, CodeConflict,
		CodeInvalidIdempotencyKey, CodeIdempotencyInFlight, CodeIdempotencyKeyReused,
		CodeDailySendCapReached, CodeInvalidCredentials, CodeSessionNotFound, CodeOperatorNotFound,
		CodeWhatsAppNotConfigured, CodeOutsideServiceWindow, CodeTemplateInvalid,
		CodeWebhookEndpointNotFound, CodeEventNotFound, CodeInvalidWebhookURL, CodeInvalidEventType,
		CodePhoneNumberNotFound, CodePhoneNumberRequired, CodeMessagingLimitReached, CodeMediaNotFound, CodeMediaTooLarge,
	}
}

// Error is a domain error with a stable code, the offending parameter when
// there is one, and a human-readable detail.
type Error struct {
	Code   Code
	Param  string
	Detail string
}

func (e *Error) Error() string {
	s := string(e.Code)
	if e.Param != "" {
		s += " (" + e.Param + ")"
	}
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// Is reports whether target is a domain error with the same code, so
// errors.Is(err, ErrCampaignNotFound) holds whatever the param or detail.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// Sentinels, one per code, for errors.Is.
var (
	ErrInvalidAPIKey         = &Error{Code: CodeInvalidAPIKey, Detail: "the API key is not valid"}
	ErrInvalidPhoneNumber    = &Error{Code: CodeInvalidPhoneNumber}
	ErrCampaignNotFound      = &Error{Code: CodeCampaignNotFound, Detail: "no campaign with this id"}
	ErrContactNotFound       = &Error{Code: CodeContactNotFound, Detail: "no contact with this phone number or id"}
	ErrMessageNotFound       = &Error{Code: CodeMessageNotFound, Detail: "no message with this id"}
	ErrMediaNotFound         = &Error{Code: CodeMediaNotFound, Detail: "no media with this id"}
	ErrKeyNotFound           = &Error{Code: CodeKeyNotFound, Detail: "no API key with this id"}
	ErrWorkspaceNotFound     = &Error{Code: CodeWorkspaceNotFound, Detail: "no workspace with this id"}
	ErrTemplateNotFound      = &Error{Code: CodeTemplateNotFound, Detail: "no synced template with this name and language"}
	ErrWebhookEventNotFound  = &Error{Code: CodeWebhookEventNotFound, Detail: "no webhook event with this id"}
	ErrInvalidSignature      = &Error{Code: CodeInvalidSignature, Detail: "the X-Hub-Signature-256 header does not match the body for any configured app secret"}
	ErrVerificationFailed    = &Error{Code: CodeVerificationFailed, Detail: "hub.mode must be subscribe and hub.verify_token must match the configured verify token"}
	ErrCampaignNotActive     = &Error{Code: CodeCampaignNotActive}
	ErrContactOptedOut       = &Error{Code: CodeContactOptedOut, Detail: "the recipient opted out of messages"}
	ErrVariablesMismatch     = &Error{Code: CodeVariablesMismatch}
	ErrMediaHeaderRequired   = &Error{Code: CodeMediaHeaderRequired}
	ErrMediaHeaderNotAllowed = &Error{Code: CodeMediaHeaderNotAllowed}
	ErrInvalidMediaURL       = &Error{Code: CodeInvalidMediaURL}
	ErrUnsupportedMediaFmt   = &Error{Code: CodeUnsupportedMediaFormat}
	ErrMediaUnreachable      = &Error{Code: CodeMediaUnreachable}
	ErrInvalidParameter      = &Error{Code: CodeInvalidParameter}
	ErrInvalidTransition     = &Error{Code: CodeInvalidTransition}
	ErrConflict              = &Error{Code: CodeConflict}
	ErrInvalidCredentials    = &Error{Code: CodeInvalidCredentials, Detail: "the email address or the password is wrong"}
	ErrSessionNotFound       = &Error{Code: CodeSessionNotFound, Detail: "not signed in, or the sign-in has ended"}
	ErrOperatorNotFound      = &Error{Code: CodeOperatorNotFound, Detail: "no operator with this email address or id"}
	// ErrWhatsAppNotConfigured refuses a live send on a server that has no
	// WhatsApp Cloud API number to send it from: a live message only ever
	// goes to Meta, never to the sandbox.
	ErrWhatsAppNotConfigured = &Error{Code: CodeWhatsAppNotConfigured,
		Detail: "live messages go only to WhatsApp, and this server has no WhatsApp Cloud API number configured"}
	// Events to the customer's systems.
	ErrWebhookEndpointNotFound = &Error{Code: CodeWebhookEndpointNotFound, Detail: "no webhook endpoint with this id"}
	ErrEventNotFound           = &Error{Code: CodeEventNotFound, Detail: "no event with this id"}
	ErrInvalidWebhookURL       = &Error{Code: CodeInvalidWebhookURL}
	ErrInvalidEventType        = &Error{Code: CodeInvalidEventType}
	ErrPhoneNumberNotFound     = &Error{Code: CodePhoneNumberNotFound, Detail: "no phone number with this id that this workspace may use"}
	ErrPhoneNumberRequired     = &Error{Code: CodePhoneNumberRequired}
	// ErrOutsideServiceWindow matches every refusal of a session message
	// outside the contact's customer-service window.
	ErrOutsideServiceWindow = &Error{Code: CodeOutsideServiceWindow}
)

// notFound are the errors that say an object does not exist, or is another
// workspace's (which callers cannot tell apart).
var notFound = []*Error{ErrCampaignNotFound, ErrContactNotFound, ErrMessageNotFound, ErrKeyNotFound,
	ErrWorkspaceNotFound, ErrTemplateNotFound, ErrWebhookEventNotFound, ErrSessionNotFound, ErrOperatorNotFound,
	ErrWebhookEndpointNotFound, ErrEventNotFound, ErrPhoneNumberNotFound, ErrMediaNotFound}

// IsNotFound reports whether err is, or wraps, one of the not-found errors
// (ErrCampaignNotFound, ErrContactNotFound, …): what a page or an answer
// shows as "there is nothing here".
func IsNotFound(err error) bool {
	for _, nf := range notFound {
		if errors.Is(err, nf) {
			return true
		}
	}
	return false
}

// NotFound returns the not-found error for what, keeping the sentinel's
// detail. Repositories use it so every adapter answers alike.
func NotFound(sentinel *Error) *Error { return &Error{Code: sentinel.Code, Detail: sentinel.Detail} }

// InvalidParameter reports a bad value of a named parameter.
func InvalidParameter(param, detail string) *Error {
	return &Error{Code: CodeInvalidParameter, Param: param, Detail: detail}
}

// TemplateInvalidError refuses a new template (CodeTemplateInvalid) for
// every one of its findings. It unwraps to its *Error, so code that
// handles domain errors handles it too; code that shows the findings
// looks for it first.
type TemplateInvalidError struct {
	Err      *Error
	Findings []LintFinding
}

func (e *TemplateInvalidError) Error() string { return e.Err.Error() }

func (e *TemplateInvalidError) Unwrap() error { return e.Err }

// TemplateInvalid refuses a new template for every one of findings.
func TemplateInvalid(findings []LintFinding) *TemplateInvalidError {
	detail := "the template breaks " + strconv.Itoa(len(findings)) + " of Meta's rules; errors lists each"
	if len(findings) == 1 {
		detail = "the template breaks one of Meta's rules: " + findings[0].Path + ": " + findings[0].Message
	}
	return &TemplateInvalidError{Err: &Error{Code: CodeTemplateInvalid, Detail: detail}, Findings: findings}
}

// VariablesMismatch reports a wrong number of template variables.
func VariablesMismatch(want, got int) *Error {
	return &Error{Code: CodeVariablesMismatch, Param: "variables",
		Detail: fmt.Sprintf("the template has %d placeholder%s but %d variable%s given",
			want, plural(want), got, pluralVerb(got))}
}

// VariableInvalid reports a bad value at a 1-based placeholder position.
func VariableInvalid(position int, why string) *Error {
	return &Error{Code: CodeVariablesMismatch, Param: "variables",
		Detail: "variable {{" + strconv.Itoa(position) + "}} " + why}
}

// CampaignNotActive says which status the campaign is in.
func CampaignNotActive(status CampaignStatus) *Error {
	return &Error{Code: CodeCampaignNotActive, Param: "campaignId",
		Detail: "the campaign is " + status.String() + "; only active campaigns send"}
}

// InvalidTransition says that an object cannot move from one state to another.
func InvalidTransition(what, from, to string) *Error {
	return &Error{Code: CodeInvalidTransition,
		Detail: fmt.Sprintf("a %s cannot go from %s to %s", what, from, to)}
}

func pluralVerb(n int) string {
	if n == 1 {
		return " was"
	}
	return "s were"
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// RetryableError is a domain error after which the same request may succeed
// once After has passed; the HTTP adapter says so with Retry-After.
type RetryableError struct {
	Err   *Error
	After time.Duration
}

func (e *RetryableError) Error() string { return e.Err.Error() }

// Unwrap returns the domain error, so errors.Is and errors.As see its code.
func (e *RetryableError) Unwrap() error { return e.Err }

// DailySendCapReached says the workspace has accepted its cap of sends in
// mode today (UTC); sends resume at the next UTC midnight, after resume.
func DailySendCapReached(limit int, mode KeyMode, resume time.Duration) *RetryableError {
	return &RetryableError{After: resume, Err: &Error{Code: CodeDailySendCapReached,
		Detail: fmt.Sprintf("this workspace has accepted its daily cap of %d %s-mode send%s today (UTC); sends resume at midnight UTC",
			limit, mode, plural(limit))}}
}
