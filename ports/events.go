package ports

import (
	"context"
	"errors"
	"time"

	"github.com/heraldhq/herald/domain"
)

//go:generate go tool moq -rm -pkg portsmock -out portsmock/event_writer.go . EventWriter
//go:generate go tool moq -rm -pkg portsmock -out portsmock/event_repository.go . EventRepository
//go:generate go tool moq -rm -pkg portsmock -out portsmock/endpoint_repository.go . EndpointRepository
//go:generate go tool moq -rm -pkg portsmock -out portsmock/delivery_queue.go . DeliveryQueue
//go:generate go tool moq -rm -pkg portsmock -out portsmock/event_poster.go . EventPoster
//go:generate go tool moq -rm -pkg portsmock -out portsmock/event_renderer.go . EventRenderer

// Events to the customer's systems (issue 26, decision 0020). Herald writes
// an event in the same transaction as the change it reports, with one
// pending delivery per subscribed endpoint (a transactional outbox); a
// worker claims due deliveries under a lease, posts them signed, and
// records each attempt; the pull API lists events in the order a
// sequencer gives them after commit. The repository conventions of
// repositories.go hold here too: workspace and mode filter every read
// (another workspace's or mode's object is not found), the zero mode
// reads every mode (the dashboard), times are UTC with microsecond
// precision, ErrUnavailable (wrapped) means the store could not be
// reached.

// ErrDeliveryLeaseLost means a worker's lease on a delivery ended and the
// delivery was claimed again (or redelivered); the first worker must not
// record anything about it.
var ErrDeliveryLeaseLost = errors.New("delivery lease lost")

// EventWriter appends events inside the transaction of the change they
// report (Repos.Events), so that a change that rolls back leaves no event
// and no delivery.
//
// The order in which events are appended, across transactions and within
// one call (es in order), is the store's own (an insertion sequence), not
// the ids', which come from the clocks of several instances. It orders
// the sequencer (EventRepository.SequenceEvents) and, per endpoint and
// subject, the deliveries (DeliveryQueue): a delivery's place is its
// event's, whenever the delivery itself was made (Recover, Redeliver).
type EventWriter interface {
	// AppendEvents stores es, unsequenced (their Seq is ignored), and, in
	// the same transaction, one pending delivery of each event to every
	// endpoint of the event's workspace and mode that is enabled and
	// whose subscription matches the event's type
	// (domain.EventSubscription.Matches: "*" or the type listed), with no
	// attempt yet. A delivery is due at the event's OccurredAt, or, when
	// an earlier delivery to the same endpoint with the same non-empty
	// subject is pending and due later, at that time: it waits for that
	// one anyway. Disabled endpoints get no delivery (Recover sends them
	// what they missed). An id stored already is domain.ErrConflict;
	// webhook.test events are refused (AppendEventTo sends them); either
	// way nothing is stored. Without events it does nothing.
	AppendEvents(ctx context.Context, es ...domain.Event) error
	// AppendEventTo stores e and one pending delivery of it, due at its
	// OccurredAt, to the endpoint only, whatever its subscription: an
	// endpoint's test event. The endpoint must be one of e's workspace and
	// mode (domain.ErrWebhookEndpointNotFound otherwise, and nothing is
	// stored). A disabled endpoint's delivery waits, as every delivery of
	// a disabled endpoint does, until it is enabled.
	AppendEventTo(ctx context.Context, e domain.Event, endpoint domain.WebhookEndpointID) error
}

// EventFilter selects events for the pull API, in sequence order.
type EventFilter struct {
	// AfterSeq keeps events whose Seq is greater (the cursor); 0 starts
	// from the oldest kept.
	AfterSeq int64
	// Types, when not empty, keeps events of these types.
	Types []domain.EventType
	// Limit caps the page; zero or less means DefaultEventLimit.
	Limit int
}

// DefaultEventLimit is the page of events, and of an endpoint's attempts,
// that a caller asking for no limit gets.
const DefaultEventLimit = 100

// EventRepository reads and maintains stored events.
type EventRepository interface {
	// GetEvent returns one of the workspace's events of mode, sequenced or
	// not, or domain.ErrEventNotFound.
	GetEvent(ctx context.Context, ws domain.WorkspaceID, mode domain.KeyMode, id domain.EventID) (domain.Event, error)
	// ListEvents returns up to f.Limit of the workspace's sequenced events
	// of mode matching f, by Seq ascending. Events not sequenced yet are
	// never listed, so a reader that pages with the last Seq it saw never
	// skips an event whose transaction committed late: that event gets a
	// Seq greater than every Seq given before it was sequenced.
	ListEvents(ctx context.Context, ws domain.WorkspaceID, mode domain.KeyMode, f EventFilter) ([]domain.Event, error)
	// SequenceEvents gives a Seq to up to limit committed events that have
	// none, across workspaces, in the order they were appended (see
	// EventWriter), and says how many it sequenced; limit zero or less
	// sequences none. The Seqs given are consecutive, the first one more
	// than the last ever given (even when every event since was purged):
	// no Seq is given twice, and none is smaller than one a reader may
	// already have seen. Concurrent callers, on any number of instances,
	// take turns (on PostgreSQL under a transaction-scoped advisory lock;
	// SQLite has one writer).
	SequenceEvents(ctx context.Context, limit int) (int, error)
	// PurgeEvents removes up to limit events that occurred before before,
	// oldest first, across workspaces, with their deliveries and attempts,
	// and says how many events went; callers repeat until fewer than limit
	// go. Concurrent callers remove different events.
	PurgeEvents(ctx context.Context, before time.Time, limit int) (int, error)
}

// EndpointRepository stores webhook endpoints with their subscriptions
// and secrets. Secrets are stored newest first (by CreatedAt; equal times
// keep the order given) and read back so.
type EndpointRepository interface {
	// CreateEndpoint stores a new endpoint; an id stored already is
	// domain.ErrConflict.
	CreateEndpoint(ctx context.Context, e domain.WebhookEndpoint) error
	// GetEndpoint returns one of the workspace's endpoints of mode, or
	// domain.ErrWebhookEndpointNotFound.
	GetEndpoint(ctx context.Context, ws domain.WorkspaceID, mode domain.KeyMode, id domain.WebhookEndpointID) (domain.WebhookEndpoint, error)
	// ListEndpoints returns the workspace's endpoints of mode, oldest
	// first.
	ListEndpoints(ctx context.Context, ws domain.WorkspaceID, mode domain.KeyMode) ([]domain.WebhookEndpoint, error)
	// UpdateEndpoint runs fn on the endpoint; every field but its id,
	// workspace, mode and creation time is stored as fn leaves it
	// (subscription and secrets replaced, secrets kept newest first).
	// Disabling the endpoint takes its pending deliveries' due times away
	// (domain.EventDelivery.NextAttemptAt nil): they wait. Enabling it
	// makes those without one due at its new UpdatedAt, each in its
	// current series of attempts.
	UpdateEndpoint(ctx context.Context, ws domain.WorkspaceID, mode domain.KeyMode, id domain.WebhookEndpointID, fn func(*domain.WebhookEndpoint) error) (domain.WebhookEndpoint, error)
	// DeleteEndpoint removes the endpoint with its subscription, secrets,
	// deliveries and attempts; the events stay. An unknown id is
	// domain.ErrWebhookEndpointNotFound.
	DeleteEndpoint(ctx context.Context, ws domain.WorkspaceID, mode domain.KeyMode, id domain.WebhookEndpointID) error
}

// DeliveryClaim asks for due deliveries on behalf of one worker.
type DeliveryClaim struct {
	Owner      string    // who holds the lease
	Now        time.Time // deliveries due at or before Now are claimed
	LeaseUntil time.Time // the lease ends then unless the attempt is recorded
	Limit      int
}

// ClaimedDelivery is a delivery leased to a worker: the event, the
// endpoint as it is now (URL, secrets), and the number of this attempt in
// the current series (1 for the first; Redeliver and Recover start a new
// series).
type ClaimedDelivery struct {
	Event    domain.Event
	Endpoint domain.WebhookEndpoint
	Attempt  int
}

// AttemptRecord is the outcome of one attempt, for RecordAttempt.
type AttemptRecord struct {
	// Owner and Attempt fence the record: they must be the claim's.
	Owner   string
	Attempt int
	// What happened (Event and Endpoint name the delivery).
	domain.DeliveryAttempt
	// State is the delivery's state after the attempt: succeeded, given
	// up, or pending again, due at RetryAt.
	State   domain.DeliveryState
	RetryAt time.Time
}

// AttemptOutcome is what RecordAttempts did with one record: the endpoint
// as the record left it, or the record's own error.
type AttemptOutcome struct {
	Endpoint domain.WebhookEndpoint
	Err      error
}

// DeliveryQueue hands due deliveries to workers under a lease and keeps
// what each attempt came to.
type DeliveryQueue interface {
	// ClaimDeliveries leases up to Limit due deliveries, oldest due first
	// (then in their events' order): pending ones, due at or before Now,
	// whose lease is absent or expired, of enabled endpoints, and that no
	// earlier pending delivery holds back. An earlier pending delivery
	// (its event appended before, see EventWriter) to the same endpoint
	// with the same non-empty subject holds a delivery back, whether it is
	// due, leased, waiting for a retry or waiting for its disabled
	// endpoint: on each endpoint, a message's events are delivered in
	// order, each only after the one before succeeded or was given up;
	// other subjects and other endpoints are not held back. Each claimed
	// delivery's attempt number goes up by one. Two concurrent claims, on
	// any number of instances, never return the same delivery. Limit zero
	// or less claims none.
	ClaimDeliveries(ctx context.Context, c DeliveryClaim) ([]ClaimedDelivery, error)
	// RecordAttempt, in one transaction, stores the attempt (kept for GET
	// /v1/events/{id}: its Duration to the microsecond, its response head
	// cut to domain.MaxResponseHead), ends the lease and moves the delivery
	// to r.State: succeeded, given up, or pending again due at r.RetryAt
	// (without a due time while its endpoint is disabled). A retry also
	// makes the later pending deliveries to the endpoint with the same
	// non-empty subject due no earlier than r.RetryAt: they wait for this
	// one. The delivery's UpdatedAt becomes the attempt's end (At plus
	// Duration). When endpoint is not nil, it is run on the delivery's
	// endpoint and a change it makes is stored as UpdateEndpoint stores it
	// (the disabling rule: domain.WebhookEndpoint.RecordAttempt); it may
	// run more than once, each time on the endpoint as stored, and must
	// depend on nothing else. RecordAttempt returns the endpoint as it is
	// after. It is fenced: if the delivery is no longer leased to r.Owner
	// for r.Attempt (its lease expired and it was claimed again, or its
	// endpoint or event was deleted), nothing changes and the error is
	// ErrDeliveryLeaseLost. A zero r.State, or pending without a RetryAt,
	// is a caller's mistake and an error.
	RecordAttempt(ctx context.Context, r AttemptRecord, endpoint func(*domain.WebhookEndpoint) error) (domain.WebhookEndpoint, error)
	// RecordAttempts records many attempts, in order, each as RecordAttempt
	// records one, in one transaction: one commit for what a worker's
	// concurrent attempts came to. endpoint, when not nil, is run for each
	// record on its delivery's endpoint as the records before it left it.
	// Each record has its outcome, at its index: the endpoint after it, or
	// the record's own error (ErrDeliveryLeaseLost, or a caller's mistake
	// as RecordAttempt refuses it); such a record changes nothing and
	// holds none of the others back. Any other failure, endpoint's
	// included, stores none of them and is returned. No records is no
	// transaction.
	RecordAttempts(ctx context.Context, recs []AttemptRecord, endpoint func(AttemptRecord, *domain.WebhookEndpoint) error) ([]AttemptOutcome, error)
	// ListDeliveries returns the deliveries of one of the workspace's
	// events of mode, each with its attempts oldest first (by At, then as
	// recorded), ordered by endpoint id; domain.ErrEventNotFound when
	// there is no such event.
	ListDeliveries(ctx context.Context, ws domain.WorkspaceID, mode domain.KeyMode, id domain.EventID) ([]domain.EventDelivery, error)
	// ListEndpointAttempts returns up to limit (zero or less:
	// DefaultEventLimit) of an endpoint's most recent attempts, newest
	// first (by At, then the last recorded first), for the dashboard;
	// domain.ErrWebhookEndpointNotFound when there is no such endpoint.
	ListEndpointAttempts(ctx context.Context, ws domain.WorkspaceID, mode domain.KeyMode, id domain.WebhookEndpointID, limit int) ([]domain.DeliveryAttempt, error)
	// Redeliver sends one of the workspace's events of mode again, now:
	// to endpoint only when it is not empty (one of the workspace's of
	// mode, whatever its subscription), otherwise to every enabled
	// endpoint whose subscription matches the event's type, or, for a
	// webhook.test event, to the endpoint it was sent to. A delivery that
	// succeeded or was given up becomes pending, due at now, in a new
	// series of attempts (its past attempts are kept); one still pending
	// is left as it is; a missing one is appended, due at now. A disabled
	// endpoint's delivery waits, without a due time, until it is enabled.
	// It returns how many deliveries it made pending;
	// domain.ErrEventNotFound or domain.ErrWebhookEndpointNotFound when
	// there is no such event or endpoint.
	Redeliver(ctx context.Context, ws domain.WorkspaceID, mode domain.KeyMode, id domain.EventID, endpoint domain.WebhookEndpointID, now time.Time) (int, error)
	// Recover makes every given-up delivery to one of the workspace's
	// endpoints of mode whose event occurred at or after since pending
	// again, due at now, in a new series of attempts, and appends a
	// delivery, due at now, of each event of the workspace and mode since
	// then that the endpoint's subscription matches and that it never got
	// (it was disabled, or subscribed later). A disabled endpoint's
	// deliveries wait, without a due time, until it is enabled. It
	// returns how many deliveries it made pending;
	// domain.ErrWebhookEndpointNotFound when there is no such endpoint.
	Recover(ctx context.Context, ws domain.WorkspaceID, mode domain.KeyMode, id domain.WebhookEndpointID, since, now time.Time) (int, error)
}

// WebhookRequest is one delivery attempt as an EventPoster sends it.
type WebhookRequest struct {
	URL string
	// ID, Timestamp and Signature are the Standard Webhooks headers:
	// webhook-id (the event id), webhook-timestamp (Timestamp in Unix
	// seconds) and webhook-signature (domain.SignWebhook's, computed for
	// this Timestamp).
	ID        domain.EventID
	Timestamp time.Time
	Signature string
	Body      []byte // the event's Body, sent as application/json
}

// PostResult is the endpoint's answer to one attempt.
type PostResult struct {
	// Status is the HTTP status, whatever it is: redirects are not
	// followed, and a 3xx is the answer.
	Status int
	// Duration is how long the attempt took, also when it failed.
	Duration time.Duration
	// ResponseHead is the start of the answer's body, at most
	// domain.MaxResponseHead bytes.
	ResponseHead []byte
}

// EventPoster delivers events over HTTP to the customer's endpoints
// (adapters/webhookout), guarded against server-side request forgery.
type EventPoster interface {
	// CheckURL applies domain.CheckWebhookURL under the poster's policy
	// and, for a host it does not exempt, resolves the name and refuses
	// it when an address it resolves to may not be called (loopback,
	// private, link-local, …): a domain error, invalid_webhook_url on
	// url. A name that does not resolve now is accepted; its attempts
	// will say so. For saving an endpoint's URL.
	CheckURL(ctx context.Context, rawURL string) error
	// Post sends r by POST with the Standard Webhooks headers and waits at
	// most the poster's timeout (15 s) for the answer. Any answer is a
	// result without error, whatever its status; a delivery succeeded
	// when it is 2xx (domain.SuccessfulWebhookStatus). An error means no
	// answer came: the URL or the address it resolves to may not be
	// called (checked when dialing, so a name that now points inward is
	// refused), the name did not resolve, the connection or TLS failed,
	// or the timeout passed; its text is meant for the attempt's record,
	// which the customer reads, and Duration is set. When ctx ends first,
	// the error wraps ctx's, so the caller can tell an attempt it cut
	// short (shutdown) from the endpoint's failure.
	Post(ctx context.Context, r WebhookRequest) (PostResult, error)
}

// TemplateStatusChange is a template's review status change as a
// template.status_changed event of one workspace reports it.
type TemplateStatusChange struct {
	Name     string
	Language string
	Previous domain.TemplateStatus // zero when Herald had no status for it
	Status   domain.TemplateStatus
	Reason   string // Meta's, when it gave one
	// Campaigns are the workspace's campaigns that send the template.
	Campaigns []domain.CampaignID
	At        time.Time
}

// EventRenderer renders the data of events, the JSON object under a
// body's "data", from domain values, in the API's representations
// (adapters/httpapi owns them), so that the app renders an event inside
// the transaction that writes it without knowing the API's shapes. Each
// returns a JSON object.
type EventRenderer interface {
	// RenderMessage is the data of message.sent, delivered, read and
	// failed: m as GET /v1/messages/{id} shows it, with its mode.
	RenderMessage(m domain.Message) ([]byte, error)
	// RenderInbound is the data of message.received: the inbound thread
	// entry and its contact.
	RenderInbound(e domain.Entry, c domain.Contact) ([]byte, error)
	// RenderContact is the data of contact.opted_out and
	// contact.opted_in: c as the contacts API shows it.
	RenderContact(c domain.Contact) ([]byte, error)
	// RenderTemplateStatus is the data of template.status_changed.
	RenderTemplateStatus(ch TemplateStatusChange) ([]byte, error)
	// RenderNumberQuality is the data of phone_number.quality_changed:
	// the number and its change of quality (and tier).
	RenderNumberQuality(n domain.BusinessNumber, ch domain.HealthChange) ([]byte, error)
	// RenderCampaignStatus is the data of campaign.status_changed: c as
	// GET /v1/campaigns/{id} shows it, and the status it had before.
	RenderCampaignStatus(c domain.Campaign, previous domain.CampaignStatus) ([]byte, error)
	// RenderTest is the data of webhook.test sent to endpoint e.
	RenderTest(e domain.WebhookEndpoint) ([]byte, error)
}
