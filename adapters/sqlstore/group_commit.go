package sqlstore

import (
	"context"
	"errors"
	"sync"
)

// Group commit, SQLite's. A durable commit costs an fsync whatever it
// holds, and SQLite has one writer, so transactions that arrive while
// another is running wait in a queue and the next free runner takes them
// all, up to maxBatch, into one database transaction (PostgreSQL runs each
// transaction alone: see postgresDialect.commitRunners):
//
//   - each member runs inside its own savepoint, in arrival order, seeing the
//     writes of the members before it, as if the members ran one after
//     another;
//   - a member whose function fails (or panics) is rolled back to its
//     savepoint; the others go on;
//   - every member is answered after the one COMMIT: its function's own
//     error, or nil, or, when the commit fails, the commit's error. No caller
//     hears of success before its writes are durable, and no caller acts on
//     state that was never committed.
//
// A transaction that finds no queue runs at once, alone and without a
// savepoint, so a quiet server pays nothing for the batching.

// maxBatch bounds one group's members, and so a group's duration and the
// latency of its first member.
const maxBatch = 64

// member is one caller's transaction waiting in a group.
type member struct {
	ctx  context.Context
	fn   func(ctx context.Context, ts *Store) error
	done chan outcome // buffered: the runner never waits for the caller
	out  *outcome     // what the runner will deliver, once fn has run
}

// outcome is what a member's caller gets: fn's error, or the panic fn
// raised, which the caller raises again on its own goroutine.
type outcome struct {
	err      error
	panicked bool
	panicVal any
	left     bool // the caller's context ended while it was queued; fn never ran
}

// errAbandoned answers members whose group stopped without finishing, which
// only happens when a function ends its goroutine (runtime.Goexit, as a
// test's t.FailNow does).
var errAbandoned = errors.New("sqlstore: the transaction's group ended before it ran")

// committer queues transactions and admits up to cap(slots) groups at once.
type committer struct {
	slots chan struct{}
	mu    sync.Mutex
	queue []*member
}

// newCommitter returns nil for no runners: no group commit.
func newCommitter(runners int) *committer {
	if runners == 0 {
		return nil
	}
	return &committer{slots: make(chan struct{}, runners)}
}

// do queues m and waits for its outcome. While it waits, it takes a runner's
// slot when one is free and runs the queue's next group itself; a caller
// whose context ends while m is still queued leaves the queue with the
// context's error.
func (c *committer) do(m *member, run func([]*member)) outcome {
	c.mu.Lock()
	c.queue = append(c.queue, m)
	c.mu.Unlock()
	ctxDone := m.ctx.Done()
	for {
		select {
		case out := <-m.done:
			return out
		case c.slots <- struct{}{}:
			if !c.lead(run) {
				// The queue was empty: another runner holds m.
				return <-m.done
			}
		case <-ctxDone:
			if c.remove(m) {
				return outcome{err: m.ctx.Err(), left: true}
			}
			ctxDone = nil // m is running: wait for it
		}
	}
}

// lead runs the queue's next group holding a slot, and reports whether there
// was one.
func (c *committer) lead(run func([]*member)) bool {
	defer func() { <-c.slots }()
	c.mu.Lock()
	n := min(len(c.queue), maxBatch)
	group := c.queue[:n:n]
	c.queue = c.queue[n:]
	c.mu.Unlock()
	if n == 0 {
		return false
	}
	defer func() {
		// Answer everyone, even when a function ended this goroutine.
		for _, m := range group {
			if m.out == nil {
				m.out = &outcome{err: errAbandoned}
			}
			m.done <- *m.out
		}
	}()
	run(group)
	return true
}

// remove takes m out of the queue, reporting false when a runner already has.
func (c *committer) remove(m *member) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, q := range c.queue {
		if q == m {
			c.queue = append(c.queue[:i], c.queue[i+1:]...)
			return true
		}
	}
	return false
}

// runGroup runs the members in one database transaction, as the comment at
// the top of this file describes, and sets each member's outcome.
func (s *Store) runGroup(group []*member) {
	fail := func(err error) {
		for _, m := range group {
			if m.out == nil || !m.out.panicked {
				m.out = &outcome{err: err}
			}
		}
	}
	unlock, err := s.lockWriter(context.Background())
	if err != nil {
		fail(s.fail("begin transaction", err, nil))
		return
	}
	defer unlock()
	tx, err := s.db.BeginTxx(context.Background(), nil)
	if err != nil {
		fail(s.fail("begin transaction", err, nil))
		return
	}
	committed := false
	defer func() {
		if !committed {
			_ = tx.Rollback()
		}
	}()
	ts := &Store{db: s.db, ext: tx, tx: tx, d: s.d, writer: s.writer, stmts: s.stmts}
	alone := len(group) == 1
	open := false // a member's savepoint is still open: COMMIT releases it
	for _, m := range group {
		if err := m.ctx.Err(); err != nil {
			m.out = &outcome{err: s.fail("begin transaction", err, nil)}
			continue
		}
		if alone {
			if m.out = runMember(m, ts); m.out.err != nil || m.out.panicked {
				return
			}
			break
		}
		// The previous member's savepoint is released and this one's taken
		// in one round trip.
		begin := `SAVEPOINT member`
		if open {
			begin = `RELEASE SAVEPOINT member; SAVEPOINT member`
		}
		if err := ts.savepoint(begin); err != nil {
			fail(err)
			return
		}
		open = true
		if m.out = runMember(m, ts); m.out.err == nil && !m.out.panicked {
			continue
		}
		if err := ts.savepoint(`ROLLBACK TO SAVEPOINT member`); err != nil {
			// The engine gave up the whole transaction (SQLite does so on
			// some I/O errors): nobody's writes can commit.
			fail(err)
			return
		}
	}
	committed = true // Commit ends the transaction whether or not it succeeds.
	if err := tx.Commit(); err != nil {
		fail(s.fail("commit", err, nil))
	}
}

// runMember runs one member's function, catching its panic. The function's
// statements see the member's deadline but not a plain cancellation: a
// client that hangs up must not interrupt a statement of a transaction that
// others share (SQLite would roll all of it back).
func runMember(m *member, ts *Store) (out *outcome) {
	ctx := context.WithoutCancel(m.ctx)
	if deadline, ok := m.ctx.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, deadline)
		defer cancel()
	}
	defer func() {
		if r := recover(); r != nil {
			out = &outcome{panicked: true, panicVal: r}
		}
	}()
	return &outcome{err: m.fn(ctx, ts)}
}
