package memstore

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/heraldhq/herald/ports"
)

// txKey marks a transaction's context, to catch calls to the Store from
// inside its own transaction.
type txKey struct{}

// txn is one running transaction.
type txn struct {
	st   *state
	open atomic.Bool
	mu   sync.Mutex // serialises calls through the transaction's repositories
}

// enter admits one call through the transaction's repositories.
func (tx *txn) enter(context.Context) (leave func()) {
	if !tx.open.Load() {
		panic("memstore: repositories used after their transaction ended")
	}
	tx.mu.Lock()
	return tx.mu.Unlock
}

// WithinTx runs fn holding the store's lock, so other callers wait and never
// see a partial transaction. fn's repositories write to the store directly
// and see their own writes; each write records how to undo it. If fn
// returns an error or panics (or its goroutine exits), the writes are undone
// in reverse order and the error or panic goes on to the caller.
func (s *Store) WithinTx(ctx context.Context, fn func(ctx context.Context, r ports.Repos) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	st := s.st
	defer st.lock(ctx)()
	tx := &txn{st: st}
	tx.open.Store(true)
	var undo []func()
	st.undo = &undo
	committed := false
	defer func() {
		tx.open.Store(false)
		st.undo = nil
		if !committed {
			for i := len(undo) - 1; i >= 0; i-- {
				undo[i]()
			}
		}
	}()

	r := &repos{st: st, enter: tx.enter}
	repos := ports.Repos{Workspaces: r, Keys: r, Campaigns: r, Templates: r, Contacts: r, Messages: r, Parked: r, Queue: r,
		Conversations: r, Webhooks: r, Idempotency: r, SendCounts: r, Health: r, Reach: r, Events: r, Numbers: r, Media: r}
	if err := fn(context.WithValue(ctx, txKey{}, tx), repos); err != nil {
		return err
	}
	committed = true
	return nil
}
