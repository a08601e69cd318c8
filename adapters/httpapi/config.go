package httpapi

import "time"

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
	if c.MaxHeaderBytes == 0 {
		c.MaxHeaderBytes = 32 << 10
	}
	return c
}
