package domain

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"
)

// EventID identifies an event told to the customer's systems: the id of a
// webhook delivery (its webhook-id header, the same on every retry) and of
// GET /v1/events/{id}.
type EventID string

// PrefixEvent is the prefix of customer-facing event ids, Stripe's
// convention.
const PrefixEvent = "evt"

// ParseEventID validates an event id; malformed ids are not found.
func ParseEventID(s string) (EventID, error) {
	if !validID(PrefixEvent, s) {
		return "", NotFound(ErrEventNotFound)
	}
	return EventID(s), nil
}

// EventType is what an event reports. The zero value is no type.
type EventType struct{ s string }

// The event types. A message event's data is the message as GET
// /v1/messages/{id} shows it when the event happens; webhook.test is sent
// to one endpoint on request and is never subscribed to.
var (
	EventMessageSent           = EventType{"message.sent"}
	EventMessageDelivered      = EventType{"message.delivered"}
	EventMessageRead           = EventType{"message.read"}
	EventMessageFailed         = EventType{"message.failed"}
	EventMessageReceived       = EventType{"message.received"}
	EventContactOptedOut       = EventType{"contact.opted_out"}
	EventContactOptedIn        = EventType{"contact.opted_in"}
	EventTemplateStatusChanged = EventType{"template.status_changed"}
	EventCampaignStatusChanged = EventType{"campaign.status_changed"}
	// EventPhoneNumberQualityChanged: Meta's quality rating of a business
	// number changed (phone_health.go).
	EventPhoneNumberQualityChanged = EventType{"phone_number.quality_changed"}
	EventWebhookTest               = EventType{"webhook.test"}
)

// EventTypes lists every event type, in the order the documentation gives
// them.
func EventTypes() []EventType {
	return []EventType{EventMessageSent, EventMessageDelivered, EventMessageRead, EventMessageFailed,
		EventMessageReceived, EventContactOptedOut, EventContactOptedIn, EventTemplateStatusChanged,
		EventCampaignStatusChanged, EventPhoneNumberQualityChanged, EventWebhookTest}
}

// ParseEventType parses an event type's name. An unknown name is
// invalid_event_type, naming it.
func ParseEventType(s string) (EventType, error) {
	for _, t := range EventTypes() {
		if s == t.s {
			return t, nil
		}
	}
	return EventType{}, unknownEventType("", s)
}

func unknownEventType(param, s string) *Error {
	return &Error{Code: CodeInvalidEventType, Param: param,
		Detail: "unknown event type " + quote(s) + "; the types are " + eventTypeNames()}
}

func eventTypeNames() string {
	names := make([]string, 0, len(EventTypes()))
	for _, t := range EventTypes() {
		names = append(names, t.s)
	}
	return strings.Join(names, ", ")
}

// quote is s in double quotes, cut to 100 characters, as a detail shows a
// value someone sent.
func quote(s string) string {
	b, _ := json.Marshal(truncateRunes(ScrubText(s), 100))
	return string(b)
}

func (t EventType) String() string { return t.s }

// IsZero reports whether t is the zero value.
func (t EventType) IsZero() bool { return t.s == "" }

// IsMessage reports whether t is one of the message.* types, whose events
// are about one message: their Subject is its id.
func (t EventType) IsMessage() bool { return strings.HasPrefix(t.s, "message.") }

// EventTypeForStatus is the event that a message reaching status s
// reports: sent, delivered, read and failed have one; queued and sending,
// which are Herald's own steps, have none.
func EventTypeForStatus(s MessageStatus) (EventType, bool) {
	switch s {
	case StatusSent:
		return EventMessageSent, true
	case StatusDelivered:
		return EventMessageDelivered, true
	case StatusRead:
		return EventMessageRead, true
	case StatusFailed:
		return EventMessageFailed, true
	}
	return EventType{}, false
}

// ParseEventTypes parses a list of event type names, such as a filter's:
// each must be known (invalid_event_type on param, naming the first that
// is not), and a name given twice counts once. The order of first
// appearance is kept; an empty list gives nil.
func ParseEventTypes(param string, names []string) ([]EventType, error) {
	var out []EventType
	for _, n := range names {
		t, err := ParseEventType(n)
		if err != nil {
			return nil, unknownEventType(param, n)
		}
		if !containsType(out, t) {
			out = append(out, t)
		}
	}
	return out, nil
}

func containsType(ts []EventType, t EventType) bool { return slices.Contains(ts, t) }

// SubscribeAll is the name that subscribes an endpoint to every event type.
const SubscribeAll = "*"

// EventSubscription is the event types an endpoint receives: every type
// ("*"), or a list. The zero value subscribes to nothing and is not a
// valid subscription.
type EventSubscription struct {
	all   bool
	types []EventType
}

// AllEvents subscribes to every event type, including those added later.
func AllEvents() EventSubscription { return EventSubscription{all: true} }

// ParseEventSubscription reads an endpoint's events as the API gives them:
// ["*"] for every type, or a list of type names. An empty list, "*" mixed
// with names, an unknown name (named in the detail) and webhook.test
// (which is sent on request to one endpoint, never by subscription) are
// refused, on param "events"; a name given twice counts once. The types
// are kept in EventTypes' order, whatever the order given, so that a
// subscription reads back from storage as it was written.
func ParseEventSubscription(names []string) (EventSubscription, error) {
	const param = "events"
	if len(names) == 0 {
		return EventSubscription{}, &Error{Code: CodeInvalidEventType, Param: param,
			Detail: `give at least one event type, or ["*"] for every type`}
	}
	if slices.Contains(names, SubscribeAll) {
		if !allStars(names) {
			return EventSubscription{}, &Error{Code: CodeInvalidEventType, Param: param,
				Detail: `"*" already subscribes to every type; give either ["*"] or a list of types`}
		}
		return AllEvents(), nil
	}
	types, err := ParseEventTypes(param, names)
	if err != nil {
		return EventSubscription{}, err
	}
	if containsType(types, EventWebhookTest) {
		return EventSubscription{}, &Error{Code: CodeInvalidEventType, Param: param,
			Detail: "webhook.test cannot be subscribed to: it is sent to one endpoint when its test is requested"}
	}
	slices.SortFunc(types, func(a, b EventType) int { return typeRank(a) - typeRank(b) })
	return EventSubscription{types: types}, nil
}

// typeRank is t's place in EventTypes.
func typeRank(t EventType) int { return slices.Index(EventTypes(), t) }

func allStars(names []string) bool {
	for _, n := range names {
		if n != SubscribeAll {
			return false
		}
	}
	return true
}

// IsZero reports whether s subscribes to nothing (the zero value).
func (s EventSubscription) IsZero() bool { return !s.all && len(s.types) == 0 }

// All reports whether s subscribes to every type.
func (s EventSubscription) All() bool { return s.all }

// Types lists the types of a list subscription, in EventTypes' order; nil
// for "*".
func (s EventSubscription) Types() []EventType { return append([]EventType(nil), s.types...) }

// Names is s as the API shows it and the stores keep it: ["*"], or the
// types' names.
func (s EventSubscription) Names() []string {
	if s.all {
		return []string{SubscribeAll}
	}
	names := make([]string, 0, len(s.types))
	for _, t := range s.types {
		names = append(names, t.s)
	}
	return names
}

// Equal reports whether s and o subscribe to the same types (go-cmp uses
// it).
func (s EventSubscription) Equal(o EventSubscription) bool {
	return s.all == o.all && slices.Equal(s.types, o.types)
}

// Matches reports whether an endpoint with subscription s receives events
// of type t by subscription. webhook.test matches none: it goes only to
// the endpoint it is sent to.
func (s EventSubscription) Matches(t EventType) bool {
	if t.IsZero() || t == EventWebhookTest {
		return false
	}
	return s.all || containsType(s.types, t)
}

// Event is something that happened in a workspace, as told to the
// customer's systems, by webhook and by the pull API. It is written in the
// same transaction as the change it reports, and never changes after.
type Event struct {
	ID        EventID
	Workspace WorkspaceID
	// Mode is the mode of the traffic that caused the event: a test key's
	// messages make test events, seen only by test keys and delivered only
	// to test-mode endpoints.
	Mode KeyMode
	Type EventType
	// Subject orders deliveries: on each endpoint, an event is not
	// delivered while an earlier event with the same non-empty Subject is
	// still being tried. A message event's Subject is the message's id.
	Subject    string
	OccurredAt time.Time
	// Body is exactly what receivers get: {"type","timestamp","data"},
	// rendered once, so that every retry and every endpoint gets the same
	// bytes, which the signature covers.
	Body []byte
	// Seq places the event in the pull API's order; 0 until the event is
	// sequenced, shortly after its transaction commits.
	Seq int64
}

// NewEvent makes an event of type t that occurred at now, whose data is
// the JSON object data. A message event needs its message's id as subject.
// The errors are a caller's mistakes, not a user's.
func NewEvent(id EventID, ws WorkspaceID, mode KeyMode, t EventType, subject string, data []byte, now time.Time) (Event, error) {
	switch {
	case t.IsZero():
		return Event{}, errors.New("domain: an event needs a type")
	case mode.IsZero():
		return Event{}, errors.New("domain: an event needs a mode")
	case t.IsMessage() && subject == "":
		return Event{}, errors.New("domain: a " + t.s + " event needs its message's id as subject")
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 || trimmed[0] != '{' || !json.Valid(trimmed) {
		return Event{}, errors.New("domain: an event's data must be a JSON object")
	}
	now = now.UTC().Truncate(time.Microsecond)
	body, err := eventBody(t, now, trimmed)
	if err != nil {
		return Event{}, err
	}
	return Event{ID: id, Workspace: ws, Mode: mode, Type: t, Subject: subject, OccurredAt: now, Body: body}, nil
}

// eventBody renders {"type","timestamp","data"} compactly, with the
// timestamp in RFC 3339 UTC as the API writes times, and text as it is
// (no HTML escaping: receivers parse JSON, not HTML).
func eventBody(t EventType, at time.Time, data []byte) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	err := enc.Encode(struct {
		Type      string          `json:"type"`
		Timestamp string          `json:"timestamp"`
		Data      json.RawMessage `json:"data"`
	}{t.s, at.Format(time.RFC3339Nano), data})
	if err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// DeliveryState is where the delivery of one event to one endpoint is.
type DeliveryState struct{ s string }

// The delivery states. Pending deliveries are tried until one attempt
// succeeds (a 2xx answer) or the retry schedule gives up.
var (
	DeliveryPending   = DeliveryState{"pending"}
	DeliverySucceeded = DeliveryState{"succeeded"}
	DeliveryGivenUp   = DeliveryState{"given_up"}
)

// ParseDeliveryState parses a stored state.
func ParseDeliveryState(s string) (DeliveryState, error) {
	for _, d := range []DeliveryState{DeliveryPending, DeliverySucceeded, DeliveryGivenUp} {
		if s == d.s {
			return d, nil
		}
	}
	return DeliveryState{}, InvalidParameter("state", "unknown delivery state "+quote(s))
}

func (d DeliveryState) String() string { return d.s }

// IsZero reports whether d is the zero value.
func (d DeliveryState) IsZero() bool { return d.s == "" }

// MaxResponseHead is how much of an endpoint's answer an attempt keeps.
const MaxResponseHead = 1024

// DeliveryAttempt is one try at delivering an event to an endpoint, as
// GET /v1/events/{id} and the dashboard show it.
type DeliveryAttempt struct {
	Event    EventID
	Endpoint WebhookEndpointID
	At       time.Time // when the request started
	// Status is the HTTP status the endpoint answered, 0 when no answer
	// came (Error says why).
	Status   int
	Duration time.Duration
	// Error says why the attempt failed without an answer: a refused
	// address, a timeout, a connection or TLS failure. Empty when an
	// answer came, whatever its status.
	Error string
	// ResponseHead is the first MaxResponseHead bytes of the answer's
	// body.
	ResponseHead []byte
}

// Succeeded reports whether the attempt delivered the event: the endpoint
// answered with a 2xx status. Anything else, a redirect included, failed.
func (a DeliveryAttempt) Succeeded() bool { return SuccessfulWebhookStatus(a.Status) }

// SuccessfulWebhookStatus reports whether an endpoint's HTTP status means
// the event was delivered: 2xx, and nothing else (a redirect is not
// followed and counts as a failure).
func SuccessfulWebhookStatus(status int) bool { return status >= 200 && status <= 299 }

// EventDelivery is the delivery of one event to one endpoint: its state
// and the attempts so far, oldest first.
type EventDelivery struct {
	Event    EventID
	Endpoint WebhookEndpointID
	State    DeliveryState
	// NextAttemptAt is when a pending delivery is due; nil otherwise, and
	// while its endpoint is disabled.
	NextAttemptAt *time.Time
	Attempts      []DeliveryAttempt
	UpdatedAt     time.Time
}
