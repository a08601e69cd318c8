package app_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/ports/portsmock"
)

func TestAuthenticateValidKey(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	auth := app.NewAuthenticateKeyHandler(f.st, f.clock, app.Config{})
	p, err := auth.Handle(context.Background(), f.token.Plaintext())
	if err != nil || p != f.principal {
		t.Fatalf("principal %+v err %v, want %+v", p, err, f.principal)
	}
}

func TestConcurrentMissesMakeOneLookup(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	const callers = 20
	var calls atomic.Int32
	var arrived sync.WaitGroup
	arrived.Add(1)
	release := make(chan struct{})
	keys := &portsmock.KeyRepositoryMock{GetKeyByIdentifierFunc: func(ctx context.Context, id string) (domain.APIKey, error) {
		calls.Add(1)
		arrived.Done()
		<-release
		return f.st.GetKeyByIdentifier(ctx, id)
	}}
	auth := app.NewAuthenticateKeyHandler(keys, f.clock, app.Config{})
	var wg sync.WaitGroup
	errs := make(chan error, callers)
	for range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := auth.Handle(context.Background(), f.token.Plaintext())
			errs <- err
		}()
	}
	arrived.Wait() // the first lookup is in flight; the others join it
	// Give the other callers a chance to reach the collapsed call; any that
	// arrive after release hit the cache, so the count stays one either way.
	close(release)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := calls.Load(); n != 1 {
		t.Fatalf("%d repository lookups for %d concurrent requests, want 1", n, callers)
	}
}

func TestNegativeCache(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var calls int
	keys := &portsmock.KeyRepositoryMock{GetKeyByIdentifierFunc: func(ctx context.Context, id string) (domain.APIKey, error) {
		calls++
		return f.st.GetKeyByIdentifier(ctx, id)
	}}
	auth := app.NewAuthenticateKeyHandler(keys, f.clock, app.Config{KeyNegativeTTL: 10 * time.Second})
	unknown, _ := f.ids.NewToken(domain.ModeTest)
	for range 3 {
		if _, err := auth.Handle(context.Background(), unknown.Plaintext()); !errors.Is(err, domain.ErrKeyUnknown) {
			t.Fatalf("unknown key: %v", err)
		}
	}
	if calls != 1 {
		t.Fatalf("%d lookups within the negative TTL, want 1", calls)
	}
	f.clock.Advance(11 * time.Second)
	auth.Handle(context.Background(), unknown.Plaintext())
	if calls != 2 {
		t.Fatalf("after the negative TTL: %d lookups, want 2", calls)
	}
}

func TestBadChecksumIsNotLookedUp(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	auth := app.NewAuthenticateKeyHandler(&portsmock.KeyRepositoryMock{}, f.clock, app.Config{}) // any call panics
	tok := f.token.Plaintext()
	bad := tok[:56] + "000000"
	if _, err := auth.Handle(context.Background(), bad); !errors.Is(err, domain.ErrTokenChecksum) {
		t.Fatalf("bad checksum: %v", err)
	}
}

func TestRevocationTakesEffectAtOnceOnThisInstance(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	auth := app.NewAuthenticateKeyHandler(f.st, f.clock, app.Config{KeyCacheTTL: time.Hour})
	ctx := context.Background()
	if _, err := auth.Handle(ctx, f.token.Plaintext()); err != nil {
		t.Fatal(err)
	}
	def := app.NewEnsureDefaultWorkspaceHandler(f.st, f.clock, f.ids)
	if _, err := app.NewRevokeKeyHandler(f.st, f.st, def, auth, f.clock).Handle(ctx, app.RevokeKey{KeyID: string(f.principal.Key)}); err != nil {
		t.Fatal(err)
	}
	if _, err := auth.Handle(ctx, f.token.Plaintext()); !errors.Is(err, domain.ErrKeyRevoked) {
		t.Fatalf("after revoke: %v", err)
	}
}

func TestLastUsedIsWrittenInBatches(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var batches []map[domain.KeyID]time.Time
	fail := true
	keys := &portsmock.KeyRepositoryMock{
		GetKeyByIdentifierFunc: f.st.GetKeyByIdentifier,
		TouchKeysFunc: func(ctx context.Context, m map[domain.KeyID]time.Time) error {
			batches = append(batches, m)
			if fail {
				return fmt.Errorf("down: %w", ports.ErrUnavailable)
			}
			return nil
		},
	}
	auth := app.NewAuthenticateKeyHandler(keys, f.clock, app.Config{})
	ctx := context.Background()
	for range 50 {
		f.clock.Advance(time.Second)
		auth.Handle(ctx, f.token.Plaintext())
	}
	last := f.clock.Now()
	if err := auth.FlushLastUsed(ctx); err == nil {
		t.Fatal("a failing flush must report it")
	}
	fail = false
	if err := auth.FlushLastUsed(ctx); err != nil {
		t.Fatal(err)
	}
	if len(batches) != 2 || len(batches[1]) != 1 || !batches[1][f.principal.Key].Equal(last) {
		t.Fatalf("batches %v: want the failed batch kept and written once with the latest time %v", batches, last)
	}
	if err := auth.FlushLastUsed(ctx); err != nil || len(batches) != 2 {
		t.Fatalf("an empty flush must not write")
	}
}

func TestStoreErrorsAreNotCached(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	down := true
	keys := &portsmock.KeyRepositoryMock{GetKeyByIdentifierFunc: func(ctx context.Context, id string) (domain.APIKey, error) {
		if down {
			return domain.APIKey{}, fmt.Errorf("x: %w", ports.ErrUnavailable)
		}
		return f.st.GetKeyByIdentifier(ctx, id)
	}}
	auth := app.NewAuthenticateKeyHandler(keys, f.clock, app.Config{})
	if _, err := auth.Handle(context.Background(), f.token.Plaintext()); !errors.Is(err, ports.ErrUnavailable) || errors.Is(err, domain.ErrInvalidAPIKey) {
		t.Fatalf("store down: %v, want unavailable (not invalid_api_key)", err)
	}
	down = false
	if _, err := auth.Handle(context.Background(), f.token.Plaintext()); err != nil {
		t.Fatalf("store back: %v", err)
	}
}
