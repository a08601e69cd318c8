package delivery_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heraldhq/herald/app/delivery"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// gatedTx counts the store's transactions; the first `hold` of them wait
// for release before they run, and a transaction for which fail returns
// an error fails with it without running.
type gatedTx struct {
	st      ports.Transactor
	hold    int64
	release chan struct{}
	fail    func(n int64) error
	n       atomic.Int64
}

func (g *gatedTx) WithinTx(ctx context.Context, fn func(ctx context.Context, r ports.Repos) error) error {
	n := g.n.Add(1)
	if n <= g.hold {
		<-g.release
	}
	if g.fail != nil {
		if err := g.fail(n); err != nil {
			return err
		}
	}
	return g.st.WithinTx(ctx, fn)
}

// runnerBodies are the calls that hold groupedCalls' runners: a sent status
// each, of a message of its own to +1415555 and first+i.
func runnerBodies(t *testing.T, f *fixture, h *hooks, first int) [][]byte {
	t.Helper()
	var bodies [][]byte
	for i := range delivery.WebhookGroupRunners {
		m := f.send(t, f.principal, fmt.Sprintf("+1415555%04d", first+i))
		bodies = append(bodies, h.body(statuses(ports.StatusEvent{MessageID: m.ID, ProviderID: fmt.Sprintf("wamid.%d", first+i),
			Status: domain.StatusSent, At: t0.Add(time.Second)})))
	}
	return bodies
}

// groupedCalls sends one message per call, holds the runners busy with the
// first calls (one each), queues the rest behind them, then lets them all go. It
// returns each call's result, in the calls' order, and the messages.
func groupedCalls(t *testing.T, f *fixture, h *hooks, tx *gatedTx, bodies [][]byte) []delivery.ReceiveWebhookResult {
	t.Helper()
	results := make([]delivery.ReceiveWebhookResult, len(bodies))
	errs := make([]error, len(bodies))
	var wg sync.WaitGroup
	call := func(i int) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = h.receive.Handle(context.Background(), delivery.ReceiveWebhook{Body: bodies[i], Signature: "ok"})
		}()
	}
	// The runners' calls one at a time: two arriving together could share
	// a runner.
	for i := range delivery.WebhookGroupRunners {
		call(i)
		waitFor(t, "a runner to start a call", func() bool { return tx.n.Load() == int64(i+1) })
	}
	for i := delivery.WebhookGroupRunners; i < len(bodies); i++ {
		call(i)
	}
	waitFor(t, "the other calls to queue", func() bool { return h.receive.QueuedCalls() == len(bodies)-delivery.WebhookGroupRunners })
	close(tx.release)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	return results
}

// waitFor polls cond until it holds, failing the test after 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestWebhookCallsArrivingTogetherShareOneTransaction: status calls that
// arrive while the runners are busy are stored and applied in one
// transaction, and every call is answered with its own event and report.
func TestWebhookCallsArrivingTogetherShareOneTransaction(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	tx := &gatedTx{st: f.st, hold: delivery.WebhookGroupRunners, release: make(chan struct{})}
	h := newHooks(f, tx)
	calls := delivery.WebhookGroupRunners + 6
	var bodies [][]byte
	var msgs []domain.Message
	for i := range calls {
		m := f.send(t, f.principal, fmt.Sprintf("+1415555%04d", 2671+i))
		msgs = append(msgs, m)
		bodies = append(bodies, h.body(statuses(ports.StatusEvent{MessageID: m.ID, ProviderID: fmt.Sprintf("wamid.%d", i),
			Status: domain.StatusDelivered, At: t0.Add(time.Second)})))
	}
	results := groupedCalls(t, f, h, tx, bodies)
	if got, want := tx.n.Load(), int64(delivery.WebhookGroupRunners+1); got != want {
		t.Errorf("%d transactions for %d calls, want %d (each runner's first call alone, then one for the rest)", got, calls, want)
	}
	ids := map[domain.WebhookEventID]bool{}
	for i, res := range results {
		if !res.Applied || res.Duplicate || res.Report.Statuses != 1 {
			t.Errorf("call %d: applied %v, duplicate %v, report %+v; want applied, new, one status", i, res.Applied, res.Duplicate, res.Report)
		}
		ids[res.Event.ID] = true
		if got := f.message(t, msgs[i].ID); got.Status != domain.StatusDelivered || got.ProviderID != fmt.Sprintf("wamid.%d", i) {
			t.Errorf("message %d: %v %q, want delivered with its own wamid", i, got.Status, got.ProviderID)
		}
	}
	evs := f.webhookEvents(t)
	if len(ids) != calls || len(evs) != calls {
		t.Errorf("%d events answered, %d stored; want %d of each", len(ids), len(evs), calls)
	}
	for _, ev := range evs {
		if ev.AppliedAt == nil || !ids[ev.ID] {
			t.Errorf("stored event %s: applied %v, answered %v; want applied and answered", ev.ID, ev.AppliedAt, ids[ev.ID])
		}
	}
}

// TestWebhookGroupWithTheSameBodyTwice: a redelivery in the same group as
// the first delivery is answered as a duplicate, and its status is applied
// once.
func TestWebhookGroupWithTheSameBodyTwice(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	tx := &gatedTx{st: f.st, hold: delivery.WebhookGroupRunners, release: make(chan struct{})}
	h := newHooks(f, tx)
	bodies := runnerBodies(t, f, h, 3000)
	m := f.send(t, f.principal, "+14155552671")
	read := h.body(statuses(ports.StatusEvent{MessageID: m.ID, ProviderID: "wamid.R", Status: domain.StatusRead, At: t0.Add(time.Second)}))
	bodies = append(bodies, read, read)
	results := groupedCalls(t, f, h, tx, bodies)
	first, again := results[len(results)-2], results[len(results)-1]
	if first.Event.ID != again.Event.ID || first.Duplicate == again.Duplicate || !first.Applied || !again.Applied {
		t.Fatalf("the two deliveries: %+v and %+v; want one event, one of them a duplicate, both applied", first, again)
	}
	if n := first.Report.Statuses + again.Report.Statuses; n != 1 {
		t.Errorf("%d statuses applied by the two deliveries, want 1", n)
	}
	got := f.message(t, m.ID)
	if got.Status != domain.StatusRead || len(got.History) != 2 {
		t.Errorf("message %v with history %+v, want read once after queued", got.Status, got.History)
	}
}

// TestWebhookGroupThatFailsStoresEachCallAlone: when the group's
// transaction fails, nothing of it commits and each call is stored and
// applied on its own; every call is still answered applied.
func TestWebhookGroupThatFailsStoresEachCallAlone(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	group := int64(delivery.WebhookGroupRunners + 1)
	tx := &gatedTx{st: f.st, hold: delivery.WebhookGroupRunners, release: make(chan struct{}),
		fail: func(n int64) error {
			if n == group {
				return fmt.Errorf("the group's transaction: %w", ports.ErrUnavailable)
			}
			return nil
		}}
	h := newHooks(f, tx)
	calls := delivery.WebhookGroupRunners + 4
	var bodies [][]byte
	var msgs []domain.Message
	for i := range calls {
		m := f.send(t, f.principal, fmt.Sprintf("+1415555%04d", 4000+i))
		msgs = append(msgs, m)
		bodies = append(bodies, h.body(statuses(ports.StatusEvent{MessageID: m.ID, ProviderID: fmt.Sprintf("wamid.%d", i),
			Status: domain.StatusRead, At: t0.Add(time.Second)})))
	}
	results := groupedCalls(t, f, h, tx, bodies)
	if got, want := tx.n.Load(), group+int64(calls-delivery.WebhookGroupRunners); got != want {
		t.Errorf("%d transactions, want %d (the runners' calls, the failed group, then one per call of it)", got, want)
	}
	for i, res := range results {
		if !res.Applied || res.Duplicate || res.Report.Statuses != 1 {
			t.Errorf("call %d: applied %v, duplicate %v, report %+v; want applied, new, one status", i, res.Applied, res.Duplicate, res.Report)
		}
		if got := f.message(t, msgs[i].ID); got.Status != domain.StatusRead {
			t.Errorf("message %d: %v, want read", i, got.Status)
		}
	}
	if evs := f.webhookEvents(t); len(evs) != calls {
		t.Errorf("%d events stored, want %d", len(evs), calls)
	}
}

// TestWebhookGroupAppendsEachChangesEvent: the statuses of a group write
// one event per change, held until the group's end and then stored in the
// order of the changes: a message's events come sent, delivered, read, and
// a late delivered (after read) writes none. A group that fails leaves
// none of its events, and each call alone writes its own.
func TestWebhookGroupAppendsEachChangesEvent(t *testing.T) {
	t.Parallel()
	for _, failGroup := range []bool{false, true} {
		t.Run(fmt.Sprintf("group fails %v", failGroup), func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			group := int64(delivery.WebhookGroupRunners + 1)
			tx := &gatedTx{st: f.st, hold: delivery.WebhookGroupRunners, release: make(chan struct{}),
				fail: func(n int64) error {
					if failGroup && n == group {
						return fmt.Errorf("the group's transaction: %w", ports.ErrUnavailable)
					}
					return nil
				}}
			h := newHooks(f, tx)
			bodies := runnerBodies(t, f, h, 5000)
			a := f.send(t, f.principal, "+14155556001")
			b := f.send(t, f.principal, "+14155556002")
			status := func(m domain.Message, s domain.MessageStatus, after time.Duration) ports.StatusEvent {
				return ports.StatusEvent{MessageID: m.ID, ProviderID: "wamid." + string(m.ID), Status: s, At: t0.Add(after)}
			}
			// Each message's statuses in one call, in Meta's order: calls
			// of one group are queued in no set order.
			bodies = append(bodies,
				h.body(statuses(status(a, domain.StatusSent, time.Second), status(a, domain.StatusDelivered, 2*time.Second),
					status(a, domain.StatusRead, 3*time.Second))),
				h.body(statuses(status(b, domain.StatusSent, time.Second), status(b, domain.StatusRead, 3*time.Second),
					status(b, domain.StatusDelivered, 2*time.Second))))
			groupedCalls(t, f, h, tx, bodies)
			bySubject := map[string][]string{}
			for _, e := range f.told(t, f.principal.Workspace, f.principal.Mode) {
				bySubject[e.Subject] = append(bySubject[e.Subject], e.Type)
			}
			want := map[string][]string{
				string(a.ID): {"message.sent", "message.delivered", "message.read"},
				string(b.ID): {"message.sent", "message.read"},
			}
			for m, types := range want {
				if !slices.Equal(bySubject[m], types) {
					t.Errorf("events of message %s: %v, want %v", m, bySubject[m], types)
				}
			}
			if n := len(bySubject); n != delivery.WebhookGroupRunners+2 {
				t.Errorf("events about %d messages, want %d (each runner's and the group's two)", n, delivery.WebhookGroupRunners+2)
			}
		})
	}
}

// countingMessages counts, per transaction, what the group asks of the
// message store.
type countingMessages struct {
	ports.MessageRepository
	locks, writes, located *atomic.Int64
}

func (c countingMessages) LockMessages(ctx context.Context, ids []domain.MessageID, wamids []string) ([]domain.Message, error) {
	c.locks.Add(1)
	return c.MessageRepository.LockMessages(ctx, ids, wamids)
}

func (c countingMessages) WriteMessageDeliveries(ctx context.Context, ms []domain.Message) error {
	if len(ms) > 0 {
		c.writes.Add(1)
	}
	return c.MessageRepository.WriteMessageDeliveries(ctx, ms)
}

func (c countingMessages) UpdateLocatedMessage(ctx context.Context, id domain.MessageID, wamid string, fn func(*domain.Message) error) (domain.Message, error) {
	c.located.Add(1)
	return c.MessageRepository.UpdateLocatedMessage(ctx, id, wamid, fn)
}

type countingTx struct {
	*gatedTx
	locks, writes, located atomic.Int64
}

func (c *countingTx) WithinTx(ctx context.Context, fn func(ctx context.Context, r ports.Repos) error) error {
	return c.gatedTx.WithinTx(ctx, func(ctx context.Context, r ports.Repos) error {
		r.Messages = countingMessages{r.Messages, &c.locks, &c.writes, &c.located}
		return fn(ctx, r)
	})
}

// TestWebhookGroupReadsAndWritesItsMessagesTogether: a group reads the
// messages of all its statuses in one read and writes those that changed
// in one write; two statuses of one message in the group, one naming it by
// our id and one by Meta's wamid only, both apply to it.
func TestWebhookGroupReadsAndWritesItsMessagesTogether(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	tx := &countingTx{gatedTx: &gatedTx{st: f.st, hold: delivery.WebhookGroupRunners, release: make(chan struct{})}}
	h := newHooks(f, tx)
	var bodies [][]byte
	var msgs []domain.Message
	for i := range delivery.WebhookGroupRunners + 5 {
		m := f.send(t, f.principal, fmt.Sprintf("+1415555%04d", 7000+i))
		msgs = append(msgs, m)
		bodies = append(bodies, h.body(statuses(ports.StatusEvent{MessageID: m.ID, ProviderID: fmt.Sprintf("wamid.g%d", i),
			Status: domain.StatusDelivered, At: t0.Add(time.Second)})))
	}
	// The last message's read names it by its wamid only.
	last := len(msgs) - 1
	bodies = append(bodies, h.body(statuses(ports.StatusEvent{ProviderID: fmt.Sprintf("wamid.g%d", last),
		Status: domain.StatusRead, At: t0.Add(2 * time.Second)})))
	groupedCalls(t, f, h, tx.gatedTx, bodies)
	// Each runner's call alone, then the group: one read and one write
	// each.
	if got, want := tx.locks.Load(), int64(delivery.WebhookGroupRunners+1); got != want {
		t.Errorf("%d reads of messages, want %d", got, want)
	}
	if got, want := tx.writes.Load(), int64(delivery.WebhookGroupRunners+1); got != want {
		t.Errorf("%d writes of messages, want %d", got, want)
	}
	for i, m := range msgs {
		want := domain.StatusDelivered
		if i == last {
			want = domain.StatusRead
		}
		if got := f.message(t, m.ID); got.Status != want || got.ProviderID != fmt.Sprintf("wamid.g%d", i) {
			t.Errorf("message %d: %v %q, want %v with its wamid", i, got.Status, got.ProviderID, want)
		}
	}
	// The wamid-only read, when it came before the status giving the
	// wamid, was parked and is taken by it: then it is the one status
	// the store located on its own.
	if got := tx.located.Load(); got > 1 {
		t.Errorf("%d statuses located past the group's read, want at most 1", got)
	}
}
