package delivery

import (
	"cmp"
	"context"
	"slices"

	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// Meta posts each status in a call of its own, many calls at once. Calls
// that arrive while the store is busy with others are stored and applied
// together: a free runner takes the waiting calls, up to maxWebhookGroup,
// into one transaction, so a group pays one BEGIN and one durable COMMIT
// where each call paid its own (PostgreSQL runs every transaction alone;
// SQLite's group commit shared the commit but not the savepoints and the
// queueing around each). A call that finds a runner free is stored at
// once, alone, as before.
//
// In the group's transaction the events are stored first, together
// (SaveWebhookEvents), in digest order; then the messages the statuses
// name are read and locked together, in id order (two groups touching the
// same messages lock them in one order and queue rather than deadlock),
// and the statuses of every event applied to them in message order, each
// event's in the order Meta sent them where they name the same message,
// the changed messages written together at the end
// (webhook_group_writes.go); then each event's other items in arrival
// order, then the marks of events stored before and applied now; then the
// events the group's changes report, together. Every call is answered
// after the COMMIT, so a call is never acknowledged before its event is
// durable. When anything in the group fails, nothing of it commits and
// each call is stored and applied again on its own, the way a call alone
// is (receive_webhook.go).

const (
	// webhookGroupRunners is how many groups are stored at once. A
	// group runs its statements one after another on one connection. When
	// it ran a few statements per call, two runners acknowledged fewer
	// calls on PostgreSQL under load than one transaction per call did,
	// and eight kept pace. Now that a group runs about seven statements
	// whatever its size, eight runners took so much of a saturated
	// PostgreSQL that the dispatcher sent 364–440 messages a second of 500,
	// and four sent them all and acknowledged more webhooks
	// (docs/benchmarks.md).
	webhookGroupRunners = 4
	// maxWebhookGroup bounds one group's calls, and so its duration and
	// the latency of its first call. Meta keeps at most 64 calls of a
	// business in flight.
	maxWebhookGroup = 64
)

// webhookCall is one call's event on its way through a group, and what the
// group did with it.
type webhookCall struct {
	ctx context.Context
	ev  domain.WebhookEvent

	// ok: the event is stored and applied (now or before); stored is the
	// event as the store holds it, created false when the same body was
	// stored before, rep what applying it did.
	ok      bool
	stored  domain.WebhookEvent
	created bool
	rep     WebhookReport
	// alone: the call's group failed; the call is to be stored on its
	// own.
	alone bool
}

// groupedEvent is a call's event decoded for its group's transaction.
type groupedEvent struct {
	call    *webhookCall
	batch   ports.WebhookBatch
	foreign map[string]int
	items   []webhookItem
	stored  domain.WebhookEvent
	created bool
	done    bool // stored and applied before: nothing to apply
	rep     WebhookReport
}

// storeGroup stores and applies the calls of a group together. A group of
// more than one that fails marks its calls to be stored alone.
func (h *ApplyWebhookEventHandler) storeGroup(calls []*webhookCall) {
	if len(calls) == 1 {
		h.storeAndApply(calls[0].ctx, calls)
		return
	}
	ctxs := make([]context.Context, len(calls))
	for i, c := range calls {
		ctxs[i] = c.ctx
	}
	ctx, cancel := usecase.BatchContext(ctxs...)
	defer cancel()
	if !h.storeAndApply(ctx, calls) {
		for _, c := range calls {
			c.alone = true
		}
	}
}

// storeAndApply stores the calls' events and applies all of their items in
// one transaction, each event inserted already marked applied: one commit
// for the calls where storing and then applying each take two. It is the
// common case's path only: when anything fails (a body does not decode, an
// item is refused, the store cannot be reached, a concurrent write
// conflicts) nothing of it commits, it returns false, and no call is ok. A
// call whose body does not decode is left out of the transaction, not ok.
// An event stored and applied before is not applied again.
func (h *ApplyWebhookEventHandler) storeAndApply(ctx context.Context, calls []*webhookCall) bool {
	now := h.clock.Now()
	group := make([]*groupedEvent, 0, len(calls))
	for _, c := range calls {
		batch, err := h.decoder.Decode(c.ev.Body)
		if err != nil {
			continue // not ok: the careful path stores it and records why
		}
		batch = scrubWebhookBatch(batch)
		batch, foreign := h.numbers.split(batch)
		group = append(group, &groupedEvent{call: c, batch: batch, foreign: foreign,
			items: h.items(batch, c.ev.ReceivedAt, now)})
	}
	if len(group) == 0 {
		return true
	}
	byDigest := slices.Clone(group)
	slices.SortStableFunc(byDigest, func(a, b *groupedEvent) int { return cmp.Compare(a.call.ev.SHA256, b.call.ev.SHA256) })
	type statusOf struct {
		ev   *groupedEvent
		item webhookItem
	}
	var statuses []statusOf
	for _, g := range group {
		for _, it := range g.items {
			if it.message != "" {
				statuses = append(statuses, statusOf{g, it})
			}
		}
	}
	slices.SortStableFunc(statuses, func(a, b statusOf) int { return cmp.Compare(a.item.message, b.item.message) })

	ctx, span := h.obs.StartSpan(ctx, "apply_webhook_event")
	err := h.tx.WithinTx(ctx, func(ctx context.Context, r ports.Repos) error {
		events := &heldEvents{EventWriter: r.Events}
		r.Events = events
		toSave := make([]domain.WebhookEvent, len(byDigest))
		for i, g := range byDigest {
			g.rep = WebhookReport{Skipped: slices.Clone(g.batch.Skipped), foreign: g.foreign}
			toSave[i] = g.call.ev
			toSave[i].Applied(now)
		}
		saved, err := r.Webhooks.SaveWebhookEvents(ctx, toSave)
		if err != nil {
			return err
		}
		for i, g := range byDigest {
			g.stored, g.created = saved[i].Stored, saved[i].Created
			g.done = !g.created && g.stored.AppliedAt != nil
		}
		var named []ports.StatusEvent
		for _, s := range statuses {
			if !s.ev.done && s.item.status != nil {
				named = append(named, *s.item.status)
			}
		}
		held, err := holdMessages(ctx, r.Messages, named)
		if err != nil {
			return err
		}
		rh := r
		rh.Messages = held
		for _, s := range statuses {
			if s.ev.done {
				continue
			}
			if s.item.status == nil {
				// A marketing stop reads and writes past the held messages.
				if err := held.release(ctx); err != nil {
					return err
				}
				if err := s.item.apply(ctx, r, &s.ev.rep); err != nil {
					return err
				}
				continue
			}
			if err := s.item.apply(ctx, rh, &s.ev.rep); err != nil {
				return err
			}
		}
		if err := held.release(ctx); err != nil {
			return err
		}
		for _, g := range group {
			if g.done {
				continue
			}
			for _, it := range g.items {
				if it.message != "" {
					continue
				}
				if err := it.apply(ctx, r, &g.rep); err != nil {
					return err
				}
			}
		}
		for _, g := range byDigest {
			if g.created || g.done {
				continue
			}
			if _, err := r.Webhooks.UpdateWebhookEvent(ctx, g.stored.ID, func(e *domain.WebhookEvent) error {
				e.Applied(now)
				return nil
			}); err != nil {
				return err
			}
		}
		return events.flush(ctx)
	})
	// A failure here is not the calls': the careful path takes them over
	// and has its own span.
	span.End(nil)
	if err != nil {
		return false
	}
	for _, g := range group {
		c := g.call
		c.ok, c.stored, c.created = true, g.stored, g.created
		if g.done {
			continue
		}
		for _, st := range g.batch.Statuses {
			g.rep.reported = append(g.rep.reported, st.At)
		}
		h.obs.Metrics().WebhookApplied(nil, lags(g.rep.reported, h.clock.Now()))
		g.rep.reported = nil
		for _, f := range g.batch.Errors {
			h.log.Warn("WhatsApp reported an error for the business number", "event_id", string(g.stored.ID),
				"code", f.Code, "title", f.Title)
		}
		for _, n := range g.foreign {
			g.rep.Foreign += n
		}
		c.rep = h.logged(g.stored.ID, g.rep)
	}
	return true
}
