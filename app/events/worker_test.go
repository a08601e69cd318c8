package events_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/heraldhq/herald/adapters/memstore"
	"github.com/heraldhq/herald/adapters/system"
	"github.com/heraldhq/herald/app/events"
	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/ports/portsmock"
	"github.com/heraldhq/herald/ports/porttest"
)

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// clock stands still until a test moves it.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// poster is a portsmock.EventPosterMock that keeps what it was sent and
// answers with answer (a status, or an error).
type poster struct {
	*portsmock.EventPosterMock
	mu   sync.Mutex
	sent []ports.WebhookRequest
}

func newPoster(answer func(ports.WebhookRequest) (int, error)) *poster {
	p := &poster{}
	p.EventPosterMock = &portsmock.EventPosterMock{PostFunc: func(ctx context.Context, r ports.WebhookRequest) (ports.PostResult, error) {
		p.mu.Lock()
		p.sent = append(p.sent, r)
		p.mu.Unlock()
		status, err := answer(r)
		if err != nil {
			return ports.PostResult{Duration: 3 * time.Millisecond}, err
		}
		return ports.PostResult{Status: status, Duration: 3 * time.Millisecond, ResponseHead: []byte("answer " + strconv.Itoa(status))}, nil
	}}
	return p
}

func (p *poster) Sent() []ports.WebhookRequest {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]ports.WebhookRequest(nil), p.sent...)
}

func always(status int) func(ports.WebhookRequest) (int, error) {
	return func(ports.WebhookRequest) (int, error) { return status, nil }
}

type fixture struct {
	st    *memstore.Store
	clock *clock
	ws    domain.WorkspaceID
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	return &fixture{st: memstore.New(), clock: &clock{now: t0}, ws: domain.WorkspaceID(porttest.NewID(domain.PrefixWorkspace))}
}

func (f *fixture) worker(p ports.EventPoster, cfg events.Config) *events.Worker {
	return events.NewWorker(f.st, f.st, p, f.clock, system.NewIDs(), nil, cfg, usecase.NewObserver(nil))
}

// endpoint stores an enabled live endpoint subscribed to every type.
func (f *fixture) endpoint(t *testing.T) domain.WebhookEndpoint {
	t.Helper()
	e := porttest.NewEndpoint(t, f.ws, domain.ModeLive, domain.AllEvents())
	if err := f.st.CreateEndpoint(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	return e
}

// event appends a live event of type typ about subject at the clock's time.
func (f *fixture) event(t *testing.T, typ domain.EventType, subject string) domain.Event {
	t.Helper()
	e := porttest.NewEvent(t, f.ws, domain.ModeLive, typ, subject, f.clock.Now())
	if err := f.st.AppendEvents(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	return e
}

// pass runs one pass of w and waits for its attempts.
func pass(t *testing.T, w *events.Worker) {
	t.Helper()
	if err := w.Pass(t.Context()); err != nil {
		t.Fatal(err)
	}
	w.Wait()
}

func (f *fixture) deliveries(t *testing.T, id domain.EventID) []domain.EventDelivery {
	t.Helper()
	ds, err := f.st.ListDeliveries(context.Background(), f.ws, domain.ModeLive, id)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

func (f *fixture) only(t *testing.T, id domain.EventID) domain.EventDelivery {
	t.Helper()
	ds := f.deliveries(t, id)
	if len(ds) != 1 {
		t.Fatalf("event %s has %d deliveries, want 1", id, len(ds))
	}
	return ds[0]
}

// TestDeliversSignedAndInOrderPerMessage: every attempt carries the
// Standard Webhooks headers, verified by the specification's own library
// with the endpoint's secret; a message's events reach the endpoint in the
// order they happened, each after the one before succeeded, while another
// message's event is not held back.
func TestDeliversSignedAndInOrderPerMessage(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ep := f.endpoint(t)
	p := newPoster(always(204))
	w := f.worker(p, events.Config{})
	sent := f.event(t, domain.EventMessageSent, "msg_a")
	delivered := f.event(t, domain.EventMessageDelivered, "msg_a")
	read := f.event(t, domain.EventMessageRead, "msg_a")
	other := f.event(t, domain.EventMessageSent, "msg_b")
	test := f.event(t, domain.EventContactOptedOut, "")

	pass(t, w)
	first := ids(p.Sent())
	if want := []domain.EventID{sent.ID, other.ID, test.ID}; !sameSet(first, want) {
		t.Fatalf("first pass posted %v, want %v: msg_a's later events wait for its first", first, want)
	}
	pass(t, w)
	pass(t, w)
	pass(t, w)
	var order []domain.EventID
	for _, r := range p.Sent() {
		if r.ID == sent.ID || r.ID == delivered.ID || r.ID == read.ID {
			order = append(order, r.ID)
		}
	}
	if want := []domain.EventID{sent.ID, delivered.ID, read.ID}; fmt.Sprint(order) != fmt.Sprint(want) {
		t.Fatalf("msg_a's events were posted in the order %v, want %v", order, want)
	}
	verifier, err := standardwebhooks.NewWebhook(ep.Secrets[0].Plaintext())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range p.Sent() {
		h := http.Header{}
		h.Set("webhook-id", string(r.ID))
		h.Set("webhook-timestamp", strconv.FormatInt(r.Timestamp.Unix(), 10))
		h.Set("webhook-signature", r.Signature)
		if err := verifier.VerifyIgnoringTimestamp(r.Body, h); err != nil {
			t.Errorf("attempt of %s does not verify: %v", r.ID, err)
		}
		if r.URL != ep.URL {
			t.Errorf("attempt of %s went to %s, want %s", r.ID, r.URL, ep.URL)
		}
	}
	for _, e := range []domain.Event{sent, delivered, read, other, test} {
		d := f.only(t, e.ID)
		if d.State != domain.DeliverySucceeded || len(d.Attempts) != 1 || d.Attempts[0].Status != 204 {
			t.Errorf("delivery of %s: state %v, attempts %+v; want succeeded at the first attempt", e.ID, d.State, d.Attempts)
		}
	}
}

// TestRetriesOnTheScheduleWithJitterThenGivesUp: a failing endpoint gets
// each delivery eight times, each retry the schedule's delay after the
// previous attempt ended, spread by no more than ±10%; after the eighth
// failure the delivery is given up, and only then does the message's next
// event go.
func TestRetriesOnTheScheduleWithJitterThenGivesUp(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.endpoint(t)
	failing := true
	var mu sync.Mutex
	p := newPoster(func(ports.WebhookRequest) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		if failing {
			return 503, nil
		}
		return 200, nil
	})
	w := f.worker(p, events.Config{})
	first := f.event(t, domain.EventMessageSent, "msg_a")
	second := f.event(t, domain.EventMessageDelivered, "msg_a")
	schedule := []time.Duration{5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 10 * time.Hour}
	for n := 1; n <= domain.EventMaxAttempts; n++ {
		pass(t, w)
		d := f.only(t, first.ID)
		if len(d.Attempts) != n {
			t.Fatalf("after pass %d the delivery has %d attempts, want %d", n, len(d.Attempts), n)
		}
		if got := f.only(t, second.ID); len(got.Attempts) != 0 {
			t.Fatalf("the message's second event was tried while its first was still pending")
		}
		last := d.Attempts[n-1]
		if n == domain.EventMaxAttempts {
			if d.State != domain.DeliveryGivenUp || d.NextAttemptAt != nil {
				t.Fatalf("after the 8th failure: state %v, next %v; want given up", d.State, d.NextAttemptAt)
			}
			break
		}
		if d.State != domain.DeliveryPending || d.NextAttemptAt == nil {
			t.Fatalf("after failure %d: state %v, next %v; want pending with a due time", n, d.State, d.NextAttemptAt)
		}
		end := last.At.Add(last.Duration)
		lo, hi := end.Add(schedule[n-1]*9/10), end.Add(schedule[n-1]*11/10)
		if d.NextAttemptAt.Before(lo) || d.NextAttemptAt.After(hi) {
			t.Fatalf("retry %d due %v after the attempt's end; want %v ±10%%", n+1, d.NextAttemptAt.Sub(end), schedule[n-1])
		}
		// Not due a moment before its time.
		f.clock.Advance(d.NextAttemptAt.Sub(f.clock.Now()) - time.Millisecond)
		before := len(p.Sent())
		pass(t, w)
		if len(p.Sent()) != before {
			t.Fatalf("retry %d was made before it was due", n+1)
		}
		f.clock.Advance(time.Millisecond)
	}
	mu.Lock()
	failing = false
	mu.Unlock()
	pass(t, w)
	if d := f.only(t, second.ID); d.State != domain.DeliverySucceeded {
		t.Fatalf("the message's second event after the first was given up: %v, want succeeded", d.State)
	}
	if n := len(p.Sent()); n != domain.EventMaxAttempts+1 {
		t.Fatalf("%d attempts in all, want %d", n, domain.EventMaxAttempts+1)
	}
}

// TestJitterSpreadsRetries: deliveries that failed together come back at
// different times, all within ±10% of the delay.
func TestJitterSpreadsRetries(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.endpoint(t)
	w := f.worker(newPoster(always(500)), events.Config{})
	var es []domain.Event
	for i := range 40 {
		es = append(es, f.event(t, domain.EventMessageSent, "msg_"+strconv.Itoa(i)))
	}
	pass(t, w)
	due := map[time.Time]bool{}
	for _, e := range es {
		d := f.only(t, e.ID)
		end := d.Attempts[0].At.Add(d.Attempts[0].Duration)
		delay := d.NextAttemptAt.Sub(end)
		if delay < 4500*time.Millisecond || delay > 5500*time.Millisecond {
			t.Fatalf("retry of %s after %v, want 5s ±10%%", e.ID, delay)
		}
		due[*d.NextAttemptAt] = true
	}
	if len(due) < 30 {
		t.Fatalf("40 deliveries that failed together come back at %d distinct times; want them spread", len(due))
	}
}

// TestGoneDisablesTheEndpointAtOnce: a 410 disables the endpoint, saying
// why; its delivery waits without a due time, and nothing more is tried.
func TestGoneDisablesTheEndpointAtOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ep := f.endpoint(t)
	p := newPoster(always(http.StatusGone))
	w := f.worker(p, events.Config{})
	e := f.event(t, domain.EventMessageSent, "msg_a")
	pass(t, w)
	got, err := f.st.GetEndpoint(context.Background(), f.ws, domain.ModeLive, ep.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != domain.EndpointDisabled || got.DisabledReason != domain.DisabledGone || got.DisabledAt == nil {
		t.Fatalf("after a 410 the endpoint is %v (%v), want disabled: gone", got.Status, got.DisabledReason)
	}
	d := f.only(t, e.ID)
	if d.State != domain.DeliveryPending || d.NextAttemptAt != nil {
		t.Fatalf("the delivery is %v due %v; want pending without a due time", d.State, d.NextAttemptAt)
	}
	f.clock.Advance(24 * time.Hour)
	f.event(t, domain.EventMessageSent, "msg_b")
	pass(t, w)
	if n := len(p.Sent()); n != 1 {
		t.Fatalf("a disabled endpoint got %d attempts, want only the first", n)
	}
}

// TestFailingForDisableAfterDisables: an endpoint that has failed every
// attempt for HERALD_WEBHOOK_DISABLE_AFTER (5 days) is disabled by the
// first failure past it, not before.
func TestFailingForDisableAfterDisables(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ep := f.endpoint(t)
	w := f.worker(newPoster(func(ports.WebhookRequest) (int, error) {
		return 0, errors.New("connection refused")
	}), events.Config{})
	start := f.clock.Now()
	for i := 0; ; i++ {
		f.event(t, domain.EventMessageSent, "msg_"+strconv.Itoa(i))
		pass(t, w)
		got, err := f.st.GetEndpoint(context.Background(), f.ws, domain.ModeLive, ep.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status == domain.EndpointDisabled {
			if got.DisabledReason != domain.DisabledFailing {
				t.Fatalf("disabled for %v, want failing", got.DisabledReason)
			}
			if failing := got.DisabledAt.Sub(start); failing < events.DefaultDisableAfter || failing > events.DefaultDisableAfter+6*time.Hour {
				t.Fatalf("disabled after failing for %v, want the first failure past %v", failing, events.DefaultDisableAfter)
			}
			return
		}
		if i > 40 {
			t.Fatal("an endpoint failing for 10 days is still enabled")
		}
		f.clock.Advance(6 * time.Hour)
	}
}

// TestAFailureThatEndsInSuccessKeepsTheEndpoint: a success clears the run
// of failures, so failures on both sides of it do not add up.
func TestAFailureThatEndsInSuccessKeepsTheEndpoint(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ep := f.endpoint(t)
	var mu sync.Mutex
	status := 500
	w := f.worker(newPoster(func(ports.WebhookRequest) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return status, nil
	}), events.Config{})
	for day := range 8 {
		mu.Lock()
		status = map[bool]int{true: 200, false: 500}[day == 3]
		mu.Unlock()
		f.event(t, domain.EventContactOptedOut, "")
		pass(t, w)
		f.clock.Advance(24 * time.Hour)
	}
	got, err := f.st.GetEndpoint(context.Background(), f.ws, domain.ModeLive, ep.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != domain.EndpointEnabled {
		t.Fatalf("an endpoint that succeeded on day 4 was disabled (%v) by failures on either side", got.DisabledReason)
	}
}

// TestShutdownCutsAnAttemptShortWithoutBlame: an attempt in flight when
// the worker stops is not recorded (no failure for the endpoint), and once
// its lease has ended another worker delivers it.
func TestShutdownCutsAnAttemptShortWithoutBlame(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ep := f.endpoint(t)
	e := f.event(t, domain.EventMessageSent, "msg_a")
	started := make(chan struct{})
	hang := &portsmock.EventPosterMock{PostFunc: func(ctx context.Context, r ports.WebhookRequest) (ports.PostResult, error) {
		close(started)
		<-ctx.Done()
		return ports.PostResult{Duration: time.Second}, fmt.Errorf("no answer: %w", ctx.Err())
	}}
	cfg := events.Config{Lease: time.Minute}
	w := f.worker(hang, cfg)
	ctx, stop := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { w.Run(ctx); close(done) }()
	<-started
	stop()
	<-done
	d := f.only(t, e.ID)
	if d.State != domain.DeliveryPending || len(d.Attempts) != 0 {
		t.Fatalf("after a stop mid-attempt the delivery is %v with %d attempts; want pending with none", d.State, len(d.Attempts))
	}
	got, err := f.st.GetEndpoint(context.Background(), f.ws, domain.ModeLive, ep.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.FailingSince != nil {
		t.Fatalf("the stop counted as the endpoint's failure (failing since %v)", got.FailingSince)
	}
	p := newPoster(always(200))
	next := f.worker(p, cfg)
	pass(t, next)
	if len(p.Sent()) != 0 {
		t.Fatal("the delivery was claimed again while its lease ran")
	}
	f.clock.Advance(cfg.Lease + time.Second)
	pass(t, next)
	if d := f.only(t, e.ID); d.State != domain.DeliverySucceeded {
		t.Fatalf("after the lease the delivery is %v, want succeeded", d.State)
	}
}

// TestBoundedConcurrency: no more attempts run at once than Concurrency;
// a pass while every slot is busy claims nothing (no lease is taken for a
// delivery that would wait for a slot).
func TestBoundedConcurrency(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.endpoint(t)
	const limit = 3
	entered, release := make(chan struct{}, 10), make(chan struct{})
	p := &portsmock.EventPosterMock{PostFunc: func(ctx context.Context, r ports.WebhookRequest) (ports.PostResult, error) {
		entered <- struct{}{}
		<-release
		return ports.PostResult{Status: 200}, nil
	}}
	w := f.worker(p, events.Config{Concurrency: limit})
	var es []domain.Event
	for i := range 10 {
		es = append(es, f.event(t, domain.EventMessageSent, "msg_"+strconv.Itoa(i)))
	}
	if err := w.Pass(t.Context()); err != nil {
		t.Fatal(err)
	}
	for range limit {
		<-entered
	}
	if err := w.Pass(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n := len(p.PostCalls()); n != limit {
		t.Fatalf("%d attempts running at once, want %d", n, limit)
	}
	// The busy worker holds no lease beyond its slots: another takes the
	// other seven at once.
	other := newPoster(always(200))
	pass(t, f.worker(other, events.Config{Concurrency: 10}))
	if n := len(other.Sent()); n != len(es)-limit {
		t.Fatalf("a second worker found %d deliveries to post, want %d", n, len(es)-limit)
	}
	close(release)
	w.Wait()
	for _, e := range es {
		if d := f.only(t, e.ID); d.State != domain.DeliverySucceeded || len(d.Attempts) != 1 {
			t.Fatalf("delivery of %s: %v after %d attempts, want succeeded after one", e.ID, d.State, len(d.Attempts))
		}
	}
}

// TestSequencesBeforeClaiming: a pass gives committed events their place
// in the pull API.
func TestSequencesBeforeClaiming(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	e := f.event(t, domain.EventContactOptedIn, "")
	w := f.worker(newPoster(always(200)), events.Config{SequenceBatch: 1})
	f.event(t, domain.EventContactOptedOut, "")
	pass(t, w)
	got, err := f.st.ListEvents(context.Background(), f.ws, domain.ModeLive, ports.EventFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].ID != e.ID || got[0].Seq == 0 || got[1].Seq != got[0].Seq+1 {
		t.Fatalf("after a pass the pull API lists %+v; want both events, in order, numbered", got)
	}
}

// TestPurgeKeepsTheRetentionPeriod: events older than the retention are
// purged, in batches, with their deliveries; younger ones stay.
func TestPurgeKeepsTheRetentionPeriod(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.endpoint(t)
	var old []domain.Event
	for range 5 {
		old = append(old, f.event(t, domain.EventContactOptedIn, ""))
	}
	f.clock.Advance(events.DefaultRetention)
	young := f.event(t, domain.EventContactOptedOut, "")
	f.clock.Advance(time.Second)
	r := events.NewRetention(f.st, f.clock, events.Config{PurgeBatch: 2}, usecase.NewObserver(nil))
	n, err := r.Purge(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if n != len(old) {
		t.Fatalf("purged %d events, want %d", n, len(old))
	}
	for _, e := range old {
		if _, err := f.st.GetEvent(context.Background(), f.ws, domain.ModeLive, e.ID); !errors.Is(err, domain.ErrEventNotFound) {
			t.Fatalf("an event past the retention is still there (%v)", err)
		}
	}
	if _, err := f.st.GetEvent(context.Background(), f.ws, domain.ModeLive, young.ID); err != nil {
		t.Fatalf("an event within the retention was purged: %v", err)
	}
}

// TestWakeOnCommit: a transaction that appended events wakes the worker
// once it commits; one that rolls back, or appended nothing, does not.
func TestWakeOnCommit(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	wake := events.NewWakeup()
	tx := events.WakeOnCommit(f.st, wake)
	woken := func() bool {
		select {
		case <-wake.C():
			return true
		default:
			return false
		}
	}
	ev := porttest.NewEvent(t, f.ws, domain.ModeLive, domain.EventContactOptedOut, "", f.clock.Now())
	err := tx.WithinTx(context.Background(), func(ctx context.Context, r ports.Repos) error {
		if err := r.Events.AppendEvents(ctx, ev); err != nil {
			return err
		}
		if woken() {
			t.Error("woken before the commit")
		}
		return errors.New("a later step fails")
	})
	if err == nil || woken() {
		t.Fatalf("a rolled-back transaction woke the worker (err %v)", err)
	}
	if err := tx.WithinTx(context.Background(), func(context.Context, ports.Repos) error { return nil }); err != nil || woken() {
		t.Fatalf("a transaction without events woke the worker (err %v)", err)
	}
	if err := tx.WithinTx(context.Background(), func(ctx context.Context, r ports.Repos) error {
		return r.Events.AppendEvents(ctx, ev)
	}); err != nil {
		t.Fatal(err)
	}
	if !woken() {
		t.Fatal("a committed transaction that appended an event did not wake the worker")
	}
}

func ids(rs []ports.WebhookRequest) []domain.EventID {
	out := make([]domain.EventID, len(rs))
	for i, r := range rs {
		out[i] = r.ID
	}
	return out
}

func sameSet(a, b []domain.EventID) bool {
	if len(a) != len(b) {
		return false
	}
	seen := map[domain.EventID]int{}
	for _, x := range a {
		seen[x]++
	}
	for _, x := range b {
		seen[x]--
	}
	for _, n := range seen {
		if n != 0 {
			return false
		}
	}
	return true
}
