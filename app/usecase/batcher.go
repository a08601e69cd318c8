package usecase

import (
	"context"
	"sync"
	"time"
)

// Batcher gathers items submitted concurrently into batches, so that one
// run (one transaction) handles many: sends (send-campaign) and Meta's
// webhook calls. An item submitted while every runner
// is busy waits in a queue, and the next free runner takes the first max
// queued items at once; an item that finds a runner free runs at once,
// alone, so a quiet server waits for nothing.
//
// Whoever submits an item may become a runner: a waiting caller takes a
// free runner's slot and runs the queue's next batch on its own goroutine.
type Batcher[T any] struct {
	slots chan struct{} // one per runner at work
	max   int
	run   func([]T) // handles a batch; each item carries its own outcome
	mu    sync.Mutex
	queue []*queued[T]
}

type queued[T any] struct {
	item T
	done chan struct{} // closed once run has returned for the item's batch
}

// NewBatcher returns a batcher of runners runners, each running up to max
// items at once with run.
func NewBatcher[T any](runners, max int, run func([]T)) *Batcher[T] {
	return &Batcher[T]{slots: make(chan struct{}, runners), max: max, run: run}
}

// Do queues item and returns once a run has handled it, or with false when
// cancel fired while the item was still queued: it then leaves the queue
// and is never run.
func (b *Batcher[T]) Do(item T, cancel <-chan struct{}) bool {
	q := &queued[T]{item: item, done: make(chan struct{})}
	b.mu.Lock()
	b.queue = append(b.queue, q)
	b.mu.Unlock()
	for {
		select {
		case <-q.done:
			return true
		case b.slots <- struct{}{}:
			if !b.lead() {
				// The queue was empty: another runner holds the item.
				<-q.done
				return true
			}
		case <-cancel:
			if b.remove(q) {
				return false
			}
			cancel = nil // the item is running: wait for it
		}
	}
}

// lead runs the queue's next batch holding a slot, and reports whether there
// was one. The batch's items are released even when run panics.
func (b *Batcher[T]) lead() bool {
	defer func() { <-b.slots }()
	b.mu.Lock()
	n := min(len(b.queue), b.max)
	batch := b.queue[:n:n]
	b.queue = b.queue[n:]
	b.mu.Unlock()
	if n == 0 {
		return false
	}
	items := make([]T, n)
	for i, q := range batch {
		items[i] = q.item
		defer close(q.done)
	}
	b.run(items)
	return true
}

// remove takes q out of the queue, reporting false when a runner already has.
func (b *Batcher[T]) remove(q *queued[T]) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i, x := range b.queue {
		if x == q {
			b.queue = append(b.queue[:i], b.queue[i+1:]...)
			return true
		}
	}
	return false
}

// BatchContext is the context a batch of callers' work runs with: the first
// caller's values, none of the callers' cancellation (a caller that hangs up
// must not fail the others), and the earliest of their deadlines.
func BatchContext(ctxs ...context.Context) (context.Context, context.CancelFunc) {
	ctx := context.WithoutCancel(ctxs[0])
	var first time.Time
	for _, c := range ctxs {
		if d, ok := c.Deadline(); ok && (first.IsZero() || d.Before(first)) {
			first = d
		}
	}
	if first.IsZero() {
		return ctx, func() {}
	}
	return context.WithDeadline(ctx, first)
}

// Queued is how many items wait for a runner.
func (b *Batcher[T]) Queued() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.queue)
}
