package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"
)

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestConfigDefaults(t *testing.T) {
	t.Parallel()
	fs, c, err := newFlagSet("serve", envOf(nil), io.Discard, "json")
	if err != nil {
		t.Fatal(err)
	}
	if err := fs.Parse(nil); err != nil {
		t.Fatal(err)
	}
	if c.Addr != "127.0.0.1:8080" || c.DatabaseURL != "sqlite:herald.db" || c.RateLimit != 50 || c.RateBurst != 100 ||
		c.WhatsAppMPS != 80 || c.KeyCacheTTL != 30*time.Second || c.LogFormat != "json" || c.MediaAllowHTTP ||
		c.WhatsAppAPIURL != "https://graph.facebook.com/v24.0" {
		t.Fatalf("defaults: %+v", c)
	}
}

func TestConfigEnvironmentAndFlags(t *testing.T) {
	t.Parallel()
	env := envOf(map[string]string{"HERALD_ADDR": "127.0.0.1:9000", "HERALD_KEY_CACHE_TTL": "5s", "HERALD_MEDIA_ALLOW_HTTP": "true"})
	fs, c, err := newFlagSet("serve", env, io.Discard, "json")
	if err != nil {
		t.Fatal(err)
	}
	if err := fs.Parse([]string{"--addr", "127.0.0.1:9001"}); err != nil {
		t.Fatal(err)
	}
	if c.Addr != "127.0.0.1:9001" {
		t.Errorf("a flag must win over the environment: addr %s", c.Addr)
	}
	if c.KeyCacheTTL != 5*time.Second || !c.MediaAllowHTTP {
		t.Errorf("environment not applied: %+v", c)
	}
}

func TestConfigRefusesBadValues(t *testing.T) {
	t.Parallel()
	for env, val := range map[string]string{
		"HERALD_KEY_CACHE_TTL": "soon", "HERALD_WHATSAPP_MPS": "5000", "HERALD_LOG_FORMAT": "xml",
		"HERALD_RATE_LIMIT": "-1", "HERALD_MEDIA_ALLOW_HTTP": "maybe",
	} {
		var stderr bytes.Buffer
		code := run(context.Background(), []string{"serve"}, envOf(map[string]string{env: val}), nil, io.Discard, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), env) {
			t.Errorf("%s=%s: exit %d, stderr %q; want exit 2 naming the variable", env, val, code, stderr.String())
		}
	}
}

func TestServeHelpListsEverySetting(t *testing.T) {
	t.Parallel()
	var stderr bytes.Buffer
	if code := run(context.Background(), []string{"serve", "--help"}, envOf(nil), nil, io.Discard, &stderr); code != 0 {
		t.Fatalf("serve --help exited %d", code)
	}
	var c Config
	for _, s := range settings(&c, "json") {
		if !strings.Contains(stderr.String(), "-"+s.flag) || !strings.Contains(stderr.String(), s.env) {
			t.Errorf("--help does not list --%s / %s", s.flag, s.env)
		}
	}
	for _, v := range []string{"HERALD_ADDR", "HERALD_DATABASE_URL", "HERALD_WHATSAPP_API_URL", "HERALD_WHATSAPP_ACCESS_TOKEN",
		"HERALD_WHATSAPP_PHONE_NUMBER_ID", "HERALD_WHATSAPP_WABA_ID", "HERALD_WHATSAPP_APP_SECRET", "HERALD_WHATSAPP_VERIFY_TOKEN",
		"HERALD_MEDIA_ALLOWED_HOSTS", "HERALD_MEDIA_ALLOW_HTTP", "HERALD_RATE_LIMIT", "HERALD_RATE_BURST", "HERALD_WHATSAPP_MPS",
		"HERALD_LOG_FORMAT"} {
		if !strings.Contains(stderr.String(), v) {
			t.Errorf("--help does not list DESIGN's %s", v)
		}
	}
	if !strings.Contains(stderr.String(), "default 127.0.0.1:8080") {
		t.Errorf("--help does not show defaults")
	}
}

func TestMaskedHidesSecrets(t *testing.T) {
	t.Parallel()
	env := envOf(map[string]string{
		"HERALD_WHATSAPP_ACCESS_TOKEN": "EAAG-secret-token", "HERALD_WHATSAPP_APP_SECRET": "appsecret",
		"HERALD_DATABASE_URL": "postgres://herald:pgpass@db:5432/herald",
	})
	fs, c, err := newFlagSet("serve", env, io.Discard, "json")
	if err != nil {
		t.Fatal(err)
	}
	fs.Parse(nil)
	m := c.masked()
	dump := strings.Join([]string{m["HERALD_WHATSAPP_ACCESS_TOKEN"], m["HERALD_WHATSAPP_APP_SECRET"], m["HERALD_DATABASE_URL"]}, " ")
	for _, secret := range []string{"EAAG-secret-token", "appsecret", "pgpass"} {
		if strings.Contains(dump, secret) {
			t.Errorf("masked settings show %q: %s", secret, dump)
		}
	}
	if !strings.Contains(m["HERALD_DATABASE_URL"], "db:5432") {
		t.Errorf("the database host should stay visible: %s", m["HERALD_DATABASE_URL"])
	}
}
