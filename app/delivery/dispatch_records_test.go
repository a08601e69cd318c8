package delivery_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/heraldhq/herald/app/delivery"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// groupedOutcomes sends n messages through a dispatcher on tx, lets Meta
// answer the first sends one at a time so that each runner records one
// outcome alone (two answered together could share a runner), holds the
// runners busy until the others' outcomes queue behind them, then lets
// them all go, and returns the messages.
func groupedOutcomes(t *testing.T, f *fixture, tx *gatedTx, n int) []domain.Message {
	t.Helper()
	var msgs []domain.Message
	for i := range n {
		msgs = append(msgs, f.send(t, f.principal, fmt.Sprintf("+1415555%04d", 5000+i)))
	}
	sender := newSenderMock()
	answer, turns := sender.SendFunc, make(chan struct{})
	sender.SendFunc = func(ctx context.Context, m ports.OutboundMessage) (ports.SendResult, error) {
		<-turns
		return answer(ctx, m)
	}
	d := f.dispatcher(f.st, tx, sender, sender, delivery.Config{})
	if got, err := d.DispatchOnce(context.Background(), make(chan struct{}, n)); err != nil || got != n {
		t.Fatalf("claimed %d, %v; want %d", got, err, n)
	}
	for i := range delivery.OutcomeRunners {
		turns <- struct{}{}
		waitFor(t, "a runner to record an outcome", func() bool { return tx.n.Load() == int64(i+1) })
	}
	close(turns)
	waitFor(t, "the other outcomes to queue", func() bool { return d.QueuedOutcomes() == n-delivery.OutcomeRunners })
	close(tx.release)
	d.Wait()
	for i, m := range msgs {
		if got := f.message(t, m.ID); got.ProviderID == "" {
			t.Errorf("message %d: %v without a wamid, want Meta's answer recorded", i, got.Status)
		}
	}
	return msgs
}

// TestOutcomesEndingTogetherShareOneTransaction: sends whose outcomes end
// while the runners are busy are recorded in one transaction, each with
// its own wamid.
func TestOutcomesEndingTogetherShareOneTransaction(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	tx := &gatedTx{st: f.st, hold: delivery.OutcomeRunners, release: make(chan struct{})}
	sends := delivery.OutcomeRunners + 6
	msgs := groupedOutcomes(t, f, tx, sends)
	if got, want := tx.n.Load(), int64(delivery.OutcomeRunners+1); got != want {
		t.Errorf("%d transactions for %d outcomes, want %d (each runner's first alone, then one for the rest)", got, sends, want)
	}
	wamids := map[string]bool{}
	for _, m := range msgs {
		wamids[f.message(t, m.ID).ProviderID] = true
	}
	if len(wamids) != sends {
		t.Errorf("%d distinct wamids for %d messages", len(wamids), sends)
	}
}

// TestOutcomeGroupThatFailsRecordsEachAlone: when the group's transaction
// fails, nothing of it commits and each outcome is recorded on its own.
func TestOutcomeGroupThatFailsRecordsEachAlone(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	group := int64(delivery.OutcomeRunners + 1)
	tx := &gatedTx{st: f.st, hold: delivery.OutcomeRunners, release: make(chan struct{}),
		fail: func(n int64) error {
			if n == group {
				return fmt.Errorf("the group's transaction: %w", ports.ErrUnavailable)
			}
			return nil
		}}
	sends := delivery.OutcomeRunners + 4
	groupedOutcomes(t, f, tx, sends)
	if got, want := tx.n.Load(), group+int64(sends-delivery.OutcomeRunners); got != want {
		t.Errorf("%d transactions, want %d (the runners' outcomes, the failed group, then one per outcome of it)", got, want)
	}
}
