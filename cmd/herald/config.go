package main

import (
	"flag"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Config is every setting of the binary. Each comes from a flag whose default
// is read from its HERALD_* variable, so a flag wins over the environment.
type Config struct {
	Addr                 string
	DatabaseURL          string
	DatabaseMaxOpenConns int
	WhatsAppAPIURL       string
	WhatsAppAccessToken  string
	WhatsAppPhoneID      string
	WhatsAppWABAID       string
	WhatsAppAppSecret    string
	WhatsAppVerifyToken  string
	WhatsAppMPS          int
	MediaAllowedHosts    string
	MediaAllowHTTP       bool
	RateLimit            float64
	RateBurst            int
	LogFormat            string
	LogLevel             string
	KeyCacheTTL          time.Duration
	SandboxStepDelay     time.Duration
	LeaseDuration        time.Duration
	RequestTimeout       time.Duration
}

// codec parses and prints one setting's value.
type codec struct {
	set func(string) error
	get func() string
}

// setting is one configuration value: its flag, variable, default, help,
// and how to parse and print it.
type setting struct {
	flag, env, def, usage string
	secret                bool
	set                   func(string) error
	get                   func() string
}

func settings(c *Config, logFormatDefault string) []setting {
	str := func(p *string) codec {
		return codec{func(s string) error { *p = s; return nil }, func() string { return *p }}
	}
	dur := func(p *time.Duration) codec {
		return codec{func(s string) error {
			d, err := time.ParseDuration(s)
			if err != nil || d <= 0 {
				return fmt.Errorf("%q is not a positive duration such as 30s or 1m", s)
			}
			*p = d
			return nil
		},
			func() string { return p.String() }}
	}
	num := func(p *int, lo, hi int) codec {
		return codec{func(s string) error {
			n, err := strconv.Atoi(s)
			if err != nil || n < lo || n > hi {
				return fmt.Errorf("%q is not a whole number from %d to %d", s, lo, hi)
			}
			*p = n
			return nil
		},
			func() string { return strconv.Itoa(*p) }}
	}
	boolean := func(p *bool) codec {
		return codec{func(s string) error {
			b, err := strconv.ParseBool(s)
			if err != nil {
				return fmt.Errorf("%q is not true or false", s)
			}
			*p = b
			return nil
		},
			func() string { return strconv.FormatBool(*p) }}
	}
	positive := func(p *float64) codec {
		return codec{func(s string) error {
			f, err := strconv.ParseFloat(s, 64)
			if err != nil || f <= 0 {
				return fmt.Errorf("%q is not a positive number", s)
			}
			*p = f
			return nil
		},
			func() string { return strconv.FormatFloat(*p, 'g', -1, 64) }}
	}
	oneOf := func(p *string, allowed ...string) codec {
		return codec{func(s string) error {
			for _, a := range allowed {
				if s == a {
					*p = s
					return nil
				}
			}
			return fmt.Errorf("%q is not one of %s", s, strings.Join(allowed, ", "))
		},
			func() string { return *p }}
	}
	mk := func(flag, env, def, usage string, secret bool, c codec) setting {
		return setting{flag: flag, env: env, def: def, usage: usage, secret: secret, set: c.set, get: c.get}
	}
	return []setting{
		mk("addr", "HERALD_ADDR", "127.0.0.1:8080", "listen address (port 0 picks a free port)", false, str(&c.Addr)),
		mk("database-url", "HERALD_DATABASE_URL", "sqlite:herald.db", "sqlite:PATH or postgres://…", true, str(&c.DatabaseURL)),
		mk("database-max-open-conns", "HERALD_DATABASE_MAX_OPEN_CONNS", "0", "database pool size; 0 picks 8 for SQLite, 20 for PostgreSQL", false, num(&c.DatabaseMaxOpenConns, 0, 1000)),
		mk("whatsapp-api-url", "HERALD_WHATSAPP_API_URL", "https://graph.facebook.com/v24.0", "Cloud API base, version included", false, str(&c.WhatsAppAPIURL)),
		mk("whatsapp-access-token", "HERALD_WHATSAPP_ACCESS_TOKEN", "", "Cloud API token; without it live messages go to the sandbox", true, str(&c.WhatsAppAccessToken)),
		mk("whatsapp-phone-number-id", "HERALD_WHATSAPP_PHONE_NUMBER_ID", "", "default sender number id", false, str(&c.WhatsAppPhoneID)),
		mk("whatsapp-waba-id", "HERALD_WHATSAPP_WABA_ID", "", "business account id, for template sync", false, str(&c.WhatsAppWABAID)),
		mk("whatsapp-app-secret", "HERALD_WHATSAPP_APP_SECRET", "", "webhook signature secret(s), comma-separated", true, str(&c.WhatsAppAppSecret)),
		mk("whatsapp-verify-token", "HERALD_WHATSAPP_VERIFY_TOKEN", "", "webhook verification token", true, str(&c.WhatsAppVerifyToken)),
		mk("whatsapp-mps", "HERALD_WHATSAPP_MPS", "80", "messages per second per sender number, up to 1000", false, num(&c.WhatsAppMPS, 1, 1000)),
		mk("media-allowed-hosts", "HERALD_MEDIA_ALLOWED_HOSTS", "", "host[:port] list exempt from the private-address block", false, str(&c.MediaAllowedHosts)),
		mk("media-allow-http", "HERALD_MEDIA_ALLOW_HTTP", "false", "accept plain http media URLs", false, boolean(&c.MediaAllowHTTP)),
		mk("rate-limit", "HERALD_RATE_LIMIT", "50", "requests per second per key", false, positive(&c.RateLimit)),
		mk("rate-burst", "HERALD_RATE_BURST", "100", "burst per key", false, num(&c.RateBurst, 1, 1_000_000)),
		mk("log-format", "HERALD_LOG_FORMAT", logFormatDefault, "json or console (console on a terminal)", false, oneOf(&c.LogFormat, "json", "console")),
		mk("log-level", "HERALD_LOG_LEVEL", "info", "debug, info, warn or error", false, oneOf(&c.LogLevel, "debug", "info", "warn", "error")),
		mk("key-cache-ttl", "HERALD_KEY_CACHE_TTL", "30s", "how long a verified key is trusted before it is read again", false, dur(&c.KeyCacheTTL)),
		mk("sandbox-step-delay", "HERALD_SANDBOX_STEP_DELAY", "1s", "the sandbox's pause before delivered and before read", false, dur(&c.SandboxStepDelay)),
		mk("request-timeout", "HERALD_REQUEST_TIMEOUT", "10s", "longest a request may work; a database that does not answer within it gives 503", false, dur(&c.RequestTimeout)),
		mk("lease-duration", "HERALD_LEASE_DURATION", "30s", "how long a dispatcher holds a claimed message", false, dur(&c.LeaseDuration)),
	}
}

// newFlagSet registers every setting on a flag set for command name. Values
// in the environment become the flags' defaults; a bad one is an error.
func newFlagSet(name string, getenv func(string) string, stderr io.Writer, logFormatDefault string) (*flag.FlagSet, *Config, error) {
	c := &Config{}
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	for _, s := range settings(c, logFormatDefault) {
		if err := s.set(s.def); err != nil {
			return nil, nil, fmt.Errorf("default of %s: %w", s.env, err)
		}
		if v := getenv(s.env); v != "" {
			if err := s.set(v); err != nil {
				return nil, nil, fmt.Errorf("%s: %w", s.env, err)
			}
		}
		def := s.def
		if def == "" {
			def = "none"
		}
		fs.Func(s.flag, fmt.Sprintf("%s\n(%s, default %s)", s.usage, s.env, def), s.set)
	}
	return fs, c, nil
}

// masked returns the effective settings by variable name, secrets hidden, for
// the start-up log.
func (c *Config) masked() map[string]string {
	out := map[string]string{}
	for _, s := range settings(c, c.LogFormat) {
		v := s.get()
		if s.secret && v != "" {
			if strings.Contains(v, "://") {
				v = maskURL(v)
			} else if !strings.HasPrefix(v, "sqlite:") {
				v = "****"
			}
		}
		out[s.env] = v
	}
	return out
}

// maskURL hides a URL's password.
func maskURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "****"
	}
	if u.User != nil {
		if _, ok := u.User.Password(); ok {
			u.User = url.UserPassword(u.User.Username(), "****")
		}
	}
	return u.String()
}
