package media

import (
	"time"

	"github.com/heraldhq/herald/domain"
)

// Config says which media URLs Herald may fetch beyond public https hosts,
// and how hard it tries.
type Config struct {
	// AllowHTTP accepts plain http URLs (tests, intranets).
	AllowHTTP bool
	// AllowedHosts are "host" or "host:port" entries exempt from the
	// private-address block and dialed without the address guard. They
	// are compared lowercase.
	AllowedHosts []string
	// Timeout bounds one whole fetch: connecting, redirects, headers and
	// reading. Default 10 s.
	Timeout time.Duration
	// CacheTTL is how long a successful inspection is reused. Default 10 min.
	CacheTTL time.Duration
	// FailureTTL is how long a refused or failed inspection is reused.
	// Default 1 min.
	FailureTTL time.Duration
	// CacheSize bounds the number of cached outcomes. Default 10,000.
	CacheSize int
	// MaxConcurrent bounds the fetches running at once. Default 16.
	MaxConcurrent int
	// MaxConcurrentPerWorkspace bounds the fetches one workspace's callers
	// run at once, so that one workspace cannot hold every slot. Default
	// half of MaxConcurrent, at least 1.
	MaxConcurrentPerWorkspace int
	// MaxConcurrentPerKey bounds the fetches one key runs at once, so that
	// one key (a test key left in a CI job) cannot hold its workspace's
	// share. Default half of MaxConcurrentPerWorkspace, at least 1.
	MaxConcurrentPerKey int
	// SlotWait is how long a fetch waits for a slot before the inspection
	// is refused (media_unreachable, retryable). Default 2 s.
	SlotWait time.Duration
}

// The defaults WithDefaults fills in.
const (
	DefaultTimeout       = 10 * time.Second
	DefaultCacheTTL      = 10 * time.Minute
	DefaultFailureTTL    = time.Minute
	DefaultCacheSize     = 10_000
	DefaultMaxConcurrent = 16
	DefaultSlotWait      = 2 * time.Second
)

// WithDefaults returns c with every zero or negative limit replaced by its
// default and AllowedHosts normalised (lowercase, no trailing dot, no
// brackets around a bare IPv6 address, empty entries dropped).
func (c Config) WithDefaults() Config {
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	if c.CacheTTL <= 0 {
		c.CacheTTL = DefaultCacheTTL
	}
	if c.FailureTTL <= 0 {
		c.FailureTTL = DefaultFailureTTL
	}
	if c.CacheSize <= 0 {
		c.CacheSize = DefaultCacheSize
	}
	if c.MaxConcurrent <= 0 {
		c.MaxConcurrent = DefaultMaxConcurrent
	}
	if c.MaxConcurrentPerWorkspace <= 0 {
		c.MaxConcurrentPerWorkspace = max(1, c.MaxConcurrent/2)
	}
	if c.MaxConcurrentPerKey <= 0 {
		c.MaxConcurrentPerKey = max(1, c.MaxConcurrentPerWorkspace/2)
	}
	if c.SlotWait <= 0 {
		c.SlotWait = DefaultSlotWait
	}
	c.AllowedHosts = domain.NormalizeHosts(c.AllowedHosts)
	return c
}

// Policy is the domain's view of c, for domain.CheckMediaURL.
func (c Config) Policy() domain.MediaPolicy {
	return domain.MediaPolicy{AllowHTTP: c.AllowHTTP, AllowedHosts: domain.NormalizeHosts(c.AllowedHosts)}
}
