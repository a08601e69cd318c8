package app_test

import (
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/ports/portsmock"
)

// countingKeys is a KeyRepositoryMock over the fixture's store that only
// answers lookups by identifier: any other call panics.
func countingKeys(f *fixture) *portsmock.KeyRepositoryMock {
	return &portsmock.KeyRepositoryMock{GetKeyByIdentifierFunc: f.st.GetKeyByIdentifier}
}

// withChecksum completes a 56-character token body with its checksum.
func withChecksum(body string) string {
	n := crc32.ChecksumIEEE([]byte(body))
	const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	sum := make([]byte, 6)
	for i := 5; i >= 0; i-- {
		sum[i] = alphabet[n%62]
		n /= 62
	}
	return body + string(sum)
}

// TestAuthenticatedPrincipalAlwaysHasAMode: the principal's mode is the
// verified token's, even if the stored key lost its own: a key can never
// pass for the dashboard's operator, who sees every mode.
func TestAuthenticatedPrincipalAlwaysHasAMode(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	keys := &portsmock.KeyRepositoryMock{GetKeyByIdentifierFunc: func(ctx context.Context, id string) (domain.APIKey, error) {
		k, err := f.st.GetKeyByIdentifier(ctx, id)
		k.Mode = domain.KeyMode{}
		return k, err
	}}
	p, err := app.NewAuthenticateKeyHandler(keys, f.clock, app.Config{}).Handle(context.Background(), f.token.Plaintext())
	if err != nil || p.Mode != domain.ModeTest {
		t.Fatalf("principal %+v, %v; want the test key's mode", p, err)
	}
}

func TestAuthenticateKey(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	live, err := app.NewCreateKeyHandler(f.st, f.st, f.def, f.clock, f.ids).Handle(ctx, app.CreateKey{Name: "live", Mode: domain.ModeLive})
	if err != nil {
		t.Fatal(err)
	}
	auth := app.NewAuthenticateKeyHandler(f.st, f.clock, app.Config{})
	for _, c := range []struct {
		token string
		want  domain.Principal
	}{
		{f.token.Plaintext(), f.principal},
		{live.Token.Plaintext(), domain.Principal{Workspace: f.principal.Workspace, Key: live.Key.ID, Mode: domain.ModeLive}},
	} {
		for range 2 { // from the store, then from the cache
			p, err := auth.Handle(ctx, c.token)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.want, p, cmpDomain); diff != "" {
				t.Fatalf("principal (-want +got):\n%s", diff)
			}
		}
	}
}

func TestAuthenticateKeyRefusals(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	tok := f.token.Plaintext()
	other, err := f.ids.NewToken(domain.ModeTest)
	if err != nil {
		t.Fatal(err)
	}
	expiring, err := app.NewCreateKeyHandler(f.st, f.st, f.def, f.clock, f.ids).Handle(ctx, app.CreateKey{Name: "expiring"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.st.UpdateKey(ctx, f.principal.Workspace, expiring.Key.ID, func(k *domain.APIKey) error {
		k.ExpiresAt = &t0
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	auth := app.NewAuthenticateKeyHandler(f.st, f.clock, app.Config{})
	cases := []struct {
		name, token string
		reason      error
	}{
		{"empty", "", domain.ErrTokenLength},
		{"wrong prefix", "sk_prod_" + tok[8:], domain.ErrTokenPrefix},
		{"bad checksum", tok[:56] + "000000", domain.ErrTokenChecksum},
		{"unknown identifier", other.Plaintext(), domain.ErrKeyUnknown},
		{"known identifier, other secret", withChecksum(tok[:24] + other.Plaintext()[24:56]), domain.ErrKeyWrongSecret},
		{"expired", expiring.Token.Plaintext(), domain.ErrKeyExpired},
	}
	for _, c := range cases {
		p, err := auth.Handle(ctx, c.token)
		if !errors.Is(err, domain.ErrInvalidAPIKey) || !errors.Is(err, c.reason) {
			t.Errorf("%s: %v, want invalid_api_key because %v", c.name, err, c.reason)
		}
		if p != (domain.Principal{}) {
			t.Errorf("%s: a refused key gave the principal %+v", c.name, p)
		}
	}
}

// TestConcurrentColdLookupsCollapse: many requests with one key on a cold
// cache make a single repository lookup.
func TestConcurrentColdLookupsCollapse(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	const callers = 32
	var entered atomic.Int32
	allIn := make(chan struct{}) // closed once every caller has called Handle
	keys := &portsmock.KeyRepositoryMock{GetKeyByIdentifierFunc: func(ctx context.Context, id string) (domain.APIKey, error) {
		<-allIn // hold the lookup until everyone is asking
		return f.st.GetKeyByIdentifier(ctx, id)
	}}
	auth := app.NewAuthenticateKeyHandler(keys, f.clock, app.Config{})
	var wg sync.WaitGroup
	principals := make([]domain.Principal, callers)
	errs := make([]error, callers)
	for i := range callers {
		wg.Go(func() {
			if entered.Add(1) == callers {
				close(allIn)
			}
			principals[i], errs[i] = auth.Handle(context.Background(), f.token.Plaintext())
		})
	}
	wg.Wait()
	for i := range callers {
		if errs[i] != nil || principals[i] != f.principal {
			t.Fatalf("caller %d: %+v, %v", i, principals[i], errs[i])
		}
	}
	if n := len(keys.GetKeyByIdentifierCalls()); n != 1 {
		t.Fatalf("%d repository lookups for %d concurrent requests on a cold cache, want 1", n, callers)
	}
}

func TestKeyCacheTTL(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	keys := countingKeys(f)
	auth := app.NewAuthenticateKeyHandler(keys, f.clock, app.Config{KeyCacheTTL: 30 * time.Second})
	if _, err := auth.Handle(ctx, f.token.Plaintext()); err != nil {
		t.Fatal(err)
	}
	// Another instance revokes the key: this one trusts its cache until
	// the TTL runs out (DESIGN §2), then reads the key again.
	if _, err := f.st.UpdateKey(ctx, f.principal.Workspace, f.principal.Key, func(k *domain.APIKey) error {
		k.Revoke(t0)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(29 * time.Second)
	if _, err := auth.Handle(ctx, f.token.Plaintext()); err != nil {
		t.Fatalf("within the TTL: %v, want the key as cached before the revocation accepted", err)
	}
	if n := len(keys.GetKeyByIdentifierCalls()); n != 1 {
		t.Fatalf("%d lookups within the cache TTL, want 1", n)
	}
	f.clock.Advance(time.Second) // 30 s: the entry has expired
	if _, err := auth.Handle(ctx, f.token.Plaintext()); !errors.Is(err, domain.ErrKeyRevoked) {
		t.Fatalf("after the cache TTL: %v, want the revocation seen", err)
	}
	if n := len(keys.GetKeyByIdentifierCalls()); n != 2 {
		t.Fatalf("%d lookups after the cache TTL, want 2", n)
	}
}

func TestNegativeCache(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	keys := countingKeys(f)
	auth := app.NewAuthenticateKeyHandler(keys, f.clock, app.Config{KeyNegativeTTL: 10 * time.Second})
	unknown, err := f.ids.NewToken(domain.ModeTest)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if _, err := auth.Handle(ctx, unknown.Plaintext()); !errors.Is(err, domain.ErrInvalidAPIKey) || !errors.Is(err, domain.ErrKeyUnknown) {
			t.Fatalf("attempt %d with an unknown key: %v", i, err)
		}
		f.clock.Advance(time.Second)
	}
	f.clock.Advance(4 * time.Second) // 9 s after the lookup
	if _, err := auth.Handle(ctx, unknown.Plaintext()); !errors.Is(err, domain.ErrKeyUnknown) {
		t.Fatal(err)
	}
	if n := len(keys.GetKeyByIdentifierCalls()); n != 1 {
		t.Fatalf("%d lookups of an unknown identifier within the negative TTL, want 1", n)
	}
	f.clock.Advance(time.Second) // 10 s: the negative entry has expired
	if _, err := auth.Handle(ctx, unknown.Plaintext()); !errors.Is(err, domain.ErrKeyUnknown) {
		t.Fatal(err)
	}
	if n := len(keys.GetKeyByIdentifierCalls()); n != 2 {
		t.Fatalf("%d lookups after the negative TTL, want 2", n)
	}
	// A known key is not held up by the negative entry of another.
	if _, err := auth.Handle(ctx, f.token.Plaintext()); err != nil {
		t.Fatal(err)
	}
}

// TestRevocationTakesEffectAtOnceOnThisInstance: RevokeKey drops the key
// from this instance's cache, however long its TTL.
func TestRevocationTakesEffectAtOnceOnThisInstance(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	auth := app.NewAuthenticateKeyHandler(f.st, f.clock, app.Config{KeyCacheTTL: time.Hour})
	if _, err := auth.Handle(ctx, f.token.Plaintext()); err != nil {
		t.Fatal(err)
	}
	if _, err := app.NewRevokeKeyHandler(f.st, f.st, f.def, auth, f.clock).Handle(ctx,
		app.RevokeKey{Workspace: string(f.principal.Workspace), KeyID: string(f.principal.Key)}); err != nil {
		t.Fatal(err)
	}
	if _, err := auth.Handle(ctx, f.token.Plaintext()); !errors.Is(err, domain.ErrInvalidAPIKey) || !errors.Is(err, domain.ErrKeyRevoked) {
		t.Fatalf("right after the revocation: %v, want invalid_api_key (revoked)", err)
	}
}

// TestMalformedTokensNeverReachTheRepository: the repository mock has no
// functions, so any call would panic.
func TestMalformedTokensNeverReachTheRepository(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	keys := &portsmock.KeyRepositoryMock{}
	auth := app.NewAuthenticateKeyHandler(keys, f.clock, app.Config{})
	tok := f.token.Plaintext()
	for _, bad := range []string{"", "sk_test_", tok[:61], tok + "x", "sk_live_" + tok[8:], tok[:56] + "000000", tok[:30] + "-" + tok[31:]} {
		if _, err := auth.Handle(context.Background(), bad); !errors.Is(err, domain.ErrInvalidAPIKey) {
			t.Errorf("%q: %v, want invalid_api_key", bad, err)
		}
	}
}

func TestFlushLastUsedWritesOneBatch(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	second, err := app.NewCreateKeyHandler(f.st, f.st, f.def, f.clock, f.ids).Handle(ctx, app.CreateKey{Name: "second"})
	if err != nil {
		t.Fatal(err)
	}
	keys := &portsmock.KeyRepositoryMock{GetKeyByIdentifierFunc: f.st.GetKeyByIdentifier, TouchKeysFunc: f.st.TouchKeys}
	auth := app.NewAuthenticateKeyHandler(keys, f.clock, app.Config{})
	for range 50 {
		f.clock.Advance(time.Second)
		if _, err := auth.Handle(ctx, f.token.Plaintext()); err != nil {
			t.Fatal(err)
		}
	}
	firstLast := f.clock.Now()
	f.clock.Advance(time.Second)
	if _, err := auth.Handle(ctx, second.Token.Plaintext()); err != nil {
		t.Fatal(err)
	}
	if n := len(keys.TouchKeysCalls()); n != 0 {
		t.Fatalf("last-used times written %d times before a flush, want 0", n)
	}
	if err := auth.FlushLastUsed(ctx); err != nil {
		t.Fatal(err)
	}
	calls := keys.TouchKeysCalls()
	want := map[domain.KeyID]time.Time{f.principal.Key: firstLast, second.Key.ID: f.clock.Now()}
	if len(calls) != 1 {
		t.Fatalf("%d TouchKeys calls for one flush, want 1", len(calls))
	}
	if diff := cmp.Diff(want, calls[0].LastUsed); diff != "" {
		t.Fatalf("the batch (-want +got):\n%s", diff)
	}
	k, err := f.st.GetKeyByIdentifier(ctx, f.token.Identifier())
	if err != nil || k.LastUsedAt == nil || !k.LastUsedAt.Equal(firstLast) {
		t.Fatalf("stored last use %v (%v), want %v", k.LastUsedAt, err, firstLast)
	}
	if err := auth.FlushLastUsed(ctx); err != nil {
		t.Fatal(err)
	}
	if n := len(keys.TouchKeysCalls()); n != 1 {
		t.Fatalf("a flush with nothing new wrote again: %d calls", n)
	}
}

func TestFailedFlushKeepsTimesForTheNext(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	second, err := app.NewCreateKeyHandler(f.st, f.st, f.def, f.clock, f.ids).Handle(ctx, app.CreateKey{Name: "second"})
	if err != nil {
		t.Fatal(err)
	}
	var fail atomic.Bool
	fail.Store(true)
	keys := &portsmock.KeyRepositoryMock{
		GetKeyByIdentifierFunc: f.st.GetKeyByIdentifier,
		TouchKeysFunc: func(ctx context.Context, m map[domain.KeyID]time.Time) error {
			if fail.Load() {
				return fmt.Errorf("touch keys: %w", ports.ErrUnavailable)
			}
			return f.st.TouchKeys(ctx, m)
		},
	}
	auth := app.NewAuthenticateKeyHandler(keys, f.clock, app.Config{})
	if _, err := auth.Handle(ctx, f.token.Plaintext()); err != nil {
		t.Fatal(err)
	}
	firstUse := f.clock.Now()
	f.clock.Advance(time.Second)
	if _, err := auth.Handle(ctx, second.Token.Plaintext()); err != nil {
		t.Fatal(err)
	}
	if err := auth.FlushLastUsed(ctx); !errors.Is(err, ports.ErrUnavailable) {
		t.Fatalf("a failing flush: %v, want the store's error", err)
	}
	// The second key is used again after the failure: its newer time wins.
	f.clock.Advance(time.Second)
	if _, err := auth.Handle(ctx, second.Token.Plaintext()); err != nil {
		t.Fatal(err)
	}
	fail.Store(false)
	if err := auth.FlushLastUsed(ctx); err != nil {
		t.Fatal(err)
	}
	calls := keys.TouchKeysCalls()
	if len(calls) != 2 {
		t.Fatalf("%d TouchKeys calls, want 2 (the failed one and the retry)", len(calls))
	}
	want := map[domain.KeyID]time.Time{f.principal.Key: firstUse, second.Key.ID: f.clock.Now()}
	if diff := cmp.Diff(want, calls[1].LastUsed); diff != "" {
		t.Fatalf("the batch after a failed flush (-want +got):\n%s", diff)
	}
}

func TestStoreErrorsAreReturnedAndNotCached(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var down atomic.Bool
	down.Store(true)
	keys := &portsmock.KeyRepositoryMock{GetKeyByIdentifierFunc: func(ctx context.Context, id string) (domain.APIKey, error) {
		if down.Load() {
			return domain.APIKey{}, fmt.Errorf("memstore: get key: %w", ports.ErrUnavailable)
		}
		return f.st.GetKeyByIdentifier(ctx, id)
	}}
	auth := app.NewAuthenticateKeyHandler(keys, f.clock, app.Config{})
	for range 2 {
		_, err := auth.Handle(context.Background(), f.token.Plaintext())
		if !errors.Is(err, ports.ErrUnavailable) || errors.Is(err, domain.ErrInvalidAPIKey) {
			t.Fatalf("store down: %v, want unavailable and not invalid_api_key", err)
		}
	}
	if n := len(keys.GetKeyByIdentifierCalls()); n != 2 {
		t.Fatalf("%d lookups for two requests while the store was down, want 2: failures must not be cached", n)
	}
	down.Store(false)
	if p, err := auth.Handle(context.Background(), f.token.Plaintext()); err != nil || p != f.principal {
		t.Fatalf("store back: %+v, %v", p, err)
	}
}
