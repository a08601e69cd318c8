package media_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/fx"
	"go.uber.org/fx/fxtest"

	"github.com/heraldhq/herald/adapters/media"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

func TestConfigWithDefaults(t *testing.T) {
	t.Parallel()
	got := media.Config{
		AllowHTTP:    true,
		AllowedHosts: []string{" Media.Intranet.Example. ", "", "CDN.example:8443", "[::1]", "[FD00::1]:9000", "10.0.0.7"},
		CacheSize:    -1,
	}.WithDefaults()
	want := media.Config{
		AllowHTTP:     true,
		AllowedHosts:  []string{"media.intranet.example", "cdn.example:8443", "::1", "[fd00::1]:9000", "10.0.0.7"},
		Timeout:       10 * time.Second,
		CacheTTL:      10 * time.Minute,
		FailureTTL:    time.Minute,
		CacheSize:     10_000,
		MaxConcurrent: 16,
		// A workspace may hold half the pool, a key half of that.
		MaxConcurrentPerWorkspace: 8,
		MaxConcurrentPerKey:       4,
		SlotWait:                  2 * time.Second,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("WithDefaults (-want +got):\n%s", diff)
	}
	kept := media.Config{Timeout: time.Second, CacheTTL: 2 * time.Second, FailureTTL: 3 * time.Second, CacheSize: 4, MaxConcurrent: 5,
		MaxConcurrentPerWorkspace: 6, MaxConcurrentPerKey: 7, SlotWait: 8 * time.Second}
	if diff := cmp.Diff(kept, kept.WithDefaults()); diff != "" {
		t.Fatalf("WithDefaults changed set values (-want +got):\n%s", diff)
	}
	small := media.Config{MaxConcurrent: 3}.WithDefaults()
	if small.MaxConcurrentPerWorkspace != 1 || small.MaxConcurrentPerKey != 1 {
		t.Fatalf("shares of a pool of 3: workspace %d, key %d; want 1 and 1", small.MaxConcurrentPerWorkspace, small.MaxConcurrentPerKey)
	}
}

func TestConfigPolicy(t *testing.T) {
	t.Parallel()
	p := media.Config{AllowHTTP: true, AllowedHosts: []string{"Media.Intranet.Example", "CDN.example:8443"}}.Policy()
	if !p.AllowHTTP {
		t.Error("AllowHTTP lost")
	}
	for hostport, want := range map[string]bool{
		"media.intranet.example:80":   true,
		"MEDIA.intranet.example.:443": true,
		"cdn.example:8443":            true,
		"cdn.example:443":             false,
		"other.example:80":            false,
	} {
		if got := p.Allows(hostport); got != want {
			t.Errorf("Allows(%q) = %v, want %v", hostport, got, want)
		}
	}
	if err := domain.CheckMediaURL("http://media.intranet.example/a.png", p); err != nil {
		t.Errorf("CheckMediaURL with the policy: %v", err)
	}
}

// TestModule: the module provides the inspector as the port from a
// supplied Config.
func TestModule(t *testing.T) {
	t.Parallel()
	var got ports.MediaInspector
	app := fxtest.New(t, fx.NopLogger, fx.Supply(media.Config{}), media.Module, fx.Populate(&got))
	app.RequireStart().RequireStop()
	if _, ok := got.(*media.Inspector); !ok {
		t.Fatalf("the module provides %T", got)
	}
}
