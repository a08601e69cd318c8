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
	return s.inTx(ctx, func(ctx context.Context, ts *Store) error { return fn(ctx, ts.repos()) })
}

func (s *Store) repos() ports.Repos {
	return ports.Repos{Workspaces: s, Keys: s, Campaigns: s, Templates: s, Contacts: s, Messages: s, Parked: s, Queue: s,
		Conversations: s, Webhooks: s, Idempotency: s, SendCounts: s, Health: s, Reach: s, Events: s, Numbers: s, Media: s}
}

// inTx runs fn on a store bound to a transaction: s's own when it has one,
// otherwise one that commits when fn returns nil, shared with concurrent
// callers by group commit (group_commit.go) where the dialect has it. fn
// must run its statements with the ctx it is given.
func (s *Store) inTx(ctx context.Context, fn func(ctx context.Context, ts *Store) error) error {
	if s.tx != nil {
		return fn(ctx, s)
	}
	if err := ctx.Err(); err != nil {
		return s.fail("begin transaction", err, nil)
	}
	m := &member{ctx: ctx, fn: fn, done: make(chan outcome, 1)}
	var out outcome
	if s.group == nil {
		s.runGroup([]*member{m})
		out = *m.out
	} else {
		out = s.group.do(m, s.runGroup)
	}
	switch {
	case out.panicked:
		panic(out.panicVal)
	case out.left:
		return s.fail("begin transaction", out.err, nil)
	}
	return out.err
}

// savepoint runs one savepoint statement of a group's transaction.
func (s *Store) savepoint(stmt string) error {
	_, err := s.ext.ExecContext(context.Background(), stmt)
	return s.fail(stmt, err, nil)
}
