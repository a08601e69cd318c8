package main

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/heraldhq/herald/adapters/media"
	"github.com/heraldhq/herald/adapters/system"
	"github.com/heraldhq/herald/adapters/webhookout"
	"github.com/heraldhq/herald/app/events"
	"github.com/heraldhq/herald/domain"
)

// Config is every setting of the binary. Each is read from its HERALD_*
// variable; the commands that expose it as a flag let the flag win over the
// variable (herald serve exposes every setting, the other commands the few
// they are about: settingsFlags).
type Config struct {
	Addr                 string
	DebugAddr            string
	MetricsAddr          string
	DatabaseURL          string
	DatabaseMaxOpenConns int
	WhatsAppAPIURL       string
	WhatsAppAccessToken  string
	WhatsAppPhoneID      string
	WhatsAppWABAID       string
	WhatsAppAppSecret    string
	WhatsAppVerifyToken  string
	SecretKey            string
	SecretKeyFile        string
	SecretKeyPrevious    string
	OptOutKeywords       string
	OptInKeywords        string
	WhatsAppMPS          int
	TemplateRefresh      time.Duration
	MediaAllowedHosts    string
	MediaAllowHTTP       bool
	PauseOnRed           bool
	MediaMaxFetches      int
	MediaUpload          string // link or auto
	MediaCacheDir        string
	MediaCacheMax        int64
	RateLimit            float64
	RateBurst            int
	DailySendCap         int
	LogFormat            string
	LogLevel             string
	KeyCacheTTL          time.Duration
	SandboxStepDelay     time.Duration
	LeaseDuration        time.Duration
	RequestTimeout       time.Duration
	DashboardSecure      bool
	// DashboardMaxPasswordChecks bounds the sign-ins' password checks
	// running at once (each holds 32 MiB).
	DashboardMaxPasswordChecks int
	TrustedProxies             string
	TLSCertFile                string
	TLSKeyFile                 string
	EventRetention             time.Duration
	WebhookDisableAfter        time.Duration
	WebhookAllowHTTP           bool
	WebhookAllowedHosts        string
	WebhookConcurrency         int

	// logFormatDefault is HERALD_LOG_FORMAT's default: console on a
	// terminal, json otherwise.
	logFormatDefault string
}

// codec parses and prints one setting's value. typ names the value in
// --help (--addr host:port); a boolean one's flag needs no argument
// (--media-allow-http).
type codec struct {
	set    func(string) error
	get    func() string
	typ    string
	isBool bool
}

// setting is one configuration value: its flag, variable, default, help,
// and how to parse and print it.
type setting struct {
	flag, env, def, usage string
	secret, isBool        bool
	typ                   string
	set                   func(string) error
	get                   func() string
}

// help is the setting's line in --help.
func (s setting) help() string {
	def := s.def
	if def == "" {
		def = "none"
	}
	return fmt.Sprintf("%s\n(%s, default %s)", s.usage, s.env, def)
}

func settings(c *Config, logFormatDefault string) []setting {
	str := func(p *string) codec {
		return codec{set: func(s string) error { *p = s; return nil }, get: func() string { return *p }, typ: "string"}
	}
	dur := func(p *time.Duration) codec {
		return codec{set: func(s string) error {
			d, err := time.ParseDuration(s)
			if err != nil || d <= 0 {
				return fmt.Errorf("%q is not a positive duration such as 30s or 1m", s)
			}
			*p = d
			return nil
		},
			get: func() string { return p.String() }, typ: "duration"}
	}
	num := func(p *int, lo, hi int) codec {
		return codec{set: func(s string) error {
			n, err := strconv.Atoi(s)
			if err != nil || n < lo || n > hi {
				return fmt.Errorf("%q is not a whole number from %d to %d", s, lo, hi)
			}
			*p = n
			return nil
		},
			get: func() string { return strconv.Itoa(*p) }, typ: "int"}
	}
	boolean := func(p *bool) codec {
		return codec{set: func(s string) error {
			b, err := strconv.ParseBool(s)
			if err != nil {
				return fmt.Errorf("%q is not true or false", s)
			}
			*p = b
			return nil
		},
			get: func() string { return strconv.FormatBool(*p) }, typ: "bool", isBool: true}
	}
	positive := func(p *float64) codec {
		return codec{set: func(s string) error {
			f, err := strconv.ParseFloat(s, 64)
			if err != nil || f <= 0 {
				return fmt.Errorf("%q is not a positive number", s)
			}
			*p = f
			return nil
		},
			get: func() string { return strconv.FormatFloat(*p, 'g', -1, 64) }, typ: "number"}
	}
	size := func(p *int64) codec {
		return codec{set: func(s string) error {
			n, err := parseSize(s)
			if err != nil {
				return err
			}
			*p = n
			return nil
		},
			get: func() string { return strconv.FormatInt(*p, 10) }, typ: "size"}
	}
	oneOf := func(p *string, allowed ...string) codec {
		return codec{set: func(s string) error {
			for _, a := range allowed {
				if s == a {
					*p = s
					return nil
				}
			}
			return fmt.Errorf("%q is not one of %s", s, strings.Join(allowed, ", "))
		},
			get: func() string { return *p }, typ: "string"}
	}
	addr := func(p *string) codec {
		return codec{set: func(s string) error {
			_, port, err := net.SplitHostPort(s)
			if n, perr := strconv.Atoi(port); err != nil || perr != nil || n < 0 || n > 65535 {
				return fmt.Errorf("%q is not host:port, such as 127.0.0.1:8080 or :8080", s)
			}
			*p = s
			return nil
		},
			get: func() string { return *p }, typ: "host:port"}
	}
	optionalAddr := func(p *string) codec { // empty turns the listener off
		a := addr(p)
		return codec{set: func(s string) error {
			if s == "" {
				*p = ""
				return nil
			}
			return a.set(s)
		}, get: a.get, typ: a.typ}
	}
	database := func(p *string) codec {
		return codec{set: func(s string) error {
			if err := checkDatabaseURL(s); err != nil {
				return err
			}
			*p = s
			return nil
		},
			get: func() string { return *p }, typ: "url"}
	}
	baseURL := func(p *string) codec {
		return codec{set: func(s string) error {
			u, err := url.Parse(s)
			if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
				return fmt.Errorf("%q is not an absolute http(s) URL", s)
			}
			*p = s
			return nil
		},
			get: func() string { return *p }, typ: "url"}
	}
	hosts := func(p *string) codec {
		return codec{set: func(s string) error {
			for _, h := range splitList(s) {
				if err := checkAllowedHost(h); err != nil {
					return err
				}
			}
			*p = s
			return nil
		},
			get: func() string { return *p }, typ: "list"}
	}
	proxies := func(p *string) codec {
		return codec{set: func(s string) error {
			if _, err := parsePrefixes(s); err != nil {
				return err
			}
			*p = s
			return nil
		},
			get: func() string { return *p }, typ: "list"}
	}
	keywords := func(p *string) codec {
		return codec{set: func(s string) error {
			if _, err := domain.NewOptKeywords(splitList(s), nil); err != nil {
				return fmt.Errorf("%q: %s", s, err.(*domain.Error).Detail)
			}
			*p = s
			return nil
		},
			get: func() string { return *p }, typ: "list"}
	}
	mk := func(flag, env, def, usage string, secret bool, c codec) setting {
		return setting{flag: flag, env: env, def: def, usage: usage, secret: secret, isBool: c.isBool, typ: c.typ, set: c.set, get: c.get}
	}
	return []setting{
		mk("addr", "HERALD_ADDR", "127.0.0.1:8080", "listen address (port 0 picks a free port)", false, addr(&c.Addr)),
		mk("debug-addr", "HERALD_DEBUG_ADDR", "", "address of the profiler (net/http/pprof), e.g. 127.0.0.1:6060; keep it on loopback; empty is off", false, optionalAddr(&c.DebugAddr)),
		mk("metrics-addr", "HERALD_METRICS_ADDR", "", "address of the Prometheus metrics (GET /metrics), e.g. 127.0.0.1:9464; keep it on loopback or a network only Prometheus reaches; empty is off", false, optionalAddr(&c.MetricsAddr)),
		mk("database-url", "HERALD_DATABASE_URL", "sqlite:herald.db", "sqlite:PATH or postgres://…", true, database(&c.DatabaseURL)),
		mk("database-max-open-conns", "HERALD_DATABASE_MAX_OPEN_CONNS", "0", "database pool size; 0 picks 8 for SQLite, 20 for PostgreSQL", false, num(&c.DatabaseMaxOpenConns, 0, 1000)),
		mk("whatsapp-api-url", "HERALD_WHATSAPP_API_URL", "https://graph.facebook.com/v24.0", "Cloud API base, version included", false, baseURL(&c.WhatsAppAPIURL)),
		mk("whatsapp-access-token", "HERALD_WHATSAPP_ACCESS_TOKEN", "", "Cloud API token; without it (or the phone number id) live sends answer 503 whatsapp_not_configured", true, str(&c.WhatsAppAccessToken)),
		mk("whatsapp-phone-number-id", "HERALD_WHATSAPP_PHONE_NUMBER_ID", "", "default sender number id", false, str(&c.WhatsAppPhoneID)),
		mk("whatsapp-waba-id", "HERALD_WHATSAPP_WABA_ID", "", "business account id, for template sync", false, str(&c.WhatsAppWABAID)),
		mk("whatsapp-template-refresh", "HERALD_WHATSAPP_TEMPLATE_REFRESH", "15m", "how often the server syncs templates from Meta, after one sync at start", false, dur(&c.TemplateRefresh)),
		mk("whatsapp-app-secret", "HERALD_WHATSAPP_APP_SECRET", "", "webhook signature secret(s), comma-separated; without one every webhook call is refused", true, str(&c.WhatsAppAppSecret)),
		mk("whatsapp-verify-token", "HERALD_WHATSAPP_VERIFY_TOKEN", "", "webhook verification token; without it the handshake is refused", true, str(&c.WhatsAppVerifyToken)),
		mk("secret-key", "HERALD_SECRET_KEY", "", "key (32 bytes, base64) that seals stored access tokens and app secrets; without it and HERALD_SECRET_KEY_FILE, SQLite keeps one made on first use beside the database, PostgreSQL refuses to store secrets", true, str(&c.SecretKey)),
		mk("secret-key-file", "HERALD_SECRET_KEY_FILE", "", "file holding HERALD_SECRET_KEY", false, str(&c.SecretKeyFile)),
		mk("secret-key-previous", "HERALD_SECRET_KEY_PREVIOUS", "", "earlier key(s), comma-separated, that stored secrets may still be sealed under (during herald secrets rotate)", true, str(&c.SecretKeyPrevious)),
		mk("opt-out-keywords", "HERALD_OPT_OUT_KEYWORDS", strings.Join(domain.DefaultOptOutKeywords, ","), "comma-separated words that, sent alone by a contact, opt them out", false, keywords(&c.OptOutKeywords)),
		mk("opt-in-keywords", "HERALD_OPT_IN_KEYWORDS", strings.Join(domain.DefaultOptInKeywords, ","), "comma-separated words that opt a contact back in", false, keywords(&c.OptInKeywords)),
		mk("whatsapp-mps", "HERALD_WHATSAPP_MPS", "80", "messages per second per sender number, up to 1000", false, num(&c.WhatsAppMPS, 1, 1000)),
		mk("media-allowed-hosts", "HERALD_MEDIA_ALLOWED_HOSTS", "", "comma-separated host or host:port list exempt from the private-address block (tests, intranets)", false, hosts(&c.MediaAllowedHosts)),
		mk("media-allow-http", "HERALD_MEDIA_ALLOW_HTTP", "false", "accept plain http media URLs", false, boolean(&c.MediaAllowHTTP)),
		mk("media-max-fetches", "HERALD_MEDIA_MAX_FETCHES", "16", "media header fetches at once; a workspace may run half of them, a key a quarter", false, num(&c.MediaMaxFetches, 1, 1000)),
		mk("media-upload", "HERALD_MEDIA_UPLOAD", "link", "link: Meta fetches mediaHeaderUrl itself; auto: Herald fetches it once, uploads it to Meta and sends it by id", false, oneOf(&c.MediaUpload, "link", "auto")),
		mk("media-cache-dir", "HERALD_MEDIA_CACHE_DIR", "", "directory where media files contacts sent are kept once fetched from Meta; empty is no cache", false, str(&c.MediaCacheDir)),
		mk("media-cache-max", "HERALD_MEDIA_CACHE_MAX", "1GiB", "most bytes the media cache holds; the least recently read files go first (bytes, or with KiB, MiB, GiB)", false, size(&c.MediaCacheMax)),
		mk("rate-limit", "HERALD_RATE_LIMIT", "50", "requests per second per key (token bucket)", false, positive(&c.RateLimit)),
		mk("rate-burst", "HERALD_RATE_BURST", "100", "burst per key", false, num(&c.RateBurst, 1, 1_000_000)),
		mk("pause-on-red", "HERALD_PAUSE_ON_RED", "true", "pause a number's marketing campaigns by themselves when Meta rates its quality RED", false, boolean(&c.PauseOnRed)),
		mk("daily-send-cap", "HERALD_DAILY_SEND_CAP", "0", "sends each workspace may have accepted per UTC day in each mode; 0 is no cap", false, num(&c.DailySendCap, 0, 1_000_000_000)),
		mk("log-format", "HERALD_LOG_FORMAT", logFormatDefault, "json or console (console on a terminal)", false, oneOf(&c.LogFormat, "json", "console")),
		mk("log-level", "HERALD_LOG_LEVEL", "info", "debug, info, warn or error", false, oneOf(&c.LogLevel, "debug", "info", "warn", "error")),
		mk("key-cache-ttl", "HERALD_KEY_CACHE_TTL", "30s", "how long a verified key is trusted before it is read again", false, dur(&c.KeyCacheTTL)),
		mk("sandbox-step-delay", "HERALD_SANDBOX_STEP_DELAY", "1s", "the sandbox's pause before delivered and before read", false, dur(&c.SandboxStepDelay)),
		mk("request-timeout", "HERALD_REQUEST_TIMEOUT", "10s", "longest a request may work; a database that does not answer within it gives 503", false, dur(&c.RequestTimeout)),
		mk("dashboard-secure-cookie", "HERALD_DASHBOARD_SECURE_COOKIE", "false", "mark the dashboard's session cookie Secure on plain HTTP too: set it behind a TLS-terminating proxy (requests over TLS always get it)", false, boolean(&c.DashboardSecure)),
		mk("dashboard-max-password-checks", "HERALD_DASHBOARD_MAX_PASSWORD_CHECKS", "2", "dashboard sign-ins whose password is checked at once, each holding 32 MiB; others wait up to 1s, then get 429", false, num(&c.DashboardMaxPasswordChecks, 1, 64)),
		mk("tls-cert-file", "HERALD_TLS_CERT_FILE", "", "PEM certificate (chain after the leaf) to serve HTTPS with; needs --tls-key-file; empty serves plain HTTP", false, str(&c.TLSCertFile)),
		mk("tls-key-file", "HERALD_TLS_KEY_FILE", "", "PEM private key of --tls-cert-file", false, str(&c.TLSKeyFile)),
		mk("trusted-proxies", "HERALD_TRUSTED_PROXIES", "", "comma-separated networks (CIDR, or single addresses) of the proxies in front of Herald; for a connection from one, the client is taken from X-Forwarded-For or Forwarded", false, proxies(&c.TrustedProxies)),
		mk("lease-duration", "HERALD_LEASE_DURATION", "30s", "how long a dispatcher holds a claimed message, and the webhook worker a claimed delivery (at least 20s)", false, dur(&c.LeaseDuration)),
		mk("event-retention", "HERALD_EVENT_RETENTION", "720h", "how long events are kept for the pull API and redelivery (720h is 30 days)", false, dur(&c.EventRetention)),
		mk("webhook-disable-after", "HERALD_WEBHOOK_DISABLE_AFTER", "120h", "a webhook endpoint that has failed every attempt for this long is disabled (120h is 5 days)", false, dur(&c.WebhookDisableAfter)),
		mk("webhook-allow-http", "HERALD_WEBHOOK_ALLOW_HTTP", "false", "accept plain http webhook endpoint URLs", false, boolean(&c.WebhookAllowHTTP)),
		mk("webhook-allowed-hosts", "HERALD_WEBHOOK_ALLOWED_HOSTS", "", "comma-separated host or host:port list of webhook receivers exempt from the private-address block (local receivers, intranets)", false, hosts(&c.WebhookAllowedHosts)),
		mk("webhook-concurrency", "HERALD_WEBHOOK_CONCURRENCY", "64", "webhook deliveries attempted at once by each server", false, num(&c.WebhookConcurrency, 1, 4096)),
	}
}

// loadConfig reads every setting: its default, then its HERALD_* variable.
// A variable with a bad value is reported, naming it, with the others; the
// setting keeps its default.
func loadConfig(getenv func(string) string, logFormatDefault string) (*Config, error) {
	c := &Config{logFormatDefault: logFormatDefault}
	var errs []error
	for _, s := range settings(c, logFormatDefault) {
		if err := s.set(s.def); err != nil {
			return nil, fmt.Errorf("default of %s: %w", s.env, err)
		}
		if v := getenv(s.env); v != "" {
			if err := s.set(v); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", s.env, err))
			}
		}
	}
	return c, errors.Join(errs...)
}

// addFlags registers the settings whose flags are named (every setting when
// none is) on fs. A flag wins over the variable. --help shows each with its
// variable and its default, never the value in force, which may be a
// secret.
func (c *Config) addFlags(fs *pflag.FlagSet, names ...string) {
	for _, s := range settings(c, c.logFormatDefault) {
		if len(names) > 0 && !slices.Contains(names, s.flag) {
			continue
		}
		f := fs.VarPF(settingValue{s}, s.flag, "", s.help())
		f.DefValue = "" // the default is in the help text
		if s.isBool {
			f.NoOptDefVal = "true"
		}
	}
}

// settingValue is a setting as a flag's value.
type settingValue struct{ s setting }

func (v settingValue) String() string     { return v.s.get() }
func (v settingValue) Set(x string) error { return v.s.set(x) }
func (v settingValue) Type() string       { return v.s.typ }

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

// checkDatabaseURL accepts sqlite:PATH and postgres:// or postgresql:// URLs.
func checkDatabaseURL(s string) error {
	switch {
	case strings.HasPrefix(s, "sqlite:"):
		if strings.TrimPrefix(s, "sqlite:") == "" {
			return fmt.Errorf("%q names no file: want sqlite:PATH", s)
		}
		return nil
	case strings.HasPrefix(s, "postgres://"), strings.HasPrefix(s, "postgresql://"):
		if _, err := url.Parse(s); err != nil {
			return fmt.Errorf("%q is not a valid URL", maskURL(s))
		}
		return nil
	}
	return fmt.Errorf("%q: want sqlite:PATH or postgres://…", maskURL(s))
}

// maskURL hides a URL's password, in its user part or its query.
func maskURL(s string) string {
	const placeholder = "HERALDMASKED" // survives URL encoding unchanged
	u, err := url.Parse(s)
	if err != nil {
		return "****"
	}
	if u.User != nil {
		if _, ok := u.User.Password(); ok {
			u.User = url.UserPassword(u.User.Username(), placeholder)
		}
	}
	if q := u.Query(); q.Has("password") {
		q.Set("password", placeholder)
		u.RawQuery = q.Encode()
	}
	return strings.ReplaceAll(u.String(), placeholder, "****")
}

// checkAllowedHost accepts a host name or IP address, with or without a
// port, and nothing else (no scheme, path or user).
func checkAllowedHost(h string) error {
	host := h
	if hp, port, err := net.SplitHostPort(h); err == nil {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("%q: the port must be a number from 1 to 65535", h)
		}
		host = hp
	}
	if host == "" || strings.ContainsAny(host, "/@?#[] ") || strings.Contains(host, "://") {
		return fmt.Errorf("%q is not a host or host:port", h)
	}
	return nil
}

// parsePrefixes reads a comma-separated list of networks: CIDR prefixes
// ("10.0.0.0/8", "2001:db8::/32") or single addresses, which stand for
// themselves.
func parsePrefixes(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, e := range splitList(s) {
		p, err := netip.ParsePrefix(e)
		if err != nil {
			a, aerr := netip.ParseAddr(e)
			if aerr != nil || a.Zone() != "" {
				return nil, fmt.Errorf("%q is not a network such as 10.0.0.0/8 or an address such as 10.0.0.5", e)
			}
			p = netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen())
		}
		if p.Addr().Is4In6() {
			p = netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// parseSize reads a byte count: digits, optionally followed by KiB, MiB or
// GiB (or KB, MB, GB, taken as the same powers of two).
func parseSize(s string) (int64, error) {
	units := []struct {
		suffix string
		shift  uint
	}{{"KiB", 10}, {"MiB", 20}, {"GiB", 30}, {"KB", 10}, {"MB", 20}, {"GB", 30}, {"B", 0}, {"", 0}}
	for _, u := range units {
		digits, ok := strings.CutSuffix(s, u.suffix)
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(digits), 10, 64)
		if err != nil || n <= 0 || n > (1<<62)>>u.shift {
			break
		}
		return n << u.shift, nil
	}
	return 0, fmt.Errorf("%q is not a positive size such as 1073741824, 512MiB or 1GiB", s)
}

// mediaCache is the media cache's part of the configuration.
func (c *Config) mediaCache() media.CacheConfig {
	return media.CacheConfig{Dir: c.MediaCacheDir, MaxBytes: c.MediaCacheMax}
}

// media is the media inspector's part of the configuration.
func (c *Config) media() media.Config {
	return media.Config{AllowHTTP: c.MediaAllowHTTP, AllowedHosts: splitList(c.MediaAllowedHosts), MaxConcurrent: c.MediaMaxFetches}
}

// webhooks is the webhook poster's part of the configuration.
func (c *Config) webhooks() webhookout.Config {
	return webhookout.Config{AllowHTTP: c.WebhookAllowHTTP, AllowedHosts: splitList(c.WebhookAllowedHosts),
		Version: readBuildInfo().Version}
}

// minWebhookLease is the shortest lease on a webhook delivery: longer than
// an attempt (the poster's 15 s) and its record, so that no other instance
// claims a delivery still being tried.
const minWebhookLease = webhookout.DefaultTimeout + 5*time.Second

// events is the delivery worker's part of the configuration: its lease is
// HERALD_LEASE_DURATION's, at least minWebhookLease.
func (c *Config) events() events.Config {
	return events.Config{Retention: c.EventRetention, DisableAfter: c.WebhookDisableAfter, Concurrency: c.WebhookConcurrency,
		Lease: max(c.LeaseDuration, minWebhookLease)}
}

// secretKeys is the secret sealer's part of the configuration. Without a
// key, an embedded SQLite database keeps one beside itself
// (PATH.secret-key, 0600), made the first time a secret is stored; a
// fleet on PostgreSQL must be given one.
func (c *Config) secretKeys() system.SecretKeyConfig {
	cfg := system.SecretKeyConfig{Key: c.SecretKey, KeyFile: c.SecretKeyFile, Previous: splitList(c.SecretKeyPrevious)}
	if path, ok := strings.CutPrefix(c.DatabaseURL, "sqlite:"); ok && path != "" && !strings.Contains(path, ":memory:") {
		path, _, _ = strings.Cut(path, "?")
		cfg.AutoKeyFile = path + ".secret-key"
	}
	return cfg
}

// splitList splits a comma-separated setting, dropping blanks.
func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// optKeywords is the opt-out and opt-in keyword lists as the app takes
// them; the two lists must not share a word.
func (c *Config) optKeywords() (domain.OptKeywords, error) {
	k, err := domain.NewOptKeywords(splitList(c.OptOutKeywords), splitList(c.OptInKeywords))
	if err != nil {
		return domain.OptKeywords{}, fmt.Errorf("HERALD_OPT_OUT_KEYWORDS and HERALD_OPT_IN_KEYWORDS: %s", err.(*domain.Error).Detail)
	}
	return k, nil
}
