package app

import (
	"context"
	"errors"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// AuthenticateKeyHandler turns a presented X-API-KEY into a principal
// (DESIGN §2): parse and checksum first, so malformed tokens never reach
// storage; then a bounded cache by identifier, with negative entries for
// unknown identifiers and concurrent misses collapsed into one lookup; then a
// constant-time hash compare and the revoked/expired checks. Last-used times
// are collected in memory and written in coalesced batches by FlushLastUsed.
type AuthenticateKeyHandler struct {
	keys  ports.KeyRepository
	clock ports.Clock
	cfg   Config

	group singleflight.Group

	mu    sync.Mutex
	cache map[string]cachedKey
	used  map[domain.KeyID]time.Time
}

type cachedKey struct {
	key     domain.APIKey
	found   bool
	expires time.Time
}

// NewAuthenticateKeyHandler builds the handler.
func NewAuthenticateKeyHandler(keys ports.KeyRepository, clock ports.Clock, cfg Config) *AuthenticateKeyHandler {
	return &AuthenticateKeyHandler{
		keys: keys, clock: clock, cfg: cfg.WithDefaults(),
		cache: make(map[string]cachedKey), used: make(map[domain.KeyID]time.Time),
	}
}

// Handle authenticates token. Every refusal is domain.ErrInvalidAPIKey
// (errors.Is), wrapping the precise reason for the log; a store failure is
// returned as it is.
func (h *AuthenticateKeyHandler) Handle(ctx context.Context, token string) (domain.Principal, error) {
	tok, err := domain.ParseToken(token)
	if err != nil {
		return domain.Principal{}, err
	}
	now := h.clock.Now()
	key, found, err := h.lookup(ctx, tok.Identifier(), now)
	if err != nil {
		return domain.Principal{}, err
	}
	if !found {
		return domain.Principal{}, domain.UnknownKey()
	}
	if err := key.Verify(tok, now); err != nil {
		return domain.Principal{}, err
	}
	h.mu.Lock()
	h.used[key.ID] = now
	h.mu.Unlock()
	// The mode is the token's prefix, which the hash just verified: a key's
	// principal always has one, and a principal without one is the
	// dashboard's operator, who sees every mode (Principal.Sees).
	return domain.Principal{Workspace: key.Workspace, Key: key.ID, Mode: tok.Mode()}, nil
}

func (h *AuthenticateKeyHandler) lookup(ctx context.Context, identifier string, now time.Time) (domain.APIKey, bool, error) {
	h.mu.Lock()
	c, ok := h.cache[identifier]
	h.mu.Unlock()
	if ok && now.Before(c.expires) {
		return c.key, c.found, nil
	}
	v, err, _ := h.group.Do(identifier, func() (any, error) {
		// A flight for this identifier may have finished between the cache
		// check above and this one starting: look again before the store.
		h.mu.Lock()
		c, ok := h.cache[identifier]
		h.mu.Unlock()
		if ok && now.Before(c.expires) {
			return c, nil
		}
		// Detach from the first caller's cancellation: others share the result.
		ctx := context.WithoutCancel(ctx)
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		k, err := h.keys.GetKeyByIdentifier(ctx, identifier)
		entry := cachedKey{key: k, found: true, expires: now.Add(h.cfg.KeyCacheTTL)}
		switch {
		case errors.Is(err, domain.ErrKeyNotFound):
			entry = cachedKey{expires: now.Add(h.cfg.KeyNegativeTTL)}
		case err != nil:
			return nil, err
		}
		h.store(identifier, entry)
		return entry, nil
	})
	if err != nil {
		return domain.APIKey{}, false, err
	}
	e := v.(cachedKey)
	return e.key, e.found, nil
}

func (h *AuthenticateKeyHandler) store(identifier string, e cachedKey) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.cache) >= h.cfg.KeyCacheSize {
		// Drop expired entries first; if none, drop an arbitrary one.
		now := e.expires.Add(-h.cfg.KeyCacheTTL)
		for id, c := range h.cache {
			if !now.Before(c.expires) {
				delete(h.cache, id)
			}
		}
		for id := range h.cache {
			if len(h.cache) < h.cfg.KeyCacheSize {
				break
			}
			delete(h.cache, id)
		}
	}
	h.cache[identifier] = e
}

// Forget drops a key from the cache, so a revocation takes effect on this
// instance at once.
func (h *AuthenticateKeyHandler) Forget(identifier string) {
	h.mu.Lock()
	delete(h.cache, identifier)
	h.mu.Unlock()
}

// FlushLastUsed writes the last-used times gathered since the previous flush
// in one batch. On failure the times are kept for the next flush.
func (h *AuthenticateKeyHandler) FlushLastUsed(ctx context.Context) error {
	h.mu.Lock()
	batch := h.used
	h.used = make(map[domain.KeyID]time.Time)
	h.mu.Unlock()
	if len(batch) == 0 {
		return nil
	}
	if err := h.keys.TouchKeys(ctx, batch); err != nil {
		h.mu.Lock()
		for id, t := range batch {
			if cur, ok := h.used[id]; !ok || t.After(cur) {
				h.used[id] = t
			}
		}
		h.mu.Unlock()
		return err
	}
	return nil
}
