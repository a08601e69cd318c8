package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// serveFlags is the settings read from env, with every setting as a flag,
// as herald serve has them.
func serveFlags(t *testing.T, env func(string) string) (*pflag.FlagSet, *Config) {
	t.Helper()
	c, err := loadConfig(env, "json")
	if err != nil {
		t.Fatal(err)
	}
	fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
	c.addFlags(fs)
	return fs, c
}

func TestConfigDefaults(t *testing.T) {
	t.Parallel()
	c, err := loadConfig(envOf(nil), "json")
	if err != nil {
		t.Fatal(err)
	}
	if c.Addr != "127.0.0.1:8080" || c.DatabaseURL != "sqlite:herald.db" || c.RateLimit != 50 || c.RateBurst != 100 ||
		c.WhatsAppMPS != 80 || c.KeyCacheTTL != 30*time.Second || c.LogFormat != "json" || c.MediaAllowHTTP ||
		c.WhatsAppAPIURL != "https://graph.facebook.com/v24.0" || c.DashboardMaxPasswordChecks != 2 {
		t.Fatalf("defaults: %+v", c)
	}
}

func TestConfigEnvironmentAndFlags(t *testing.T) {
	t.Parallel()
	env := envOf(map[string]string{"HERALD_ADDR": "127.0.0.1:9000", "HERALD_KEY_CACHE_TTL": "5s", "HERALD_MEDIA_ALLOW_HTTP": "true"})
	fs, c := serveFlags(t, env)
	if err := fs.Parse([]string{"--addr", "127.0.0.1:9001"}); err != nil {
		t.Fatal(err)
	}
	if c.Addr != "127.0.0.1:9001" {
		t.Errorf("a flag must win over the environment: addr %s", c.Addr)
	}
	if c.KeyCacheTTL != 5*time.Second || !c.MediaAllowHTTP {
		t.Errorf("environment not applied: %+v", c)
	}
	fs, c = serveFlags(t, env)
	if err := fs.Parse([]string{"--media-allow-http=false"}); err != nil || c.MediaAllowHTTP {
		t.Errorf("--media-allow-http=false over HERALD_MEDIA_ALLOW_HTTP=true: %v %v", c.MediaAllowHTTP, err)
	}
}

// The media settings: link by default, the cache off with a bound of 1 GiB,
// sizes in bytes or binary units.
func TestMediaSettings(t *testing.T) {
	t.Parallel()
	c, err := loadConfig(envOf(nil), "json")
	if err != nil {
		t.Fatal(err)
	}
	if c.MediaUpload != "link" || c.MediaCacheDir != "" || c.MediaCacheMax != 1<<30 {
		t.Fatalf("defaults: upload %q, cache %q of %d", c.MediaUpload, c.MediaCacheDir, c.MediaCacheMax)
	}
	for in, want := range map[string]int64{"1048576": 1 << 20, "512MiB": 512 << 20, "2GiB": 2 << 30, "64KB": 64 << 10, "10B": 10} {
		c, err := loadConfig(envOf(map[string]string{"HERALD_MEDIA_CACHE_MAX": in, "HERALD_MEDIA_UPLOAD": "auto",
			"HERALD_MEDIA_CACHE_DIR": "/var/cache/herald"}), "json")
		if err != nil || c.MediaCacheMax != want || c.MediaUpload != "auto" || c.mediaCache().Dir != "/var/cache/herald" {
			t.Errorf("HERALD_MEDIA_CACHE_MAX=%s: %d, %v; want %d", in, c.MediaCacheMax, err, want)
		}
	}
	for _, bad := range []string{"0", "-1", "lots", "1.5GiB", "MiB"} {
		if _, err := parseSize(bad); err == nil {
			t.Errorf("parseSize(%q) passed", bad)
		}
	}
}

func TestConfigRefusesBadValues(t *testing.T) {
	t.Parallel()
	for env, val := range map[string]string{
		"HERALD_KEY_CACHE_TTL": "soon", "HERALD_WHATSAPP_MPS": "5000", "HERALD_LOG_FORMAT": "xml",
		"HERALD_RATE_LIMIT": "-1", "HERALD_MEDIA_ALLOW_HTTP": "maybe", "HERALD_ADDR": "localhost",
		"HERALD_DATABASE_URL": "mysql://herald:pw@db/herald", "HERALD_WHATSAPP_API_URL": "graph.facebook.com",
		"HERALD_LOG_LEVEL": "loud", "HERALD_RATE_BURST": "1.5", "HERALD_SANDBOX_STEP_DELAY": "0s",
		"HERALD_DASHBOARD_MAX_PASSWORD_CHECKS": "0",
		"HERALD_TRUSTED_PROXIES":               "10.0.0.0/33",
		"HERALD_MEDIA_UPLOAD":                  "always",
		"HERALD_MEDIA_CACHE_MAX":               "1TB",
	} {
		var stderr bytes.Buffer
		code := run(context.Background(), []string{"serve"}, envOf(map[string]string{env: val}), nil, io.Discard, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), env) {
			t.Errorf("%s=%s: exit %d, stderr %q; want exit 2 naming the variable", env, val, code, stderr.String())
		}
		if strings.Contains(stderr.String(), "pw@") {
			t.Errorf("%s=%s: the error shows the password: %q", env, val, stderr.String())
		}
	}
	var stderr bytes.Buffer
	if code := run(context.Background(), []string{"serve", "--rate-limit", "fast"}, envOf(nil), nil, io.Discard, &stderr); code != 2 ||
		!strings.Contains(stderr.String(), "rate-limit") {
		t.Errorf("a bad flag value: exit %d, stderr %q; want exit 2 naming the flag", code, stderr.String())
	}
}

// TestServeHelpListsEverySetting pins herald serve --help: on stdout, exit
// 0, every setting with its flag, its variable and its default.
func TestServeHelpListsEverySetting(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"serve", "--help"}, envOf(nil), nil, &stdout, &stderr); code != 0 || stderr.Len() != 0 {
		t.Fatalf("serve --help exited %d, stderr %q", code, stderr.String())
	}
	help := stdout.String()
	var c Config
	for _, s := range settings(&c, "json") {
		def := s.def
		if def == "" {
			def = "none"
		}
		if !strings.Contains(help, "-"+s.flag+" ") && !strings.Contains(help, "-"+s.flag+"\n") {
			t.Errorf("--help does not list --%s", s.flag)
		}
		if !strings.Contains(help, "("+s.env+", default "+def+")") {
			t.Errorf("--help does not list %s with its default %s", s.env, def)
		}
	}
	for _, v := range []string{"HERALD_ADDR", "HERALD_DATABASE_URL", "HERALD_WHATSAPP_API_URL", "HERALD_WHATSAPP_ACCESS_TOKEN",
		"HERALD_WHATSAPP_PHONE_NUMBER_ID", "HERALD_WHATSAPP_WABA_ID", "HERALD_WHATSAPP_APP_SECRET", "HERALD_WHATSAPP_VERIFY_TOKEN",
		"HERALD_MEDIA_ALLOWED_HOSTS", "HERALD_MEDIA_ALLOW_HTTP", "HERALD_RATE_LIMIT", "HERALD_RATE_BURST", "HERALD_WHATSAPP_MPS",
		"HERALD_LOG_FORMAT", "HERALD_LOG_LEVEL", "HERALD_KEY_CACHE_TTL", "HERALD_SANDBOX_STEP_DELAY", "HERALD_LEASE_DURATION"} {
		if !strings.Contains(help, v) {
			t.Errorf("--help does not list %s", v)
		}
	}
	if !strings.Contains(help, "(HERALD_ADDR, default 127.0.0.1:8080)") {
		t.Errorf("--help does not show defaults")
	}
}

func TestMaskedHidesSecrets(t *testing.T) {
	t.Parallel()
	env := envOf(map[string]string{
		"HERALD_WHATSAPP_ACCESS_TOKEN": "EAAG-secret-token", "HERALD_WHATSAPP_APP_SECRET": "appsecret",
		"HERALD_DATABASE_URL": "postgres://herald:pgpass@db:5432/herald?sslmode=require", "HERALD_WHATSAPP_VERIFY_TOKEN": "verify-me",
	})
	c, err := loadConfig(env, "json")
	if err != nil {
		t.Fatal(err)
	}
	m := c.masked()
	var dump strings.Builder
	for _, v := range m {
		dump.WriteString(v + " ")
	}
	for _, secret := range []string{"EAAG-secret-token", "appsecret", "pgpass", "verify-me"} {
		if strings.Contains(dump.String(), secret) {
			t.Errorf("masked settings show %q: %s", secret, dump.String())
		}
	}
	if !strings.Contains(m["HERALD_DATABASE_URL"], "db:5432") || !strings.Contains(m["HERALD_DATABASE_URL"], "sslmode=require") {
		t.Errorf("the database host and options should stay visible: %s", m["HERALD_DATABASE_URL"])
	}
	if m["HERALD_ADDR"] != "127.0.0.1:8080" {
		t.Errorf("a setting that is no secret should show as is: %q", m["HERALD_ADDR"])
	}
	for in, want := range map[string]string{
		"postgres://db/herald?user=herald&password=qpass": "postgres://db/herald?password=****&user=herald",
		"postgres://herald:p%40ss@db:5432/herald":         "postgres://herald:****@db:5432/herald",
		"postgres://herald@db/herald":                     "postgres://herald@db/herald",
	} {
		if got := maskURL(in); got != want {
			t.Errorf("maskURL(%s) = %s, want %s", in, got, want)
		}
	}
	sqlite := map[string]string{"HERALD_DATABASE_URL": "sqlite:/var/lib/herald/herald.db"}
	c, _ = loadConfig(envOf(sqlite), "json")
	if got := c.masked()["HERALD_DATABASE_URL"]; got != sqlite["HERALD_DATABASE_URL"] {
		t.Errorf("a SQLite path holds no secret and should show as is: %s", got)
	}
}

// TestTrustedProxies: HERALD_TRUSTED_PROXIES takes networks and single
// addresses, IPv4 and IPv6, and refuses anything else, naming the entry.
func TestTrustedProxies(t *testing.T) {
	t.Parallel()
	got, err := parsePrefixes(" 10.0.0.0/8, 192.0.2.7 ,2001:db8::/32,::ffff:198.51.100.0/120, 10.1.2.3/8,")
	if err != nil {
		t.Fatal(err)
	}
	var s []string
	for _, p := range got {
		s = append(s, p.String())
	}
	if want := "10.0.0.0/8 192.0.2.7/32 2001:db8::/32 198.51.100.0/24 10.0.0.0/8"; strings.Join(s, " ") != want {
		t.Errorf("parsed %v, want %s", s, want)
	}
	if got, err := parsePrefixes(""); err != nil || len(got) != 0 {
		t.Errorf("empty: %v %v, want none", got, err)
	}
	for _, bad := range []string{"10.0.0.0/33", "proxy.internal", "10.0.0.0/8,*", "fe80::1%eth0"} {
		if _, err := parsePrefixes(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
