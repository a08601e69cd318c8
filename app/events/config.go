package events

import "time"

// Config tunes event delivery and retention.
type Config struct {
	// Retention is how long events are kept (HERALD_EVENT_RETENTION):
	// older ones are purged with their deliveries and attempts. Default 30
	// days.
	Retention time.Duration
	// DisableAfter is how long an endpoint may fail every attempt before
	// it is disabled (HERALD_WEBHOOK_DISABLE_AFTER). Default 5 days.
	DisableAfter time.Duration
	// Concurrency is how many attempts run at once
	// (HERALD_WEBHOOK_CONCURRENCY). Default 64.
	Concurrency int
	// Lease is how long a claimed delivery is the worker's before another
	// may claim it: longer than an attempt (the poster's 15 s) and its
	// record. Default 1 min.
	Lease time.Duration
	// Poll is how often the worker looks for due deliveries (retries,
	// other instances' events) when nothing wakes it. Default 1 s.
	Poll time.Duration
	// SequenceBatch is how many events one step of the sequencer numbers.
	// Default 1,000.
	SequenceBatch int
	// PurgeEvery is how often old events are purged, and PurgeBatch how
	// many go per statement. Defaults 1 h and 1,000.
	PurgeEvery time.Duration
	PurgeBatch int
}

// The defaults WithDefaults fills in.
const (
	DefaultRetention     = 30 * 24 * time.Hour
	DefaultDisableAfter  = 5 * 24 * time.Hour
	DefaultConcurrency   = 64
	DefaultLease         = time.Minute
	DefaultPoll          = time.Second
	DefaultSequenceBatch = 1000
	DefaultPurgeEvery    = time.Hour
	DefaultPurgeBatch    = 1000
)

// WithDefaults returns c with every zero or negative value replaced by its
// default.
func (c Config) WithDefaults() Config {
	if c.Retention <= 0 {
		c.Retention = DefaultRetention
	}
	if c.DisableAfter <= 0 {
		c.DisableAfter = DefaultDisableAfter
	}
	if c.Concurrency <= 0 {
		c.Concurrency = DefaultConcurrency
	}
	if c.Lease <= 0 {
		c.Lease = DefaultLease
	}
	if c.Poll <= 0 {
		c.Poll = DefaultPoll
	}
	if c.SequenceBatch <= 0 {
		c.SequenceBatch = DefaultSequenceBatch
	}
	if c.PurgeEvery <= 0 {
		c.PurgeEvery = DefaultPurgeEvery
	}
	if c.PurgeBatch <= 0 {
		c.PurgeBatch = DefaultPurgeBatch
	}
	return c
}
