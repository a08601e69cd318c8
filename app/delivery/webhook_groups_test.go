package delivery_test

import (
	"context"
	"fmt"
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
	var bodies [][]byte
	for i := range delivery.WebhookGroupRunners {
		m := f.send(t, f.principal, fmt.Sprintf("+1415555%04d", 3000+i))
		bodies = append(bodies, h.body(statuses(ports.StatusEvent{MessageID: m.ID, ProviderID: fmt.Sprintf("wamid.%d", i),
			Status: domain.StatusSent, At: t0.Add(time.Second)})))
	}
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
