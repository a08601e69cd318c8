package httpapi_test

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/heraldhq/herald/adapters/httpapi"
	"github.com/heraldhq/herald/ports/porttest"
)

// TestTrustedProxyClients: behind a trusted proxy, each client's failed
// keys count against its own address, not the proxy's, the dashboard sees
// the client's address, and the access log names it; behind a proxy that is
// not trusted, X-Forwarded-For changes nothing.
func TestTrustedProxyClients(t *testing.T) {
	t.Parallel()
	var dashboardSaw string
	e := newEnv(t, func(d *httpapi.Deps, _ porttest.Store) {
		d.Dashboard = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { dashboardSaw = r.RemoteAddr })
	})
	core, logs := observer.New(zap.InfoLevel)
	cfg := httpapi.Config{AuthFailuresPerMinute: 3, TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}}
	trusting := httpapi.NewHandler(e.deps, cfg, zap.New(core))
	cfg.TrustedProxies = nil
	plain := httpapi.NewHandler(e.deps, cfg, nil)

	from := func(h http.Handler, client, key string) int {
		req := httptest.NewRequest("GET", "/v1/campaigns", nil)
		req.RemoteAddr = "10.0.0.5:41000" // the proxy
		req.Header.Set("X-Forwarded-For", client)
		req.Header.Set("X-API-KEY", key)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code
	}
	for i := range 3 {
		if code := from(trusting, "203.0.113.7", e.revokedKey); code != 401 {
			t.Fatalf("failure %d: %d", i+1, code)
		}
	}
	if code := from(trusting, "203.0.113.7", e.key); code != 429 {
		t.Fatalf("the failing client after its 3 failures: %d, want 429", code)
	}
	if code := from(trusting, "203.0.113.8", e.key); code != 200 {
		t.Fatalf("another client behind the same proxy: %d, want 200", code)
	}

	for range 3 {
		from(plain, "203.0.113.7", e.revokedKey)
	}
	if code := from(plain, "203.0.113.8", e.key); code != 429 {
		t.Fatalf("an untrusted proxy's clients share its address: %d, want 429", code)
	}

	req := httptest.NewRequest("GET", "/dashboard/", nil)
	req.RemoteAddr = "10.0.0.5:41000"
	req.Header.Set("X-Forwarded-For", "2001:db8::9, 10.0.0.4")
	trusting.ServeHTTP(httptest.NewRecorder(), req)
	if dashboardSaw != "[2001:db8::9]:0" {
		t.Fatalf("the dashboard saw RemoteAddr %q, want [2001:db8::9]:0", dashboardSaw)
	}
	var clients []string
	for _, entry := range logs.FilterMessage("request").All() {
		clients = append(clients, entry.ContextMap()["client"].(string))
	}
	if len(clients) != 6 || clients[0] != "203.0.113.7" || clients[4] != "203.0.113.8" || clients[5] != "2001:db8::9" {
		t.Fatalf("access log clients %q", clients)
	}
}
