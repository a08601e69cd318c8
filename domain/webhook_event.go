package domain

import (
	"bytes"
	"time"
)

// WebhookEvent is one authenticated call of Meta's webhooks, kept exactly as
// it arrived. It is stored before it is applied, so a failure while
// applying loses nothing: the event is applied again later, or replayed.
type WebhookEvent struct {
	ID         WebhookEventID
	Body       []byte    // the raw body, the bytes Meta signed
	SHA256     string    // hex digest of Body: a redelivered body is stored once
	ReceivedAt time.Time // when it first arrived
	// AppliedAt is when the event was last applied in full; nil until it
	// has been. A replay that fails later leaves it set: the earlier
	// application happened.
	AppliedAt *time.Time
	Attempts  int    // how many times applying it was tried
	LastError string // why the last attempt failed; empty after one that succeeded
}

// NewWebhookEvent makes the stored form of a verified body.
func NewWebhookEvent(id WebhookEventID, body []byte, digest string, now time.Time) WebhookEvent {
	return WebhookEvent{ID: id, Body: bytes.Clone(body), SHA256: digest, ReceivedAt: now.UTC().Truncate(time.Microsecond)}
}

// Applied records a successful application at now.
func (e *WebhookEvent) Applied(now time.Time) {
	now = now.UTC().Truncate(time.Microsecond)
	e.AppliedAt = &now
	e.Attempts++
	e.LastError = ""
}

// Failed records a failed application and why.
func (e *WebhookEvent) Failed(why string) {
	e.Attempts++
	e.LastError = truncateRunes(ScrubText(why), 1000)
}
