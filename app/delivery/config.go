package delivery

import (
	"time"

	"github.com/heraldhq/herald/domain"
)

// Config tunes delivery. cmd/herald fills it from flags and HERALD_*
// variables; zero fields take the defaults below.
type Config struct {
	DispatchBatch       int           // messages claimed at once
	DispatchConcurrency int           // sends in flight at once
	DispatchPoll        time.Duration // how often the dispatcher looks for due messages when not woken
	LeaseDuration       time.Duration // how long a claimed message is held before others may take it
	MaxAttempts         int           // send attempts before a message fails
	MaxMessageAge       time.Duration // a message not sent within this age fails
	LiveMPS             int           // messages per second to the live sender number (Meta: 80 by default, up to 1,000)
	AuthPause           time.Duration // how long live sends stop after Meta refuses the credentials
	WebhookRetryEvery   time.Duration // how often webhook events that failed to apply are tried again
	WebhookMaxAttempts  int           // automatic tries of one webhook event; `herald webhooks replay` goes beyond
	ParkedStatusTTL     time.Duration // how long a status for an unknown wamid waits for its message
	// TemplateAccount is the configured business account
	// (HERALD_WHATSAPP_WABA_ID): campaigns whose number names no account,
	// and those without a number, use its templates.
	TemplateAccount string
	// OptKeywords are the words that opt a contact out or back in; the
	// zero value means STOP and UNSUBSCRIBE out, START in.
	OptKeywords domain.OptKeywords
	// KeepMarketingOnRed keeps marketing campaigns sending when their
	// number's quality turns RED (HERALD_PAUSE_ON_RED=false); by default
	// they pause by themselves.
	KeepMarketingOnRed bool
	// HealthRefresh is how often each number's health is read from Meta
	// (also once at start).
	HealthRefresh time.Duration
}

// WithDefaults fills zero fields with defaults.
func (c Config) WithDefaults() Config {
	set := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	seti := func(d *int, v int) {
		if *d == 0 {
			*d = v
		}
	}
	seti(&c.DispatchBatch, 64)
	set(&c.DispatchPoll, time.Second)
	set(&c.LeaseDuration, 30*time.Second)
	seti(&c.MaxAttempts, 10)
	set(&c.MaxMessageAge, 24*time.Hour)
	seti(&c.LiveMPS, 80)
	// Enough sends in flight to keep the pace with Meta answering in up to
	// a quarter of a second: 1,000 msg/s needs 250.
	seti(&c.DispatchConcurrency, max(32, c.LiveMPS/4))
	set(&c.AuthPause, time.Minute)
	set(&c.WebhookRetryEvery, time.Minute)
	seti(&c.WebhookMaxAttempts, 10)
	// Meta keeps trying to deliver a message for 30 days.
	set(&c.ParkedStatusTTL, 30*24*time.Hour)
	set(&c.HealthRefresh, time.Hour)
	if c.OptKeywords.IsZero() {
		c.OptKeywords = domain.DefaultOptKeywords()
	}
	return c
}
