package httpapi

import (
	"net/netip"
	"time"
)

// Config sets the server's address, limits and timeouts.
type Config struct {
	Addr              string
	BodyLimit         int64
	WebhookBodyLimit  int64 // Meta's webhook calls: up to 3 MB of events
	ReadHeaderTimeout time.Duration
	ReadTimeout       time.Duration
	WriteTimeout      time.Duration
	IdleTimeout       time.Duration
	ShutdownTimeout   time.Duration
	MaxHeaderBytes    int
	// RequestTimeout bounds each request's work, so a database that stops
	// answering yields 503 unavailable instead of a hung request.
	RequestTimeout time.Duration
	// RateLimit and RateBurst are each API key's token bucket: requests
	// per second, and how many may come at once.
	RateLimit float64
	RateBurst int
	// AuthFailuresPerMinute is how many failed authentications one client
	// address may have per minute (and at once) before its requests are
	// refused with 429 until its bucket refills.
	AuthFailuresPerMinute int
	// TrustedProxies are the networks of the proxies in front of Herald:
	// only for a connection from one of them is the client taken from
	// X-Forwarded-For or Forwarded. None by default: the client is the
	// connection's peer.
	TrustedProxies []netip.Prefix
	// TLSCertFile and TLSKeyFile, both set, make the server serve HTTPS
	// with that certificate (PEM, the chain after the leaf) and key, read
	// at start. Neither set: plain HTTP, for loopback or behind a proxy.
	TLSCertFile, TLSKeyFile string
	// Now is the clock of the rate limiters; nil is time.Now. Tests set it.
	Now func() time.Time
}

// WithDefaults fills zero fields.
func (c Config) WithDefaults() Config {
	if c.Addr == "" {
		c.Addr = "127.0.0.1:8080"
	}
	if c.BodyLimit == 0 {
		c.BodyLimit = 64 << 10
	}
	if c.WebhookBodyLimit == 0 {
		c.WebhookBodyLimit = 4 << 20
	}
	if c.ReadHeaderTimeout == 0 {
		c.ReadHeaderTimeout = 5 * time.Second
	}
	if c.ReadTimeout == 0 {
		c.ReadTimeout = 15 * time.Second
	}
	if c.WriteTimeout == 0 {
		c.WriteTimeout = 30 * time.Second
	}
	if c.IdleTimeout == 0 {
		c.IdleTimeout = 120 * time.Second
	}
	if c.ShutdownTimeout == 0 {
		c.ShutdownTimeout = 20 * time.Second
	}
	if c.RequestTimeout == 0 {
		c.RequestTimeout = 10 * time.Second
	}
	if c.RateLimit == 0 {
		c.RateLimit = 50
	}
	if c.RateBurst == 0 {
		c.RateBurst = 100
	}
	if c.AuthFailuresPerMinute == 0 {
		c.AuthFailuresPerMinute = 20
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.MaxHeaderBytes == 0 {
		c.MaxHeaderBytes = 32 << 10
	}
	return c
}
