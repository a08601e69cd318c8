package delivery

import (
	"cmp"
	"context"
	"slices"

	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// The dispatcher's sends end in waves (Meta answers a batch's sends at
// about the same time), and each outcome (sent, failed, due again) is
// recorded in a transaction. Outcomes that end while the store is busy
// recording others wait, and the next free runner records them all, up to
// maxOutcomeGroup, in one transaction: one BEGIN and one durable COMMIT
// for the group, where each outcome paid its own on PostgreSQL (SQLite's
// group commit shared the commit, not the savepoints around each). An
// outcome that finds a runner free is recorded at once, alone.
//
// A group records its outcomes in message order, so two groups, or a
// group and a lease renewal, lock the messages they share in one order
// and queue rather than deadlock. Each send learns its outcome's fate
// only after the group's COMMIT. When anything in the group fails (a lease
// lost to another instance, a conflict, the store unreachable), nothing of
// it commits and each outcome is recorded again on its own, so every
// outcome keeps its own result: a lost lease stays that send's.

const (
	// outcomeRunners is how many groups are recorded at once: as many as
	// the webhook calls' groups, for the same reason (webhook_groups.go).
	outcomeRunners = 8
	// maxOutcomeGroup bounds one group's outcomes, and so its duration.
	maxOutcomeGroup = 64
)

// outcomeRecord is one send's outcome on its way through a group.
type outcomeRecord struct {
	ctx context.Context
	id  domain.MessageID
	// fn records the outcome in the transaction it is given; it may run
	// twice (in a group that fails, then alone), so it sets what it
	// reports rather than adding to it.
	fn  func(ctx context.Context, r ports.Repos) error
	err error
	// alone: the group failed; the outcome is to be recorded on its own.
	alone bool
}

// recordOutcome records a send's outcome with fn, in a group with the
// outcomes that end meanwhile, and returns fn's error (or the
// transaction's).
func (d *Dispatcher) recordOutcome(ctx context.Context, id domain.MessageID, fn func(ctx context.Context, r ports.Repos) error) error {
	rec := &outcomeRecord{ctx: ctx, id: id, fn: fn}
	if !d.records.Do(rec, ctx.Done()) {
		return ctx.Err()
	}
	if rec.alone {
		return d.tx.WithinTx(ctx, fn)
	}
	return rec.err
}

// recordOutcomes records a group's outcomes in one transaction, in message
// order. A group of more than one that fails marks its outcomes to be
// recorded alone.
func (d *Dispatcher) recordOutcomes(recs []*outcomeRecord) {
	if len(recs) == 1 {
		recs[0].err = d.tx.WithinTx(recs[0].ctx, recs[0].fn)
		return
	}
	slices.SortFunc(recs, func(a, b *outcomeRecord) int { return cmp.Compare(a.id, b.id) })
	ctxs := make([]context.Context, len(recs))
	for i, rec := range recs {
		ctxs[i] = rec.ctx
	}
	ctx, cancel := usecase.BatchContext(ctxs...)
	defer cancel()
	err := d.tx.WithinTx(ctx, func(ctx context.Context, r ports.Repos) error {
		for _, rec := range recs {
			if err := rec.fn(ctx, r); err != nil {
				return err
			}
		}
		return nil
	})
	for _, rec := range recs {
		rec.alone = err != nil
	}
}
