package webhookout_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/fx"
	"go.uber.org/fx/fxtest"

	"github.com/heraldhq/herald/adapters/webhookout"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/test/hookreceiver"
)

func TestConfigWithDefaults(t *testing.T) {
	t.Parallel()
	got := webhookout.Config{AllowHTTP: true, AllowedHosts: []string{" Receiver.Internal. ", "", "[::1]", "127.0.0.1:9000"}}.WithDefaults()
	want := webhookout.Config{
		AllowHTTP:           true,
		AllowedHosts:        []string{"receiver.internal", "::1", "127.0.0.1:9000"},
		Timeout:             15 * time.Second,
		Version:             "dev",
		MaxIdleConnsPerHost: 256,
		MaxDrain:            64 << 10,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("WithDefaults (-want +got):\n%s", diff)
	}
	kept := webhookout.Config{Timeout: time.Second, Version: "1.2.3", MaxIdleConnsPerHost: 8, MaxDrain: 10}
	if diff := cmp.Diff(kept, kept.WithDefaults()); diff != "" {
		t.Fatalf("WithDefaults changed set values (-want +got):\n%s", diff)
	}
	p := webhookout.Config{AllowHTTP: true, AllowedHosts: []string{"Receiver.Internal"}}.Policy()
	if !p.AllowHTTP || !p.Allows("receiver.internal:8080") || p.Allows("other.internal:443") {
		t.Fatalf("Policy = %+v", p)
	}
}

// TestModule: the module provides the poster as the port from a supplied
// Config, and it delivers.
func TestModule(t *testing.T) {
	t.Parallel()
	var got ports.EventPoster
	app := fxtest.New(t, fx.NopLogger, fx.Supply(webhookout.Config{AllowHTTP: true, AllowedHosts: []string{"127.0.0.1"}}),
		webhookout.Module, fx.Populate(&got))
	app.RequireStart()
	if _, ok := got.(*webhookout.Poster); !ok {
		t.Fatalf("the module provides %T", got)
	}
	r := hookreceiver.New(t, domain.FormatWebhookSecret(keyA))
	if res, err := got.Post(context.Background(), request(t, r.URL)); err != nil || res.Status != 200 {
		t.Fatalf("Post = %+v, %v", res, err)
	}
	app.RequireStop()
}
