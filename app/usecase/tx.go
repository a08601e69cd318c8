package usecase

import (
	"context"
	"time"

	"github.com/heraldhq/herald/ports"
)

// ObserveTx returns tx such that each transaction is a span ("store.tx")
// and counts in the store's latency (ports.Metrics.StoreTx), and runs the
// functions its work registered with AfterCommit once it has committed. A
// nil observer leaves the spans and counts out, not the hooks.
func ObserveTx(tx ports.Transactor, o *Observer) ports.Transactor {
	return observedTx{tx: tx, o: o}
}

type observedTx struct {
	tx ports.Transactor
	o  *Observer
}

type afterCommitKey struct{}

// afterCommit collects one transaction's hooks.
type afterCommit struct{ fns []func() }

// AfterCommit runs fn once the transaction ctx belongs to (a context
// WithinTx gave, through an ObserveTx transactor) has committed; never
// when it rolls back. Outside such a transaction fn runs at once. Use it
// for what may be told only of what lasted: counts, logs.
func AfterCommit(ctx context.Context, fn func()) {
	if ac, ok := ctx.Value(afterCommitKey{}).(*afterCommit); ok {
		ac.fns = append(ac.fns, fn)
		return
	}
	fn()
}

func (t observedTx) WithinTx(ctx context.Context, fn func(ctx context.Context, r ports.Repos) error) error {
	if outer, ok := ctx.Value(afterCommitKey{}).(*afterCommit); ok && outer != nil {
		// Within another: its commit is the one that counts.
		return t.tx.WithinTx(ctx, fn)
	}
	start := time.Now()
	ctx, span := t.o.StartSpan(ctx, "store.tx")
	ac := &afterCommit{}
	ctx = context.WithValue(ctx, afterCommitKey{}, ac)
	err := t.tx.WithinTx(ctx, func(ctx context.Context, r ports.Repos) error {
		ac.fns = ac.fns[:0] // a store that runs fn again starts over
		return fn(ctx, r)
	})
	span.End(err)
	t.o.Metrics().StoreTx(time.Since(start), err)
	if err == nil {
		for _, f := range ac.fns {
			f()
		}
	}
	return err
}
