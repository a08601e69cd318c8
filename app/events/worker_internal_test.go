package events

import (
	"context"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/heraldhq/herald/adapters/memstore"
	"github.com/heraldhq/herald/adapters/system"
	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/ports/portsmock"
	"github.com/heraldhq/herald/ports/porttest"
)

// batchingQueue is the store's queue, holding its first RecordAttempts
// until released and keeping the size of every batch.
type batchingQueue struct {
	*memstore.Store
	release chan struct{}
	mu      sync.Mutex
	batches []int
}

func (q *batchingQueue) RecordAttempts(ctx context.Context, recs []ports.AttemptRecord, endpoint func(ports.AttemptRecord, *domain.WebhookEndpoint) error) ([]ports.AttemptOutcome, error) {
	q.mu.Lock()
	first := len(q.batches) == 0
	q.batches = append(q.batches, len(recs))
	q.mu.Unlock()
	if first {
		<-q.release
	}
	return q.Store.RecordAttempts(ctx, recs, endpoint)
}

type fixedClock struct{ t time.Time }

func (c fixedClock) Now() time.Time { return c.t }

// TestAttemptsEndingTogetherShareATransaction: attempts whose answers come
// while a batch of records commits are recorded together in the next one,
// each with its own outcome.
func TestAttemptsEndingTogetherShareATransaction(t *testing.T) {
	t.Parallel()
	st := memstore.New()
	q := &batchingQueue{Store: st, release: make(chan struct{})}
	ws := domain.WorkspaceID(porttest.NewID(domain.PrefixWorkspace))
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	ctx := context.Background()
	if err := st.CreateEndpoint(ctx, porttest.NewEndpoint(t, ws, domain.ModeLive, domain.AllEvents())); err != nil {
		t.Fatal(err)
	}
	const n = 10
	var evs []domain.Event
	for i := range n {
		e := porttest.NewEvent(t, ws, domain.ModeLive, domain.EventMessageSent, "msg_"+strconv.Itoa(i), now)
		if err := st.AppendEvents(ctx, e); err != nil {
			t.Fatal(err)
		}
		evs = append(evs, e)
	}
	poster := &portsmock.EventPosterMock{PostFunc: func(context.Context, ports.WebhookRequest) (ports.PostResult, error) {
		return ports.PostResult{Status: 200, Duration: time.Millisecond}, nil
	}}
	w := NewWorker(q, st, poster, fixedClock{now}, system.NewIDs(), nil, Config{Concurrency: n}, usecase.NewObserver(nil))
	if err := w.Pass(ctx); err != nil {
		t.Fatal(err)
	}
	// One attempt's record is committing (held); the other attempts queue
	// theirs behind it.
	for {
		w.records.mu.Lock()
		queued := len(w.records.queue)
		w.records.mu.Unlock()
		if queued == n-1 {
			break
		}
		runtime.Gosched()
	}
	close(q.release)
	w.Wait()
	q.mu.Lock()
	batches := append([]int(nil), q.batches...)
	q.mu.Unlock()
	if len(batches) != 2 || batches[0] != 1 || batches[1] != n-1 {
		t.Errorf("records in batches of %v, want [1 %d]", batches, n-1)
	}
	for _, e := range evs {
		ds, err := st.ListDeliveries(ctx, ws, domain.ModeLive, e.ID)
		if err != nil || len(ds) != 1 || ds[0].State != domain.DeliverySucceeded || len(ds[0].Attempts) != 1 {
			t.Fatalf("deliveries of %s: %+v (%v), want one, succeeded after one attempt", e.ID, ds, err)
		}
	}
}
