package app

import (
	"time"

	"github.com/heraldhq/herald/domain"
)

// Config tunes the use cases that answer the API, the dashboard and the
// CLI; delivery.Config tunes what happens after a message is accepted.
// cmd/herald fills it from flags and HERALD_* variables; zero fields take
// the defaults below.
type Config struct {
	KeyCacheTTL        time.Duration // how long a verified key is trusted before it is read again
	KeyNegativeTTL     time.Duration // how long an unknown identifier is remembered
	KeyCacheSize       int           // most keys cached at once
	LastUsedFlushEvery time.Duration // how often last-used times are written, in one batch
	TemplateRefresh    time.Duration // how often the server syncs templates from Meta (and once at start)
	// Media is what media header URLs may name beyond public https hosts.
	Media domain.MediaPolicy
	// AutoUploadMedia fetches media header links once, uploads them to
	// Meta and sends them by id (HERALD_MEDIA_UPLOAD=auto), so Meta never
	// fetches the customer's host.
	AutoUploadMedia bool
	// DailySendCap, when above 0, is how many sends each workspace may
	// have accepted per UTC day in each mode; more are refused until
	// midnight UTC.
	DailySendCap int
	// SendGuardPurgeEvery is how often expired Idempotency-Keys and old
	// daily send counts are deleted.
	SendGuardPurgeEvery time.Duration
	// WhatsAppPhoneNumberID and WhatsAppWABAID are the number the
	// HERALD_WHATSAPP_* settings define, stored at start as a number
	// every workspace may use (EnsureEnvNumber).
	WhatsAppPhoneNumberID string
	WhatsAppWABAID        string
}

// WithDefaults fills zero fields with defaults.
func (c Config) WithDefaults() Config {
	set := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	set(&c.KeyCacheTTL, 30*time.Second)
	set(&c.KeyNegativeTTL, 10*time.Second)
	if c.KeyCacheSize == 0 {
		c.KeyCacheSize = 10000
	}
	set(&c.LastUsedFlushEvery, 10*time.Second)
	set(&c.TemplateRefresh, 15*time.Minute)
	set(&c.SendGuardPurgeEvery, time.Hour)
	return c
}
