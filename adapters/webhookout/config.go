package webhookout

import (
	"time"

	"github.com/heraldhq/herald/domain"
)

// Config says which endpoint URLs Herald may post to beyond public https
// hosts, and how the client behaves.
type Config struct {
	// AllowHTTP accepts plain http URLs (HERALD_WEBHOOK_ALLOW_HTTP: tests,
	// local receivers).
	AllowHTTP bool
	// AllowedHosts are "host" or "host:port" entries exempt from the
	// private-address block and dialed without the address guard
	// (HERALD_WEBHOOK_ALLOWED_HOSTS). They are compared lowercase.
	AllowedHosts []string
	// Timeout bounds one attempt: connecting, sending, and the answer's
	// status and head. Default 15 s.
	Timeout time.Duration
	// Version is Herald's version, for the User-Agent
	// (Herald-Webhooks/<version>). Default "dev".
	Version string
	// MaxIdleConnsPerHost is how many idle connections to one endpoint
	// host are kept for reuse. Default 256.
	MaxIdleConnsPerHost int
	// MaxDrain is how much of an answer's body past the head is read and
	// discarded to keep the connection; a longer body closes it. Default
	// 64 KiB.
	MaxDrain int64
}

// The defaults WithDefaults fills in.
const (
	DefaultTimeout             = 15 * time.Second
	DefaultVersion             = "dev"
	DefaultMaxIdleConnsPerHost = 256
	DefaultMaxDrain            = 64 << 10
)

// WithDefaults returns c with every zero or negative value replaced by its
// default and AllowedHosts normalised (domain.NormalizeHosts).
func (c Config) WithDefaults() Config {
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	if c.Version == "" {
		c.Version = DefaultVersion
	}
	if c.MaxIdleConnsPerHost <= 0 {
		c.MaxIdleConnsPerHost = DefaultMaxIdleConnsPerHost
	}
	if c.MaxDrain <= 0 {
		c.MaxDrain = DefaultMaxDrain
	}
	c.AllowedHosts = domain.NormalizeHosts(c.AllowedHosts)
	return c
}

// Policy is the domain's view of c, for domain.CheckWebhookURL.
func (c Config) Policy() domain.WebhookPolicy {
	return domain.WebhookPolicy{AllowHTTP: c.AllowHTTP, AllowedHosts: domain.NormalizeHosts(c.AllowedHosts)}
}
