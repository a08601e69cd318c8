package events

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// recordTimeout bounds recording an attempt whose answer came, also while
// the worker stops: what the endpoint answered is kept if the store
// answers in time.
const recordTimeout = 10 * time.Second

// Worker delivers events to endpoints. Each pass sequences the events
// committed since the last (for the pull API), then claims as many due
// deliveries as it has free slots, under a lease that outlasts an attempt,
// and posts each in its own goroutine: signed with the endpoint's active
// secrets (domain.SignWebhook), at most Concurrency at once. Every attempt
// is recorded with the delivery's next state: succeeded on a 2xx, pending
// again after the retry schedule's delay (domain.EventAttemptDelay, spread
// by ±10%) on a failure, given up after the last attempt; and the
// endpoint's disabling rule (domain.WebhookEndpoint.RecordAttempt) is
// applied in the same transaction; attempts that end while another batch
// of records commits share the next transaction (recorder). Many workers, on any number of
// instances, share one store: the claim never hands a delivery to two, and
// a record is fenced by the claim's owner and attempt number.
type Worker struct {
	queue  ports.DeliveryQueue
	events ports.EventRepository
	poster ports.EventPoster
	clock  ports.Clock
	ids    ports.IDGenerator
	wake   *Wakeup
	cfg    Config
	log    *usecase.Logger
	random func() float64 // in [0, 1), spreads retry delays

	inFlight sync.WaitGroup
	slots    chan struct{} // one token per attempt running
	freed    chan struct{} // signalled when an attempt ends

	records recorder // what attempts came to, recorded in batches
}

// maxRecordBatch bounds the attempts recorded in one transaction.
const maxRecordBatch = 64

// recorder records attempts in batches: an attempt whose answer came
// queues its record; when no batch is being recorded it records the queue
// itself, and otherwise the batch running hands the queue on once it has
// committed. Attempts that end while a batch commits share the next
// transaction.
type recorder struct {
	mu      sync.Mutex
	queue   []*pendingRecord
	running bool
}

// pendingRecord is one attempt's record waiting for its batch.
type pendingRecord struct {
	rec  ports.AttemptRecord
	done chan ports.AttemptOutcome // buffered
}

// NewWorker builds a worker; wake may be nil (it then only polls).
func NewWorker(queue ports.DeliveryQueue, events ports.EventRepository, poster ports.EventPoster, clock ports.Clock,
	ids ports.IDGenerator, wake *Wakeup, cfg Config, obs *usecase.Observer) *Worker {
	cfg = cfg.WithDefaults()
	return &Worker{queue: queue, events: events, poster: poster, clock: clock, ids: ids, wake: wake, cfg: cfg,
		log: obs.Logger("events"), random: rand.Float64,
		slots: make(chan struct{}, cfg.Concurrency), freed: make(chan struct{}, 1)}
}

// Run delivers until ctx ends, then waits for the attempts in flight. It
// makes a pass when woken (events were committed), at each poll, and
// claims again, without sequencing, when an attempt ends and frees its
// slot. An attempt that ctx cuts short is not recorded: it is no failure
// of the endpoint's, and its delivery is claimed again once its lease
// ends.
func (w *Worker) Run(ctx context.Context) {
	defer w.inFlight.Wait()
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		sequence := true
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		case <-w.wake.C():
		case <-w.freed:
			sequence = false // a slot came free: claim only, the events are as the last pass saw them
		}
		if sequence {
			if err := w.Sequence(ctx); err != nil && ctx.Err() == nil {
				w.log.Warn("sequencing events failed", "error", err)
			}
		}
		if err := w.claimAll(ctx); err != nil && ctx.Err() == nil {
			w.log.Warn("claiming event deliveries failed", "error", err)
		}
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
		timer.Reset(w.cfg.Poll)
	}
}

// Pass sequences committed events, then claims and starts due deliveries
// until none is due or every slot is busy. It returns without waiting for
// the attempts it started (Wait does).
func (w *Worker) Pass(ctx context.Context) error {
	if err := w.Sequence(ctx); err != nil {
		w.log.Warn("sequencing events failed", "error", err)
	}
	return w.claimAll(ctx)
}

// claimAll claims and starts due deliveries until none is due or every
// slot is busy.
func (w *Worker) claimAll(ctx context.Context) error {
	for ctx.Err() == nil {
		free := cap(w.slots) - len(w.slots)
		if free == 0 {
			return nil // an attempt that ends signals freed
		}
		n, err := w.claim(ctx, free)
		if err != nil {
			return err
		}
		if n < free {
			return nil
		}
	}
	return ctx.Err()
}

// Sequence gives committed events their place in the pull API's order,
// a batch at a time, until none is left.
func (w *Worker) Sequence(ctx context.Context) error {
	for {
		n, err := w.events.SequenceEvents(ctx, w.cfg.SequenceBatch)
		if err != nil || n < w.cfg.SequenceBatch {
			return err
		}
	}
}

// Wait blocks until every attempt started so far has ended.
func (w *Worker) Wait() { w.inFlight.Wait() }

// claim leases up to limit due deliveries and starts their attempts. Each
// claim has its own owner, so that a record is fenced from a lease lost
// long ago on a delivery claimed since.
func (w *Worker) claim(ctx context.Context, limit int) (int, error) {
	now := w.clock.Now()
	owner := w.ids.NewID("whw")
	claimed, err := w.queue.ClaimDeliveries(ctx, ports.DeliveryClaim{Owner: owner, Now: now,
		LeaseUntil: now.Add(w.cfg.Lease), Limit: limit})
	if err != nil {
		return 0, err
	}
	for _, c := range claimed {
		w.slots <- struct{}{}
		w.inFlight.Add(1)
		go func() {
			defer func() {
				<-w.slots
				w.inFlight.Done()
				select {
				case w.freed <- struct{}{}:
				default:
				}
			}()
			w.attempt(ctx, owner, c)
		}()
	}
	return len(claimed), nil
}

// attempt posts one claimed delivery and records what came of it.
func (w *Worker) attempt(ctx context.Context, owner string, c ports.ClaimedDelivery) {
	at := w.clock.Now()
	req := ports.WebhookRequest{URL: c.Endpoint.URL, ID: c.Event.ID, Timestamp: at,
		Signature: domain.SignWebhook(c.Endpoint.Secrets, c.Event.ID, at, c.Event.Body), Body: c.Event.Body}
	res, err := w.poster.Post(ctx, req)
	if err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return // cut short by shutdown: the lease ends and it is tried again
	}
	a := domain.DeliveryAttempt{Event: c.Event.ID, Endpoint: c.Endpoint.ID, At: at, Status: res.Status,
		Duration: res.Duration, ResponseHead: res.ResponseHead}
	if err != nil {
		a.Status, a.Error = 0, err.Error()
	}
	rec := ports.AttemptRecord{Owner: owner, Attempt: c.Attempt, DeliveryAttempt: a}
	rec.State, rec.RetryAt = w.next(a, c.Attempt)
	out := w.record(ctx, rec)
	ep, err := out.Endpoint, out.Err
	switch {
	case errors.Is(err, ports.ErrDeliveryLeaseLost):
		w.log.Info("event delivery's lease lost before its attempt was recorded; another claim has it",
			"event_id", string(c.Event.ID), "endpoint_id", string(c.Endpoint.ID), "attempt", c.Attempt)
	case err != nil:
		// The lease runs out and the delivery is tried again: at least once.
		w.log.Warn("recording an event delivery's attempt failed", "event_id", string(c.Event.ID),
			"endpoint_id", string(c.Endpoint.ID), "error", err)
	case rec.State == domain.DeliveryGivenUp:
		w.log.Warn("event delivery given up after its last attempt", "event_id", string(c.Event.ID),
			"endpoint_id", string(c.Endpoint.ID), "attempts", c.Attempt)
	}
	if err == nil && c.Endpoint.Status == domain.EndpointEnabled && ep.Status == domain.EndpointDisabled {
		w.log.Warn("webhook endpoint disabled", "endpoint_id", string(ep.ID), "reason", ep.DisabledReason.String())
	}
}

// record records rec with the other attempts that end meanwhile (see
// recorder) and returns its outcome.
func (w *Worker) record(ctx context.Context, rec ports.AttemptRecord) ports.AttemptOutcome {
	p := &pendingRecord{rec: rec, done: make(chan ports.AttemptOutcome, 1)}
	w.records.mu.Lock()
	w.records.queue = append(w.records.queue, p)
	lead := !w.records.running
	w.records.running = true
	w.records.mu.Unlock()
	if lead {
		w.recordBatch(ctx)
	}
	return <-p.done
}

// recordBatch records the queue's next batch in one transaction, and then
// hands what queued meanwhile to a goroutine of its own, so that the
// attempt that led frees its slot.
func (w *Worker) recordBatch(ctx context.Context) {
	w.records.mu.Lock()
	n := min(len(w.records.queue), maxRecordBatch)
	batch := w.records.queue[:n:n]
	w.records.queue = w.records.queue[n:]
	w.records.mu.Unlock()
	recs := make([]ports.AttemptRecord, len(batch))
	for i, p := range batch {
		recs[i] = p.rec
	}
	recCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
	out, err := w.queue.RecordAttempts(recCtx, recs, func(r ports.AttemptRecord, e *domain.WebhookEndpoint) error {
		e.RecordAttempt(r.Status, r.At, w.cfg.DisableAfter)
		return nil
	})
	cancel()
	for i, p := range batch {
		if err != nil {
			p.done <- ports.AttemptOutcome{Err: err}
		} else {
			p.done <- out[i]
		}
	}
	w.records.mu.Lock()
	defer w.records.mu.Unlock()
	if len(w.records.queue) == 0 {
		w.records.running = false
		return
	}
	w.inFlight.Add(1)
	go func() {
		defer w.inFlight.Done()
		w.recordBatch(ctx)
	}()
}

// next is the delivery's state after attempt number n ended with a: done
// on success, given up after the last attempt, otherwise pending again
// after the schedule's next delay from the attempt's end.
func (w *Worker) next(a domain.DeliveryAttempt, n int) (domain.DeliveryState, time.Time) {
	if a.Succeeded() {
		return domain.DeliverySucceeded, time.Time{}
	}
	delay, ok := domain.EventAttemptDelay(n+1, w.random())
	if !ok {
		return domain.DeliveryGivenUp, time.Time{}
	}
	return domain.DeliveryPending, a.At.Add(a.Duration).Add(delay)
}
