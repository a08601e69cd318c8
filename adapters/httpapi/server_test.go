package httpapi_test

import (
	"net/http"
	"testing"

	"go.uber.org/fx/fxtest"
	"go.uber.org/zap"

	"github.com/heraldhq/herald/adapters/httpapi"
)

// TestServerLimits: the server has every timeout set, so a slow client
// cannot hold a connection open (Slowloris), and a bounded header size.
func TestServerLimits(t *testing.T) {
	t.Parallel()
	srv := httpapi.NewServer(fxtest.NewLifecycle(t), httpapi.Config{}, http.NotFoundHandler(), zap.NewNop())
	if srv.ReadHeaderTimeout <= 0 || srv.ReadTimeout <= 0 || srv.WriteTimeout <= 0 || srv.IdleTimeout <= 0 {
		t.Fatalf("timeouts: read header %s, read %s, write %s, idle %s", srv.ReadHeaderTimeout, srv.ReadTimeout, srv.WriteTimeout, srv.IdleTimeout)
	}
	if srv.MaxHeaderBytes <= 0 || srv.MaxHeaderBytes > 32<<10 {
		t.Fatalf("MaxHeaderBytes %d, want 1 to 32 KiB", srv.MaxHeaderBytes)
	}
	if srv.ErrorLog == nil {
		t.Fatal("the server's own errors go to the standard logger, not zap")
	}
}
