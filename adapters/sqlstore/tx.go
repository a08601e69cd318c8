package sqlstore

import (
	"context"

	"github.com/heraldhq/herald/ports"
)

// WithinTx runs fn with repositories bound to one transaction (on SQLite a
// BEGIN IMMEDIATE one). If fn returns an error or panics, the transaction is
// rolled back (and the panic continues); otherwise it commits, and a failed
// commit is returned as an error, never reported as success. Called on a
// store already bound to a transaction, fn joins it.
func (s *Store) WithinTx(ctx context.Context, fn func(ctx context.Context, r ports.Repos) error) error {
	return s.inTx(ctx, func(ts *Store) error { return fn(ctx, ts.repos()) })
}

func (s *Store) repos() ports.Repos {
	return ports.Repos{Workspaces: s, Keys: s, Campaigns: s, Templates: s, Contacts: s, Messages: s, Queue: s,
		Conversations: s, Webhooks: s, Idempotency: s, SendCounts: s}
}

// inTx runs fn on a store bound to a transaction: s's own when it has one,
// otherwise a new one that commits when fn returns nil.
func (s *Store) inTx(ctx context.Context, fn func(ts *Store) error) error {
	if s.tx != nil {
		return fn(s)
	}
	unlock, err := s.lockWriter(ctx)
	if err != nil {
		return s.fail("begin transaction", err, nil)
	}
	defer unlock()
	tx, err := s.db.BeginTxx(ctx, nil)
	if err != nil {
		return s.fail("begin transaction", err, nil)
	}
	done := false
	defer func() {
		if !done {
			// fn failed or panicked; a panic carries on once this returns.
			_ = tx.Rollback()
		}
	}()
	if err := fn(&Store{db: s.db, ext: tx, tx: tx, d: s.d, writer: s.writer}); err != nil {
		return err
	}
	done = true // Commit ends the transaction whether or not it succeeds.
	if err := tx.Commit(); err != nil {
		return s.fail("commit", err, nil)
	}
	return nil
}
