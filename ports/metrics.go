package ports

import (
	"context"
	"time"

	"github.com/heraldhq/herald/domain"
)

//go:generate go tool moq -rm -pkg portsmock -out portsmock/queue_stats_reader.go . QueueStatsReader

// Metrics counts what Herald does, for an operator's monitoring
// (adapters/metrics exports it to Prometheus; decision 0023). Every label
// it is given is bounded: route patterns, modes, statuses, classes, error
// codes; never a phone number, an id or a URL. Its methods are cheap and
// safe for concurrent use, and are called after the fact they count has
// happened (for a store write, after its commit). NoMetrics counts
// nothing.
type Metrics interface {
	// HTTPRequest counts one API or dashboard request: its route pattern
	// ("" when no route matched), its method and status, and how long it
	// took.
	HTTPRequest(route, method string, status int, d time.Duration)
	// SendsAccepted counts n messages accepted for sending with keys of mode.
	SendsAccepted(mode domain.KeyMode, n int)
	// MessageStatus counts a message of mode reaching status; f is its
	// failure when status is failed.
	MessageStatus(mode domain.KeyMode, status domain.MessageStatus, f *domain.Failure)
	// ProviderCall counts one call of a sender (sender is "live", Meta's
	// Cloud API, or "sandbox"): outcome is "ok" or the failure's
	// SendErrorClass, with how long it took.
	ProviderCall(sender string, outcome string, d time.Duration)
	// PacingWait counts one wait of a live send for its number's pace.
	PacingWait(d time.Duration)
	// WebhookReceived counts one of Meta's webhook calls stored (duplicate
	// when Meta sent it before).
	WebhookReceived(duplicate bool)
	// WebhookApplied counts one stored webhook event applied (err nil) or
	// failing to apply, and, when applied, the lag from each status's
	// timestamp (Meta's) to its application.
	WebhookApplied(err error, lags []time.Duration)
	// EventDelivery counts one attempt to deliver an event to a customer's
	// endpoint: its result ("2xx", "3xx", "4xx", "5xx" or "error" when no
	// answer came) and how long it took.
	EventDelivery(result string, d time.Duration)
	// EndpointDisabled counts a customer's endpoint disabled for failing
	// every attempt too long.
	EndpointDisabled()
	// StoreTx counts one transaction of the store and how long it took,
	// with its outcome.
	StoreTx(d time.Duration, err error)
}

// NoMetrics counts nothing.
type NoMetrics struct{}

func (NoMetrics) HTTPRequest(string, string, int, time.Duration)                      {}
func (NoMetrics) SendsAccepted(domain.KeyMode, int)                                   {}
func (NoMetrics) MessageStatus(domain.KeyMode, domain.MessageStatus, *domain.Failure) {}
func (NoMetrics) ProviderCall(string, string, time.Duration)                          {}
func (NoMetrics) PacingWait(time.Duration)                                            {}
func (NoMetrics) WebhookReceived(bool)                                                {}
func (NoMetrics) WebhookApplied(error, []time.Duration)                               {}
func (NoMetrics) EventDelivery(string, time.Duration)                                 {}
func (NoMetrics) EndpointDisabled()                                                   {}
func (NoMetrics) StoreTx(time.Duration, error)                                        {}

// QueueStats is the state of the send queue at one moment.
type QueueStats struct {
	// Depth is how many messages wait to be sent: queued, or released for
	// a retry, or under a dispatcher's lease.
	Depth int
	// OldestDue is the earliest due time among them; zero when Depth is 0.
	// Now minus OldestDue is how long the most overdue message has waited.
	OldestDue time.Time
}

// QueueStatsReader reads the queue's state for monitoring, cheaply (an
// index range, no row scan beyond the queue): it runs on every scrape.
type QueueStatsReader interface {
	QueueStats(ctx context.Context) (QueueStats, error)
}
