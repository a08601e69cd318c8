package httpapi_test

import (
	"context"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/heraldhq/herald/adapters/httpapi"
	"github.com/heraldhq/herald/adapters/system"
	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// heldKeys is a key repository whose authentication lookups are counted and
// held until the limit's worth of them have arrived, so that every request
// let through the failed-authentication check is in flight at once.
type heldKeys struct {
	ports.KeyRepository
	limit   int32
	arrived atomic.Int32
	full    chan struct{} // closed when limit lookups have arrived
}

func newHeldKeys(repo ports.KeyRepository, limit int) *heldKeys {
	return &heldKeys{KeyRepository: repo, limit: int32(limit), full: make(chan struct{})}
}

func (k *heldKeys) GetKeyByIdentifier(ctx context.Context, identifier string) (domain.APIKey, error) {
	if k.arrived.Add(1) == k.limit {
		close(k.full)
	}
	<-k.full
	return k.KeyRepository.GetKeyByIdentifier(ctx, identifier)
}

// burst serves n requests from one address at once, with the key key(i),
// and returns how many got each status.
func burst(e *apiEnv, n int, key func(i int) string) map[int]int {
	codes := make([]int, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			req := httptest.NewRequest("GET", "/v1/campaigns", nil)
			req.RemoteAddr = "203.0.113.7:" + strconv.Itoa(40000+i)
			req.Header.Set("X-API-KEY", key(i))
			<-start
			rec := httptest.NewRecorder()
			e.h.ServeHTTP(rec, req)
			codes[i] = rec.Code
		})
	}
	close(start)
	wg.Wait()
	got := map[int]int{}
	for _, c := range codes {
		got[c]++
	}
	return got
}

// TestFailedAuthenticationLimitHoldsUnderConcurrency: 200 well-formed but
// unknown keys at once from one address on a fresh server: no more than the
// limit of 20 reach the key store, and every other request is 429.
func TestFailedAuthenticationLimitHoldsUnderConcurrency(t *testing.T) {
	t.Parallel()
	onEveryEngine(t, func(t *testing.T, e *apiEnv) {
		const n, limit = 200, 20
		keys := newHeldKeys(e.store, limit)
		deps := e.deps
		deps.Auth = app.NewAuthenticateKeyHandler(keys, system.Clock{}, app.Config{})
		e.h = httpapi.NewHandler(deps, httpapi.Config{RateLimit: 1e9, RateBurst: 1 << 30, AuthFailuresPerMinute: limit}, nil)
		tokens := make([]string, n)
		for i := range tokens {
			tok, err := system.NewIDs().NewToken(domain.ModeTest)
			if err != nil {
				t.Fatal(err)
			}
			tokens[i] = tok.Plaintext()
		}
		got := burst(e, n, func(i int) string { return tokens[i] })
		if reached := keys.arrived.Load(); reached != limit {
			t.Errorf("%d of %d unknown keys reached the key store, want %d (the limit)", reached, n, limit)
		}
		if got[401] != limit || got[429] != n-limit {
			t.Errorf("answers %v, want %d × 401 and %d × 429", got, limit, n-limit)
		}
	})
}

// TestConcurrentGoodKeysAreNotLimited: checking failures before they happen
// must not refuse a busy client whose keys are good: 200 requests at once
// from one address on a fresh server all succeed.
func TestConcurrentGoodKeysAreNotLimited(t *testing.T) {
	t.Parallel()
	onEveryEngine(t, func(t *testing.T, e *apiEnv) {
		e.h = httpapi.NewHandler(e.deps, httpapi.Config{RateLimit: 1e9, RateBurst: 1 << 30, AuthFailuresPerMinute: 20}, nil)
		if got := burst(e, 200, func(int) string { return e.key }); got[200] != 200 {
			t.Errorf("answers %v, want 200 × 200", got)
		}
	})
}
