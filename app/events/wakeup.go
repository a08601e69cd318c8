package events

import (
	"context"
	"sync/atomic"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// Wakeup tells the delivery worker that events were committed. Signals
// coalesce: any number of them before the worker looks count as one.
type Wakeup struct{ c chan struct{} }

// NewWakeup returns a ready Wakeup.
func NewWakeup() *Wakeup { return &Wakeup{c: make(chan struct{}, 1)} }

// Signal wakes the worker without blocking. A nil Wakeup ignores it.
func (w *Wakeup) Signal() {
	if w == nil {
		return
	}
	select {
	case w.c <- struct{}{}:
	default:
	}
}

// C is the channel the worker waits on; a nil Wakeup's never fires.
func (w *Wakeup) C() <-chan struct{} {
	if w == nil {
		return nil
	}
	return w.c
}

// WakeOnCommit returns tx such that a transaction that appended events
// signals w once it has committed, so that the worker sequences and
// delivers them at once instead of at its next poll. A transaction that
// rolls back signals nothing: its events are gone with it.
func WakeOnCommit(tx ports.Transactor, w *Wakeup) ports.Transactor {
	return wakingTx{tx: tx, wake: w}
}

type wakingTx struct {
	tx   ports.Transactor
	wake *Wakeup
}

func (t wakingTx) WithinTx(ctx context.Context, fn func(ctx context.Context, r ports.Repos) error) error {
	var appended atomic.Bool
	err := t.tx.WithinTx(ctx, func(ctx context.Context, r ports.Repos) error {
		appended.Store(false) // a store that runs fn again starts over
		r.Events = noticingWriter{w: r.Events, appended: &appended}
		return fn(ctx, r)
	})
	if err == nil && appended.Load() {
		t.wake.Signal()
	}
	return err
}

// noticingWriter notes that its transaction appended events.
type noticingWriter struct {
	w        ports.EventWriter
	appended *atomic.Bool
}

func (n noticingWriter) AppendEvents(ctx context.Context, es ...domain.Event) error {
	if len(es) == 0 {
		return nil
	}
	if err := n.w.AppendEvents(ctx, es...); err != nil {
		return err
	}
	n.appended.Store(true)
	return nil
}

func (n noticingWriter) AppendEventTo(ctx context.Context, e domain.Event, endpoint domain.WebhookEndpointID) error {
	if err := n.w.AppendEventTo(ctx, e, endpoint); err != nil {
		return err
	}
	n.appended.Store(true)
	return nil
}

var _ ports.Transactor = wakingTx{}
