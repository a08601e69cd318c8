package httpapi

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"

	"go.uber.org/zap"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// Codes owned by the transport and by infrastructure.
const (
	CodeInvalidJSON          domain.Code = "invalid_json"
	CodeMissingParameter     domain.Code = "missing_parameter"
	CodeMissingAPIKey        domain.Code = "missing_api_key"
	CodePayloadTooLarge      domain.Code = "payload_too_large"
	CodeUnsupportedMediaType domain.Code = "unsupported_media_type"
	CodeRateLimited          domain.Code = "rate_limited"
	CodeNotFound             domain.Code = "not_found"
	CodeMethodNotAllowed     domain.Code = "method_not_allowed"
	CodeUnavailable          domain.Code = "unavailable"
	CodeInternal             domain.Code = "internal_error"
)

// problemTypeBase prefixes every problem type: the error's entry in the docs.
const problemTypeBase = "https://github.com/heraldhq/herald/blob/main/docs/errors.md#"

type statusTitle struct {
	status int
	title  string
}

// statuses is the only code-to-status table.
var statuses = map[domain.Code]statusTitle{
	CodeInvalidJSON:                   {400, "Invalid JSON"},
	CodeMissingParameter:              {400, "Missing parameter"},
	domain.CodeInvalidIdempotencyKey:  {400, "Invalid idempotency key"},
	CodeMissingAPIKey:                 {401, "Missing API key"},
	domain.CodeInvalidAPIKey:          {401, "Invalid API key"},
	domain.CodeInvalidSignature:       {401, "Invalid signature"},
	domain.CodeVerificationFailed:     {403, "Verification failed"},
	domain.CodeCampaignNotFound:       {404, "Campaign not found"},
	domain.CodeContactNotFound:        {404, "Contact not found"},
	domain.CodeMessageNotFound:        {404, "Message not found"},
	domain.CodeKeyNotFound:            {404, "API key not found"},
	domain.CodeWorkspaceNotFound:      {404, "Workspace not found"},
	domain.CodeTemplateNotFound:       {404, "Template not found"},
	domain.CodeWebhookEventNotFound:   {404, "Webhook event not found"},
	CodeNotFound:                      {404, "Not found"},
	CodeMethodNotAllowed:              {405, "Method not allowed"},
	domain.CodeCampaignNotActive:      {409, "Campaign not active"},
	domain.CodeContactOptedOut:        {409, "Contact opted out"},
	domain.CodeInvalidTransition:      {409, "Invalid transition"},
	domain.CodeConflict:               {409, "Conflict"},
	domain.CodeIdempotencyInFlight:    {409, "Idempotent request in flight"},
	CodePayloadTooLarge:               {413, "Payload too large"},
	CodeUnsupportedMediaType:          {415, "Unsupported media type"},
	domain.CodeInvalidPhoneNumber:     {422, "Invalid phone number"},
	domain.CodeVariablesMismatch:      {422, "Variables mismatch"},
	domain.CodeMediaHeaderRequired:    {422, "Media header required"},
	domain.CodeMediaHeaderNotAllowed:  {422, "Media header not allowed"},
	domain.CodeInvalidMediaURL:        {422, "Invalid media URL"},
	domain.CodeUnsupportedMediaFormat: {422, "Unsupported media format"},
	domain.CodeMediaUnreachable:       {422, "Media unreachable"},
	domain.CodeInvalidParameter:       {422, "Invalid parameter"},
	domain.CodeTemplateInvalid:        {422, "Template invalid"},
	domain.CodeIdempotencyKeyReused:   {422, "Idempotency key reused"},
	domain.CodeOutsideServiceWindow:   {422, "Outside service window"},
	CodeRateLimited:                   {429, "Rate limited"},
	domain.CodeDailySendCapReached:    {429, "Daily send cap reached"},
	domain.CodeMessagingLimitReached:  {429, "Messaging limit reached"},
	// Events to the customer's systems: webhook endpoints and events.
	domain.CodeWebhookEndpointNotFound: {404, "Webhook endpoint not found"},
	domain.CodeEventNotFound:           {404, "Event not found"},
	domain.CodeInvalidWebhookURL:       {422, "Invalid webhook URL"},
	domain.CodeInvalidEventType:        {422, "Invalid event type"},
	// Business numbers.
	domain.CodePhoneNumberNotFound: {404, "Phone number not found"},
	domain.CodePhoneNumberRequired: {422, "Phone number required"},
	// The dashboard's codes: /v1 never answers them, but every code has a
	// status.
	domain.CodeInvalidCredentials: {401, "Invalid credentials"},
	domain.CodeSessionNotFound:    {401, "Not signed in"},
	domain.CodeOperatorNotFound:   {404, "Operator not found"},
	CodeInternal:                  {500, "Internal error"},
	CodeUnavailable:               {503, "Service unavailable"},
	// A live key on a server without Meta's Cloud API: nothing to retry
	// until the operator configures it, so no Retry-After.
	domain.CodeWhatsAppNotConfigured: {503, "WhatsApp not configured"},
	domain.CodeMediaNotFound:         {404, "Media not found"},
	domain.CodeMediaTooLarge:         {422, "Media too large"},
}

// statusFor returns the HTTP status and title for a code; an unknown code is
// a bug and answers 500.
func statusFor(code domain.Code) (int, string) {
	if st, ok := statuses[code]; ok {
		return st.status, st.title
	}
	return http.StatusInternalServerError, statuses[CodeInternal].title
}

// problem is the RFC 9457 body.
type problem struct {
	Type      string `json:"type"`
	Title     string `json:"title"`
	Status    int    `json:"status"`
	Detail    string `json:"detail"`
	Code      string `json:"code"`
	Param     string `json:"param,omitempty"`
	RequestID string `json:"requestId"`
	// WindowClosedAt comes with outside_service_window: when the
	// contact's customer-service window closed (absent when it never
	// opened).
	WindowClosedAt string `json:"windowClosedAt,omitempty"`
	// FreesAt comes with messaging_limit_reached: when the oldest
	// recipient leaves the moving 24 hours, and a marketing send to a new
	// recipient may be made again.
	FreesAt string `json:"freesAt,omitempty"`
	// Errors are every finding of a refused template (template_invalid).
	Errors []findingDTO `json:"errors,omitempty"`
}

// The one detail for every refused key, so the answer never tells which check
// failed.
const (
	invalidKeyDetail = "the API key is not valid: it is malformed, unknown, revoked or expired"
	missingKeyDetail = "send your API key in the X-API-KEY header"
)

// writeError answers err as a problem. Domain errors keep their code, param
// and detail; an unreachable store is 503; anything else is a 500 whose cause
// is logged here, once, and never sent.
func writeError(w http.ResponseWriter, r *http.Request, log *zap.Logger, err error) {
	var de *domain.Error
	switch {
	case errors.Is(err, domain.ErrInvalidAPIKey):
		reason := err
		var ke *domain.KeyAuthError
		if errors.As(err, &ke) {
			reason = ke.Reason
		}
		log.Info("api key refused", zap.String("request_id", requestID(r.Context())), zap.String("reason", reason.Error()))
		w.Header().Set("WWW-Authenticate", `ApiKey header="X-API-KEY"`)
		writeProblem(w, r, domain.CodeInvalidAPIKey, "", invalidKeyDetail)
	case errors.As(err, &de):
		var re *domain.RetryableError
		if errors.As(err, &re) {
			w.Header().Set("Retry-After", strconv.Itoa(retryAfterSeconds(re.After)))
		}
		var ml *domain.MessagingLimitError
		if errors.As(err, &ml) {
			writeProblemWith(w, r, de.Code, de.Param, de.Detail, func(p *problem) { p.FreesAt = rfc3339(ml.FreesAt) })
			return
		}
		var wc *domain.WindowClosedError
		if errors.As(err, &wc) && !wc.ClosedAt.IsZero() {
			writeProblemWith(w, r, de.Code, de.Param, de.Detail, func(p *problem) { p.WindowClosedAt = rfc3339(wc.ClosedAt) })
			return
		}
		if ti, ok := errors.AsType[*domain.TemplateInvalidError](err); ok {
			writeProblemWith(w, r, de.Code, de.Param, de.Detail, func(p *problem) { p.Errors = toFindingDTOs(ti.Findings) })
			return
		}
		writeProblem(w, r, de.Code, de.Param, de.Detail)
	case errors.Is(err, ports.ErrUnavailable):
		log.Warn("store unavailable", zap.String("request_id", requestID(r.Context())), zap.Error(err))
		w.Header().Set("Retry-After", "1")
		writeProblem(w, r, CodeUnavailable, "", "the service cannot reach its database; nothing was stored, retry shortly")
	default:
		log.Error("internal error", zap.String("request_id", requestID(r.Context())), zap.Error(err))
		writeProblem(w, r, CodeInternal, "", "something went wrong on our side; quote the request id when reporting it")
	}
}

// retryAfterSeconds rounds d up to whole seconds, at least 1, for
// Retry-After.
func retryAfterSeconds(d time.Duration) int {
	return max(1, int((d+time.Second-1)/time.Second))
}

// writeProblem writes a problem with the given code.
func writeProblem(w http.ResponseWriter, r *http.Request, code domain.Code, param, detail string) {
	writeProblemWith(w, r, code, param, detail, nil)
}

// writeProblemWith answers a problem with extension members set by ext.
func writeProblemWith(w http.ResponseWriter, r *http.Request, code domain.Code, param, detail string, ext func(*problem)) {
	status, title := statusFor(code)
	if detail == "" {
		detail = title
	}
	p := problem{Type: problemTypeBase + string(code), Title: title, Status: status, Detail: detail,
		Code: string(code), Param: param, RequestID: requestID(r.Context())}
	if ext != nil {
		ext(&p)
	}
	b, _ := json.Marshal(p)
	h := w.Header()
	h.Set("Content-Type", "application/problem+json")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}
