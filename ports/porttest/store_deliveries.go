package porttest

import (
	"bytes"
	"cmp"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// deliveryTests run one after another, before the parallel cases (see
// RunStore): ClaimDeliveries looks across workspaces. A claim may return
// deliveries of whatever the store held before; each case asserts only
// about its own, and deletes its endpoints when it ends, which deletes
// their deliveries, so that nothing of it is left due for the next.
var deliveryTests = []storeTest{
	{"ClaimOnce", testDeliveryClaimOnce},
	{"OldestDueFirst", testDeliveryOldestDueFirst},
	{"ConcurrentClaimers", testDeliveryConcurrentClaimers},
	{"ExpiredLease", testDeliveryExpiredLease},
	{"OrderPerMessage", testDeliveryOrderPerMessage},
	{"RetryHoldsLaterBack", testDeliveryRetryHoldsLaterBack},
	{"RecordAttempt", testDeliveryRecordAttempt},
	{"Fenced", testDeliveryFenced},
	{"EndpointRule", testDeliveryEndpointRule},
	{"EndpointRuleError", testDeliveryEndpointRuleError},
	{"RecordAttempts", testDeliveryRecordAttempts},
	{"RecordSuccesses", testDeliveryRecordSuccesses},
	{"RecordAttemptsEndpointRule", testDeliveryRecordAttemptsEndpointRule},
	{"RecordAttemptsFailAll", testDeliveryRecordAttemptsFailAll},
	{"DisabledEndpointWaits", testDeliveryDisabledEndpointWaits},
	{"Redeliver", testDeliveryRedeliver},
	{"RedeliverTestEvent", testDeliveryRedeliverTestEvent},
	{"Recover", testDeliveryRecover},
	{"DeleteEndpoint", testDeliveryDeleteEndpoint},
}

// deliveryLease is how long the cases' claims lease deliveries.
const deliveryLease = time.Minute

func claimAt(owner string, now time.Time) ports.DeliveryClaim {
	return ports.DeliveryClaim{Owner: owner, Now: now, LeaseUntil: now.Add(deliveryLease), Limit: 1000}
}

// deliveryOf names one delivery: an event to an endpoint.
type deliveryOf struct {
	Event    domain.EventID
	Endpoint domain.WebhookEndpointID
}

func of(c ports.ClaimedDelivery) deliveryOf { return deliveryOf{c.Event.ID, c.Endpoint.ID} }

// claimMine claims and returns, in the order the store gave them, only
// the claimed deliveries of the endpoints in mine.
func claimMine(t *testing.T, s Store, c ports.DeliveryClaim, mine ...domain.WebhookEndpoint) []ports.ClaimedDelivery {
	t.Helper()
	all, err := s.ClaimDeliveries(t.Context(), c)
	if err != nil {
		t.Fatalf("ClaimDeliveries: %v", err)
	}
	if len(all) > c.Limit {
		t.Fatalf("ClaimDeliveries returned %d deliveries, over the limit of %d", len(all), c.Limit)
	}
	var out []ports.ClaimedDelivery
	for _, cl := range all {
		for _, e := range mine {
			if cl.Endpoint.ID == e.ID {
				out = append(out, cl)
			}
		}
	}
	return out
}

// claimed lists which deliveries a claim returned, in order.
func claimed(cs []ports.ClaimedDelivery) []deliveryOf {
	out := []deliveryOf{}
	for _, c := range cs {
		out = append(out, of(c))
	}
	return out
}

// claimOne claims and expects exactly one delivery of the endpoint: the
// event's, at attempt.
func claimOne(t *testing.T, s Store, c ports.DeliveryClaim, event domain.EventID, endpoint domain.WebhookEndpointID, attempt int) ports.ClaimedDelivery {
	t.Helper()
	got := claimMine(t, s, c, domain.WebhookEndpoint{ID: endpoint})
	if len(got) != 1 || got[0].Event.ID != event || got[0].Attempt != attempt {
		t.Fatalf("claim by %s at %v: %v (attempts %v); want %s at attempt %d", c.Owner, c.Now, claimed(got), attemptsOf(got), event, attempt)
	}
	return got[0]
}

func attemptsOf(cs []ports.ClaimedDelivery) []int {
	var out []int
	for _, c := range cs {
		out = append(out, c.Attempt)
	}
	return out
}

func claimNone(t *testing.T, s Store, c ports.DeliveryClaim, mine ...domain.WebhookEndpoint) {
	t.Helper()
	if got := claimMine(t, s, c, mine...); len(got) != 0 {
		t.Fatalf("claim by %s at %v returned %v, want none of ours", c.Owner, c.Now, claimed(got))
	}
}

// recordAttempt records, as owner, an attempt of c answered with status at
// at, which moved the delivery to state (pending again at retry), without
// an endpoint update.
func recordAttempt(t *testing.T, s Store, owner string, c ports.ClaimedDelivery, status int, at time.Time, state domain.DeliveryState, retry time.Time) domain.DeliveryAttempt {
	t.Helper()
	r := attemptRecord(owner, c, status, at, state, retry)
	if _, err := s.RecordAttempt(t.Context(), r, nil); err != nil {
		t.Fatalf("RecordAttempt: %v", err)
	}
	return r.DeliveryAttempt
}

func attemptRecord(owner string, c ports.ClaimedDelivery, status int, at time.Time, state domain.DeliveryState, retry time.Time) ports.AttemptRecord {
	return ports.AttemptRecord{
		Owner: owner, Attempt: c.Attempt,
		DeliveryAttempt: domain.DeliveryAttempt{Event: c.Event.ID, Endpoint: c.Endpoint.ID, At: at, Status: status,
			Duration: 1500 * time.Microsecond, ResponseHead: []byte("ok")},
		State: state, RetryAt: retry,
	}
}

// claimAs claims at now as owner and returns the deliveries of mine.
func claimAs(t *testing.T, s Store, owner string, now time.Time, mine ...domain.WebhookEndpoint) []ports.ClaimedDelivery {
	t.Helper()
	return claimMine(t, s, claimAt(owner, now), mine...)
}

// claimOneAs is claimOne by owner at now.
func claimOneAs(t *testing.T, s Store, owner string, now time.Time, event domain.EventID, endpoint domain.WebhookEndpointID, attempt int) ports.ClaimedDelivery {
	t.Helper()
	return claimOne(t, s, claimAt(owner, now), event, endpoint, attempt)
}

// A delivery is due from its event's time; a claim leases it with the
// event and the endpoint as stored, as the first attempt, and no other
// claim gets it while the lease lasts.
func testDeliveryClaimOnce(t *testing.T, s Store) {
	f := newFixture(t, s)
	e := f.endpoint(domain.ModeLive, domain.AllEvents())
	now := Now()
	ev := f.appendEvent(NewEvent(t, f.ws, domain.ModeLive, domain.EventMessageSent, NewID(domain.PrefixMessage), now))
	claimNone(t, s, claimAt("early", now.Add(-time.Millisecond)), e)

	got := claimOne(t, s, claimAt("a", now), ev.ID, e.ID, 1)
	mustEqual(t, "claimed event", ev, got.Event)
	mustEqual(t, "claimed endpoint", e, got.Endpoint)
	claimNone(t, s, claimAt("b", now.Add(time.Second)), e)
	claimNone(t, s, claimAt("a", now.Add(deliveryLease-time.Microsecond)), e)
	// Leased, it is still pending and due when it was.
	f.mustDeliveries(ev, pendingAt(e.ID, &ev.OccurredAt, ev.OccurredAt))
	if cs, err := s.ClaimDeliveries(f.ctx, ports.DeliveryClaim{Owner: "z", Now: now, LeaseUntil: now, Limit: 0}); err != nil || len(cs) != 0 {
		t.Fatalf("a claim with limit 0 = %d deliveries, %v", len(cs), err)
	}
}

// Claims hand out due deliveries oldest due first, never more than the
// limit; an event's deliveries to several endpoints are claimed alike.
func testDeliveryOldestDueFirst(t *testing.T, s Store) {
	f := newFixture(t, s)
	a := f.endpoint(domain.ModeLive, domain.AllEvents())
	b := f.endpoint(domain.ModeLive, domain.AllEvents())
	now := Now()
	var es []domain.Event
	for i := range 3 {
		// Appended newest first: the due time orders, not the appending.
		at := now.Add(-time.Duration(i) * time.Second)
		es = append(es, f.appendEvent(NewEvent(t, f.ws, domain.ModeLive, domain.EventContactOptedOut, "", at)))
	}
	c := claimAt("a", now)
	c.Limit = 2
	first := claimMine(t, s, c, a, b)
	rest := claimMine(t, s, claimAt("a", now), a, b)
	var order []domain.EventID
	for _, cl := range append(first, rest...) {
		order = append(order, cl.Event.ID)
	}
	if len(first) > 2 || len(order) != 6 {
		t.Fatalf("claims returned %d then %d of our deliveries, want at most 2 then all 6", len(first), len(rest))
	}
	want := []domain.EventID{es[2].ID, es[2].ID, es[1].ID, es[1].ID, es[0].ID, es[0].ID}
	mustEqual(t, "claim order", want, order)
}

// Two workers claiming at once never get the same delivery, and together
// they get all of them.
func testDeliveryConcurrentClaimers(t *testing.T, s Store) {
	f := newFixture(t, s)
	e := f.endpoint(domain.ModeLive, domain.AllEvents())
	now := Now()
	var es []domain.Event
	for range 40 {
		es = append(es, NewEvent(t, f.ws, domain.ModeLive, domain.EventMessageSent, NewID(domain.PrefixMessage), now))
	}
	f.appendEvents(es...)
	var mu sync.Mutex
	claimedBy := map[domain.EventID][]string{}
	errs := make(chan error, 2)
	var wg sync.WaitGroup
	for _, owner := range []string{"a", "b"} {
		wg.Go(func() {
			for {
				got, err := s.ClaimDeliveries(f.ctx, ports.DeliveryClaim{Owner: owner, Now: now, LeaseUntil: now.Add(deliveryLease), Limit: 3})
				if err != nil {
					errs <- err
					return
				}
				mine := 0
				mu.Lock()
				for _, c := range got {
					if c.Endpoint.ID == e.ID {
						claimedBy[c.Event.ID] = append(claimedBy[c.Event.ID], owner)
						mine++
					}
				}
				mu.Unlock()
				if len(got) == 0 {
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("ClaimDeliveries: %v", err)
	}
	for _, ev := range es {
		if by := claimedBy[ev.ID]; len(by) != 1 {
			t.Errorf("event %s was claimed by %v, want exactly one claimer", ev.ID, by)
		}
	}
}

// A lease that ended without a record is claimed again, as the next
// attempt; the first worker's record then changes nothing.
func testDeliveryExpiredLease(t *testing.T, s Store) {
	f := newFixture(t, s)
	e := f.endpoint(domain.ModeLive, domain.AllEvents())
	now := Now()
	ev := f.appendEvent(NewEvent(t, f.ws, domain.ModeLive, domain.EventContactOptedOut, "", now))
	first := claimOneAs(t, s, "a", now, ev.ID, e.ID, 1)
	second := claimOneAs(t, s, "b", now.Add(deliveryLease), ev.ID, e.ID, 2)
	_, err := s.RecordAttempt(f.ctx, attemptRecord("a", first, 200, now, domain.DeliverySucceeded, time.Time{}), nil)
	mustBe(t, "RecordAttempt of the expired lease", err, ports.ErrDeliveryLeaseLost)
	f.mustDeliveries(ev, pendingAt(e.ID, &ev.OccurredAt, ev.OccurredAt))
	recordAttempt(t, s, "b", second, 204, now.Add(deliveryLease), domain.DeliverySucceeded, time.Time{})
	if ds := f.deliveries(ev); len(ds) != 1 || ds[0].State != domain.DeliverySucceeded || len(ds[0].Attempts) != 1 {
		t.Fatalf("deliveries after the second worker's record: %+v; want succeeded with its one attempt", ds)
	}
}

// On each endpoint, a message's event is not claimed while an earlier
// event of the same message is pending there (leased, or waiting for a
// retry), and is claimed once it succeeded or was given up; other
// messages, events without a subject and other endpoints are not held
// back.
func testDeliveryOrderPerMessage(t *testing.T, s Store) {
	f := newFixture(t, s)
	a := f.endpoint(domain.ModeLive, domain.AllEvents())
	b := f.endpoint(domain.ModeLive, domain.AllEvents())
	now := Now()
	m1, m2 := NewID(domain.PrefixMessage), NewID(domain.PrefixMessage)
	sent1 := f.appendEvent(NewEvent(t, f.ws, domain.ModeLive, domain.EventMessageSent, m1, now))
	delivered1 := f.appendEvent(NewEvent(t, f.ws, domain.ModeLive, domain.EventMessageDelivered, m1, now))
	read1 := f.appendEvent(NewEvent(t, f.ws, domain.ModeLive, domain.EventMessageRead, m1, now))
	sent2 := f.appendEvent(NewEvent(t, f.ws, domain.ModeLive, domain.EventMessageSent, m2, now))
	opted := f.appendEvent(NewEvent(t, f.ws, domain.ModeLive, domain.EventContactOptedOut, "", now))
	opted2 := f.appendEvent(NewEvent(t, f.ws, domain.ModeLive, domain.EventContactOptedIn, "", now))

	got := claimAs(t, s, "w", now, a, b)
	want := []deliveryOf{{sent1.ID, a.ID}, {sent1.ID, b.ID}, {sent2.ID, a.ID}, {sent2.ID, b.ID}, {opted.ID, a.ID},
		{opted.ID, b.ID}, {opted2.ID, a.ID}, {opted2.ID, b.ID}}
	mustEqual(t, "first claim", sortDeliveries(want), sortDeliveries(claimed(got)))
	byDelivery := map[deliveryOf]ports.ClaimedDelivery{}
	for _, c := range got {
		if byDelivery[of(c)] = c; c.Event.ID != sent1.ID {
			recordAttempt(t, s, "w", c, 200, now, domain.DeliverySucceeded, time.Time{})
		}
	}
	// Leased: the message's next event waits on both endpoints.
	claimNone(t, s, claimAt("w", now), a, b)

	// Delivered on a: the next event goes there, not on b.
	recordAttempt(t, s, "w", byDelivery[deliveryOf{sent1.ID, a.ID}], 200, now, domain.DeliverySucceeded, time.Time{})
	claimOneAs(t, s, "w", now, delivered1.ID, a.ID, 1)
	claimNone(t, s, claimAt("w", now), b)

	// Failing on b: the next event waits for the retry.
	retry := now.Add(time.Hour)
	recordAttempt(t, s, "w", byDelivery[deliveryOf{sent1.ID, b.ID}], 503, now, domain.DeliveryPending, retry)
	claimNone(t, s, claimAt("w", now.Add(30*time.Second)), b)
	again := claimOneAs(t, s, "w", retry, sent1.ID, b.ID, 2)
	claimNone(t, s, claimAt("w", retry), b)
	// Given up: the next event goes, and the one after it waits for it.
	recordAttempt(t, s, "w", again, 0, retry, domain.DeliveryGivenUp, time.Time{})
	claimOneAs(t, s, "w", retry, delivered1.ID, b.ID, 1)
	claimNone(t, s, claimAt("w", retry), b)
	f.mustDeliveries(read1, pendingAt(a.ID, &read1.OccurredAt, read1.OccurredAt), pendingAt(b.ID, &retry, read1.OccurredAt))
}

func sortDeliveries(ds []deliveryOf) []deliveryOf {
	out := slices.Clone(ds)
	slices.SortFunc(out, func(a, b deliveryOf) int {
		return cmp.Or(cmp.Compare(a.Event, b.Event), cmp.Compare(a.Endpoint, b.Endpoint))
	})
	return out
}

// A retry makes the later deliveries of its message to the endpoint due no
// earlier than itself, and a later event of the message appended while it
// waits is due then too: they wait for it anyway.
func testDeliveryRetryHoldsLaterBack(t *testing.T, s Store) {
	f := newFixture(t, s)
	e := f.endpoint(domain.ModeLive, domain.AllEvents())
	now := Now()
	msg := NewID(domain.PrefixMessage)
	sent := f.appendEvent(NewEvent(t, f.ws, domain.ModeLive, domain.EventMessageSent, msg, now))
	delivered := f.appendEvent(NewEvent(t, f.ws, domain.ModeLive, domain.EventMessageDelivered, msg, now))
	f.appendEvent(NewEvent(t, f.ws, domain.ModeLive, domain.EventMessageSent, NewID(domain.PrefixMessage), now))
	cs := claimAs(t, s, "w", now, e)
	if len(cs) != 2 || cs[0].Event.ID == cs[1].Event.ID {
		t.Fatalf("claimed %v, want the two messages' first events", claimed(cs))
	}
	c := cs[0]
	if c.Event.ID != sent.ID {
		c = cs[1]
	}
	retry := now.Add(5 * time.Minute)
	recordAttempt(t, s, "w", c, 500, now, domain.DeliveryPending, retry)
	f.mustDeliveries(delivered, pendingAt(e.ID, &retry, delivered.OccurredAt))
	later := now.Add(time.Second)
	read := f.appendEvent(NewEvent(t, f.ws, domain.ModeLive, domain.EventMessageRead, msg, later))
	f.mustDeliveries(read, pendingAt(e.ID, &retry, later))
	// Another message's events are due when they occurred.
	otherRead := f.appendEvent(NewEvent(t, f.ws, domain.ModeLive, domain.EventMessageRead, NewID(domain.PrefixMessage), later))
	f.mustDeliveries(otherRead, pendingAt(e.ID, &later, later))

	// Appended in one call, as a webhook group does, the message's events
	// wait for the retry, each of them, and another message's do not.
	again := now.Add(2 * time.Second)
	other := NewID(domain.PrefixMessage)
	together := f.appendEvents(
		NewEvent(t, f.ws, domain.ModeLive, domain.EventMessageFailed, msg, again),
		NewEvent(t, f.ws, domain.ModeLive, domain.EventMessageSent, other, again),
		NewEvent(t, f.ws, domain.ModeLive, domain.EventMessageRead, msg, again),
		NewEvent(t, f.ws, domain.ModeLive, domain.EventMessageDelivered, other, again),
	)
	f.mustDeliveries(together[0], pendingAt(e.ID, &retry, again))
	f.mustDeliveries(together[1], pendingAt(e.ID, &again, again))
	f.mustDeliveries(together[2], pendingAt(e.ID, &retry, again))
	f.mustDeliveries(together[3], pendingAt(e.ID, &again, again))
}

// An attempt is kept as recorded, its answer's head cut to
// domain.MaxResponseHead and its duration to the microsecond; the
// delivery is succeeded, or given up, without a due time, changed when
// the attempt ended. An endpoint's attempts list newest first.
func testDeliveryRecordAttempt(t *testing.T, s Store) {
	f := newFixture(t, s)
	e := f.endpoint(domain.ModeLive, domain.AllEvents())
	now := Now()
	ok := f.appendEvent(NewEvent(t, f.ws, domain.ModeLive, domain.EventContactOptedOut, "", now))
	gone := f.appendEvent(NewEvent(t, f.ws, domain.ModeLive, domain.EventContactOptedIn, "", now))
	cs := claimAs(t, s, "w", now, e)
	if len(cs) != 2 {
		t.Fatalf("claimed %d deliveries, want 2", len(cs))
	}
	for _, c := range cs {
		r := attemptRecord("w", c, 200, now.Add(time.Second), domain.DeliverySucceeded, time.Time{})
		r.Duration = 2*time.Second + 345678*time.Nanosecond
		r.ResponseHead = bytes.Repeat([]byte("é"), domain.MaxResponseHead)
		if c.Event.ID == gone.ID {
			r.At, r.Status, r.Error, r.ResponseHead = now.Add(2*time.Second), 0, "the connection was refused", nil
			r.State = domain.DeliveryGivenUp
		}
		after, err := s.RecordAttempt(f.ctx, r, nil)
		if err != nil {
			t.Fatalf("RecordAttempt: %v", err)
		}
		mustEqual(t, "endpoint after the attempt", e, after)
	}
	okAttempt := domain.DeliveryAttempt{Event: ok.ID, Endpoint: e.ID, At: now.Add(time.Second), Status: 200,
		Duration: 2*time.Second + 345*time.Microsecond, ResponseHead: bytes.Repeat([]byte("é"), domain.MaxResponseHead)[:domain.MaxResponseHead]}
	goneAttempt := domain.DeliveryAttempt{Event: gone.ID, Endpoint: e.ID, At: now.Add(2 * time.Second),
		Duration: 2*time.Second + 345*time.Microsecond, Error: "the connection was refused"}
	f.mustDeliveries(ok, domain.EventDelivery{Endpoint: e.ID, State: domain.DeliverySucceeded,
		Attempts: []domain.DeliveryAttempt{okAttempt}, UpdatedAt: okAttempt.At.Add(okAttempt.Duration)})
	f.mustDeliveries(gone, domain.EventDelivery{Endpoint: e.ID, State: domain.DeliveryGivenUp,
		Attempts: []domain.DeliveryAttempt{goneAttempt}, UpdatedAt: goneAttempt.At.Add(goneAttempt.Duration)})
	if len(okAttempt.ResponseHead) != domain.MaxResponseHead {
		t.Fatal("the expected head is not cut")
	}

	list, err := s.ListEndpointAttempts(f.ctx, f.ws, domain.ModeLive, e.ID, 0)
	if err != nil {
		t.Fatalf("ListEndpointAttempts: %v", err)
	}
	mustEqual(t, "endpoint attempts, newest first", []domain.DeliveryAttempt{goneAttempt, okAttempt}, list)
	list, err = s.ListEndpointAttempts(f.ctx, f.ws, domain.KeyMode{}, e.ID, 1)
	if err != nil {
		t.Fatalf("ListEndpointAttempts: %v", err)
	}
	mustEqual(t, "the latest attempt", []domain.DeliveryAttempt{goneAttempt}, list)

	bad := attemptRecord("w", cs[0], 200, now, domain.DeliveryState{}, time.Time{})
	if _, err := s.RecordAttempt(f.ctx, bad, nil); err == nil || errors.Is(err, ports.ErrDeliveryLeaseLost) {
		t.Fatalf("RecordAttempt without a state = %v, want a caller's mistake", err)
	}
	bad.State = domain.DeliveryPending
	if _, err := s.RecordAttempt(f.ctx, bad, nil); err == nil || errors.Is(err, ports.ErrDeliveryLeaseLost) {
		t.Fatalf("RecordAttempt pending without a retry time = %v, want a caller's mistake", err)
	}
}

// A record is fenced by its owner and attempt: another owner's, a stale
// attempt's, or one for a delivery already recorded changes nothing.
func testDeliveryFenced(t *testing.T, s Store) {
	f := newFixture(t, s)
	e := f.endpoint(domain.ModeLive, domain.AllEvents())
	now := Now()
	ev := f.appendEvent(NewEvent(t, f.ws, domain.ModeLive, domain.EventContactOptedOut, "", now))
	c := claimOneAs(t, s, "owner", now, ev.ID, e.ID, 1)
	for _, r := range []ports.AttemptRecord{
		func() ports.AttemptRecord {
			r := attemptRecord("owner", c, 200, now, domain.DeliverySucceeded, time.Time{})
			r.Owner = "someone else"
			return r
		}(),
		func() ports.AttemptRecord {
			r := attemptRecord("owner", c, 200, now, domain.DeliverySucceeded, time.Time{})
			r.Attempt = 2
			return r
		}(),
		func() ports.AttemptRecord {
			r := attemptRecord("owner", c, 200, now, domain.DeliverySucceeded, time.Time{})
			r.Endpoint = "whe_01m80000000000000000000000"
			return r
		}(),
	} {
		_, err := s.RecordAttempt(f.ctx, r, func(*domain.WebhookEndpoint) error {
			return nil
		})
		mustBe(t, "RecordAttempt not fenced by the claim", err, ports.ErrDeliveryLeaseLost)
	}
	f.mustDeliveries(ev, pendingAt(e.ID, &ev.OccurredAt, ev.OccurredAt))
	recordAttempt(t, s, "owner", c, 200, now, domain.DeliverySucceeded, time.Time{})
	_, err := s.RecordAttempt(f.ctx, attemptRecord("owner", c, 500, now, domain.DeliveryPending, now.Add(time.Hour)), nil)
	mustBe(t, "RecordAttempt of a delivery already recorded", err, ports.ErrDeliveryLeaseLost)
	if ds := f.deliveries(ev); len(ds) != 1 || ds[0].State != domain.DeliverySucceeded || len(ds[0].Attempts) != 1 {
		t.Fatalf("deliveries: %+v; want succeeded, with one attempt", ds)
	}
}

// The endpoint function runs on the delivery's endpoint in the record's
// transaction: a 410 disables the endpoint, which is stored and returned,
// and takes the due times of its pending deliveries away, this one's
// retry included; they are not claimed, and are claimed again once the
// endpoint is enabled.
func testDeliveryEndpointRule(t *testing.T, s Store) {
	f := newFixture(t, s)
	e := f.endpoint(domain.ModeLive, domain.AllEvents())
	now := Now()
	ev := f.appendEvent(NewEvent(t, f.ws, domain.ModeLive, domain.EventContactOptedOut, "", now))
	waiting := f.appendEvent(NewEvent(t, f.ws, domain.ModeLive, domain.EventContactOptedIn, "", now.Add(time.Hour)))
	c := claimOneAs(t, s, "w", now, ev.ID, e.ID, 1)
	want := cloneEndpoint(e)
	if !want.RecordAttempt(410, now, 0) {
		t.Fatal("the domain does not disable on 410")
	}
	r := attemptRecord("w", c, 410, now, domain.DeliveryPending, now.Add(5*time.Second))
	after, err := s.RecordAttempt(f.ctx, r, func(w *domain.WebhookEndpoint) error {
		w.RecordAttempt(r.Status, r.At, 0)
		return nil
	})
	if err != nil {
		t.Fatalf("RecordAttempt: %v", err)
	}
	mustEqual(t, "endpoint returned", want, after)
	mustEqual(t, "endpoint stored", want, f.getEndpoint(e.ID))
	f.mustDeliveries(waiting, pendingAt(e.ID, nil, waiting.OccurredAt))
	if ds := f.deliveries(ev); len(ds) != 1 || ds[0].NextAttemptAt != nil || ds[0].State != domain.DeliveryPending {
		t.Fatalf("the retried delivery of a disabled endpoint: %+v; want pending without a due time", ds)
	}
	claimNone(t, s, claimAt("w", now.Add(48*time.Hour)), e)

	enabledAt := now.Add(2 * time.Hour)
	f.updateEndpoint(e, func(w *domain.WebhookEndpoint) { w.Enable(enabledAt) })
	got := claimAs(t, s, "w", enabledAt, e)
	mustEqual(t, "claimed after enabling", sortDeliveries([]deliveryOf{{ev.ID, e.ID}, {waiting.ID, e.ID}}), sortDeliveries(claimed(got)))
	for _, c := range got {
		if want := map[domain.EventID]int{ev.ID: 2, waiting.ID: 1}[c.Event.ID]; c.Attempt != want {
			t.Errorf("%s claimed as attempt %d, want %d: the series goes on", c.Event.ID, c.Attempt, want)
		}
	}
}

// An endpoint function that fails fails the record, which changes
// nothing: the lease holds, and no attempt is kept.
func testDeliveryEndpointRuleError(t *testing.T, s Store) {
	f := newFixture(t, s)
	e := f.endpoint(domain.ModeLive, domain.AllEvents())
	now := Now()
	ev := f.appendEvent(NewEvent(t, f.ws, domain.ModeLive, domain.EventContactOptedOut, "", now))
	c := claimOneAs(t, s, "w", now, ev.ID, e.ID, 1)
	boom := errors.New("boom")
	_, err := s.RecordAttempt(f.ctx, attemptRecord("w", c, 200, now, domain.DeliverySucceeded, time.Time{}), func(w *domain.WebhookEndpoint) error {
		w.Disable(now)
		return boom
	})
	mustBe(t, "RecordAttempt with a failing endpoint function", err, boom)
	mustEqual(t, "endpoint", e, f.getEndpoint(e.ID))
	f.mustDeliveries(ev, pendingAt(e.ID, &ev.OccurredAt, ev.OccurredAt))
	claimNone(t, s, claimAt("other", now), e)
	recordAttempt(t, s, "w", c, 200, now, domain.DeliverySucceeded, time.Time{})
}

// A disabled endpoint's deliveries are not claimed, even the ones due
// before it was disabled, and hold its later deliveries of the same
// message back; they are claimed once it is enabled, in order.
func testDeliveryDisabledEndpointWaits(t *testing.T, s Store) {
	f := newFixture(t, s)
	e := f.endpoint(domain.ModeLive, domain.AllEvents())
	now := Now()
	msg := NewID(domain.PrefixMessage)
	sent := f.appendEvent(NewEvent(t, f.ws, domain.ModeLive, domain.EventMessageSent, msg, now))
	f.updateEndpoint(e, func(w *domain.WebhookEndpoint) { w.Disable(now) })
	// Disabled endpoints get no new deliveries.
	delivered := f.appendEvent(NewEvent(t, f.ws, domain.ModeLive, domain.EventMessageDelivered, msg, now))
	f.mustDeliveries(delivered)
	claimNone(t, s, claimAt("w", now.Add(time.Hour)), e)

	enabled := now.Add(2 * time.Hour)
	f.updateEndpoint(e, func(w *domain.WebhookEndpoint) { w.Enable(enabled) })
	read := f.appendEvent(NewEvent(t, f.ws, domain.ModeLive, domain.EventMessageRead, msg, enabled))
	c := claimOneAs(t, s, "w", enabled, sent.ID, e.ID, 1)
	recordAttempt(t, s, "w", c, 200, enabled, domain.DeliverySucceeded, time.Time{})
	claimOneAs(t, s, "w", enabled, read.ID, e.ID, 1)
}

// Redeliver sends an event again to every enabled endpoint that subscribes
// to its type: a delivery that succeeded or was given up starts a new
// series of attempts, due at once, its past attempts kept; one still
// pending is left alone; an endpoint subscribed since gets one. Named, an
// endpoint gets it whatever its subscription, and a disabled one keeps it
// waiting.
func testDeliveryRedeliver(t *testing.T, s Store) {
	f := newFixture(t, s)
	done := f.endpoint(domain.ModeLive, domain.AllEvents())
	failed := f.endpoint(domain.ModeLive, Subscribe(t, "contact.opted_out"))
	busy := f.endpoint(domain.ModeLive, domain.AllEvents())
	now := Now()
	ev := f.appendEvent(NewEvent(t, f.ws, domain.ModeLive, domain.EventContactOptedOut, "", now))
	for _, c := range claimAs(t, s, "w", now, done, failed) {
		state := domain.DeliverySucceeded
		if c.Endpoint.ID == failed.ID {
			state = domain.DeliveryGivenUp
		}
		recordAttempt(t, s, "w", c, 200, now, state, time.Time{})
	}
	late := f.endpoint(domain.ModeLive, Subscribe(t, "contact.opted_out"))
	f.endpoint(domain.ModeLive, Subscribe(t, "contact.opted_in"))
	f.disabledEndpoint(domain.ModeLive, domain.AllEvents())
	off := f.disabledEndpoint(domain.ModeLive, Subscribe(t, "message.sent"))

	at := now.Add(time.Hour)
	n, err := s.Redeliver(f.ctx, f.ws, domain.ModeLive, ev.ID, "", at)
	if err != nil || n != 3 {
		t.Fatalf("Redeliver = %d, %v; want 3 (the succeeded, the given-up and the new subscriber's)", n, err)
	}
	ds := f.deliveries(ev)
	byEndpoint := map[domain.WebhookEndpointID]domain.EventDelivery{}
	for _, d := range ds {
		byEndpoint[d.Endpoint] = d
	}
	if len(ds) != 4 {
		t.Fatalf("deliveries after Redeliver: %d, want 4", len(ds))
	}
	for _, id := range []domain.WebhookEndpointID{done.ID, failed.ID} {
		d := byEndpoint[id]
		if d.State != domain.DeliveryPending || d.NextAttemptAt == nil || !d.NextAttemptAt.Equal(at) || len(d.Attempts) != 1 || !d.UpdatedAt.Equal(at) {
			t.Errorf("redelivered to %s: %+v; want pending at %v with its past attempt", id, d, at)
		}
	}
	mustEqual(t, "new subscriber's delivery", pendingAt(late.ID, &at, at), withEvent(byEndpoint[late.ID], ""))
	mustEqual(t, "busy endpoint's delivery", pendingAt(busy.ID, &ev.OccurredAt, ev.OccurredAt), withEvent(byEndpoint[busy.ID], ""))
	got := claimAs(t, s, "w", at, done, failed, late)
	if len(got) != 3 || got[0].Attempt != 1 || got[1].Attempt != 1 || got[2].Attempt != 1 {
		t.Fatalf("claimed after Redeliver: %v at attempts %v; want three first attempts", claimed(got), attemptsOf(got))
	}

	n, err = s.Redeliver(f.ctx, f.ws, domain.ModeLive, ev.ID, off.ID, at)
	if err != nil || n != 1 {
		t.Fatalf("Redeliver to a named disabled endpoint = %d, %v; want 1", n, err)
	}
	for _, d := range f.deliveries(ev) {
		if d.Endpoint == off.ID && (d.State != domain.DeliveryPending || d.NextAttemptAt != nil) {
			t.Fatalf("the disabled endpoint's delivery: %+v; want pending without a due time", d)
		}
	}
	n, err = s.Redeliver(f.ctx, f.ws, domain.ModeLive, ev.ID, busy.ID, at)
	if err != nil || n != 0 {
		t.Fatalf("Redeliver to an endpoint whose delivery is pending = %d, %v; want 0", n, err)
	}
	testMode := f.endpoint(domain.ModeTest, domain.AllEvents())
	_, err = s.Redeliver(f.ctx, f.ws, domain.ModeLive, ev.ID, testMode.ID, at)
	mustBe(t, "Redeliver to another mode's endpoint", err, domain.ErrWebhookEndpointNotFound)
}

func withEvent(d domain.EventDelivery, id domain.EventID) domain.EventDelivery {
	d.Event = id
	return d
}

// A test event is redelivered to the endpoint it was sent to, and to no
// other.
func testDeliveryRedeliverTestEvent(t *testing.T, s Store) {
	f := newFixture(t, s)
	e := f.endpoint(domain.ModeLive, domain.AllEvents())
	f.endpoint(domain.ModeLive, domain.AllEvents())
	now := Now()
	ev := NewEvent(t, f.ws, domain.ModeLive, domain.EventWebhookTest, "", now)
	if err := s.AppendEventTo(f.ctx, ev, e.ID); err != nil {
		t.Fatalf("AppendEventTo: %v", err)
	}
	c := claimOneAs(t, s, "w", now, ev.ID, e.ID, 1)
	recordAttempt(t, s, "w", c, 500, now, domain.DeliveryGivenUp, time.Time{})
	at := now.Add(time.Minute)
	if n, err := s.Redeliver(f.ctx, f.ws, domain.ModeLive, ev.ID, "", at); err != nil || n != 1 {
		t.Fatalf("Redeliver of a test event = %d, %v; want 1", n, err)
	}
	if ds := f.deliveries(ev); len(ds) != 1 || ds[0].Endpoint != e.ID || ds[0].State != domain.DeliveryPending {
		t.Fatalf("test event's deliveries after Redeliver: %+v", ds)
	}
}

// Recover makes an endpoint's given-up deliveries of events since a time
// pending again, and appends the events since then that it subscribes to
// and never got; earlier events, delivered ones, other types and other
// modes' events are left alone. Recovered deliveries keep their events'
// order per message.
func testDeliveryRecover(t *testing.T, s Store) {
	f := newFixture(t, s)
	e := f.endpoint(domain.ModeLive, Subscribe(t, "message.sent", "message.delivered"))
	base := Now().Add(-time.Hour)
	msg := NewID(domain.PrefixMessage)
	event := func(typ domain.EventType, subject string, at time.Time) domain.Event {
		return f.appendEvent(NewEvent(t, f.ws, domain.ModeLive, typ, subject, at))
	}
	before := event(domain.EventMessageSent, NewID(domain.PrefixMessage), base)
	givenUp := event(domain.EventMessageSent, msg, base.Add(time.Minute))
	delivered := event(domain.EventMessageSent, NewID(domain.PrefixMessage), base.Add(2*time.Minute))
	for _, c := range claimAs(t, s, "w", base.Add(2*time.Minute), e) {
		state := domain.DeliveryGivenUp
		if c.Event.ID == delivered.ID {
			state = domain.DeliverySucceeded
		}
		recordAttempt(t, s, "w", c, 500, base.Add(2*time.Minute), state, time.Time{})
	}
	f.updateEndpoint(e, func(w *domain.WebhookEndpoint) { w.Disable(base.Add(3 * time.Minute)) })
	missed := event(domain.EventMessageDelivered, msg, base.Add(4*time.Minute))
	f.updateEndpoint(e, func(w *domain.WebhookEndpoint) { w.Enable(base.Add(5 * time.Minute)) })
	event(domain.EventMessageRead, msg, base.Add(6*time.Minute))
	f.appendEvent(NewEvent(t, f.ws, domain.ModeTest, domain.EventMessageSent, NewID(domain.PrefixMessage), base.Add(6*time.Minute)))

	now := Now()
	n, err := s.Recover(f.ctx, f.ws, domain.ModeLive, e.ID, base.Add(30*time.Second), now)
	if err != nil || n != 2 {
		t.Fatalf("Recover = %d, %v; want 2 (the given-up delivery and the missed one)", n, err)
	}
	f.mustDeliveries(missed, pendingAt(e.ID, &now, now))
	if ds := f.deliveries(before); len(ds) != 1 || ds[0].State != domain.DeliveryGivenUp {
		t.Fatalf("the delivery given up before since: %+v; want left given up", ds)
	}
	if ds := f.deliveries(delivered); len(ds) != 1 || ds[0].State != domain.DeliverySucceeded {
		t.Fatalf("the delivered event: %+v; want left succeeded", ds)
	}
	// The message's given-up event goes first, then the one it missed.
	c := claimOneAs(t, s, "w", now, givenUp.ID, e.ID, 1)
	recordAttempt(t, s, "w", c, 200, now, domain.DeliverySucceeded, time.Time{})
	claimOneAs(t, s, "w", now, missed.ID, e.ID, 1)
	if n, err := s.Recover(f.ctx, f.ws, domain.ModeLive, e.ID, base, now); err != nil || n != 1 {
		t.Fatalf("Recover since before everything = %d, %v; want 1 (the first given-up delivery)", n, err)
	}
}

// Deleting an endpoint deletes its attempts with its deliveries, and
// leaves other endpoints' alone.
func testDeliveryDeleteEndpoint(t *testing.T, s Store) {
	f := newFixture(t, s)
	e := f.endpoint(domain.ModeLive, domain.AllEvents())
	kept := f.endpoint(domain.ModeLive, domain.AllEvents())
	now := Now()
	ev := f.appendEvent(NewEvent(t, f.ws, domain.ModeLive, domain.EventContactOptedOut, "", now))
	for _, c := range claimAs(t, s, "w", now, e, kept) {
		recordAttempt(t, s, "w", c, 500, now, domain.DeliveryPending, now.Add(time.Hour))
	}
	if err := s.DeleteEndpoint(f.ctx, f.ws, domain.ModeLive, e.ID); err != nil {
		t.Fatalf("DeleteEndpoint: %v", err)
	}
	ds := f.deliveries(ev)
	if len(ds) != 1 || ds[0].Endpoint != kept.ID || len(ds[0].Attempts) != 1 {
		t.Fatalf("deliveries after deleting an endpoint: %+v; want the other endpoint's, with its attempt", ds)
	}
	attempts, err := s.ListEndpointAttempts(f.ctx, f.ws, domain.ModeLive, kept.ID, 10)
	if err != nil || len(attempts) != 1 {
		t.Fatalf("the other endpoint's attempts: %v, %v", attempts, err)
	}
}

// RecordAttempts records each attempt as RecordAttempt does; a record
// whose lease is lost, or without a state, is its own outcome, changes
// nothing and holds none of the others back. No records is no work.
func testDeliveryRecordAttempts(t *testing.T, s Store) {
	f := newFixture(t, s)
	e := f.endpoint(domain.ModeLive, domain.AllEvents())
	now := Now()
	okEv := f.appendEvent(NewEvent(t, f.ws, domain.ModeLive, domain.EventContactOptedOut, "", now))
	lostEv := f.appendEvent(NewEvent(t, f.ws, domain.ModeLive, domain.EventContactOptedIn, "", now))
	retryEv := f.appendEvent(NewEvent(t, f.ws, domain.ModeLive, domain.EventContactOptedOut, "", now.Add(time.Second)))
	byEvent := map[domain.EventID]ports.ClaimedDelivery{}
	for _, c := range claimAs(t, s, "w", now.Add(time.Second), e) {
		byEvent[c.Event.ID] = c
	}
	if len(byEvent) != 3 {
		t.Fatalf("claimed %d deliveries, want 3", len(byEvent))
	}
	if out, err := s.RecordAttempts(f.ctx, nil, nil); err != nil || len(out) != 0 {
		t.Fatalf("RecordAttempts of none = %v, %v", out, err)
	}
	at := now.Add(2 * time.Second)
	ok := attemptRecord("w", byEvent[okEv.ID], 200, at, domain.DeliverySucceeded, time.Time{})
	lost := attemptRecord("w", byEvent[lostEv.ID], 200, at, domain.DeliverySucceeded, time.Time{})
	lost.Owner = "someone else"
	noState := attemptRecord("w", byEvent[lostEv.ID], 200, at, domain.DeliveryState{}, time.Time{})
	retryAt := now.Add(time.Hour)
	retry := attemptRecord("w", byEvent[retryEv.ID], 503, at, domain.DeliveryPending, retryAt)
	out, err := s.RecordAttempts(f.ctx, []ports.AttemptRecord{ok, lost, noState, retry}, nil)
	if err != nil {
		t.Fatalf("RecordAttempts: %v", err)
	}
	if len(out) != 4 {
		t.Fatalf("RecordAttempts gave %d outcomes for 4 records", len(out))
	}
	mustBe(t, "the lost lease's outcome", out[1].Err, ports.ErrDeliveryLeaseLost)
	if out[2].Err == nil || errors.Is(out[2].Err, ports.ErrDeliveryLeaseLost) {
		t.Fatalf("the record without a state: %v, want a caller's mistake", out[2].Err)
	}
	for _, i := range []int{0, 3} {
		if out[i].Err != nil {
			t.Fatalf("outcome %d: %v", i, out[i].Err)
		}
		mustEqual(t, "endpoint after the attempt", e, out[i].Endpoint)
	}
	f.mustDeliveries(okEv, domain.EventDelivery{Endpoint: e.ID, State: domain.DeliverySucceeded,
		Attempts: []domain.DeliveryAttempt{ok.DeliveryAttempt}, UpdatedAt: at.Add(ok.Duration)})
	f.mustDeliveries(retryEv, domain.EventDelivery{Endpoint: e.ID, State: domain.DeliveryPending, NextAttemptAt: &retryAt,
		Attempts: []domain.DeliveryAttempt{retry.DeliveryAttempt}, UpdatedAt: at.Add(retry.Duration)})
	f.mustDeliveries(lostEv, pendingAt(e.ID, &lostEv.OccurredAt, lostEv.OccurredAt))
	// The lease the other records left alone still holds.
	recordAttempt(t, s, "w", byEvent[lostEv.ID], 200, at, domain.DeliverySucceeded, time.Time{})
}

// In a batch, the endpoint function of each record runs on the endpoint as
// the records before it left it: two failures an hour apart disable an
// endpoint whose rule disables after an hour of failing, though neither
// would alone.
func testDeliveryRecordAttemptsEndpointRule(t *testing.T, s Store) {
	f := newFixture(t, s)
	e := f.endpoint(domain.ModeLive, domain.AllEvents())
	now := Now()
	first := f.appendEvent(NewEvent(t, f.ws, domain.ModeLive, domain.EventContactOptedOut, "", now))
	second := f.appendEvent(NewEvent(t, f.ws, domain.ModeLive, domain.EventContactOptedIn, "", now))
	c1, c2 := claimBoth(t, s, now, e, first.ID, second.ID)
	r1 := attemptRecord("w", c1, 500, now, domain.DeliveryPending, now.Add(time.Minute))
	r2 := attemptRecord("w", c2, 500, now.Add(2*time.Hour), domain.DeliveryPending, now.Add(3*time.Hour))
	afterFirst, want := cloneEndpoint(e), cloneEndpoint(e)
	afterFirst.RecordAttempt(r1.Status, r1.At, time.Hour)
	want.RecordAttempt(r1.Status, r1.At, time.Hour)
	if !want.RecordAttempt(r2.Status, r2.At, time.Hour) {
		t.Fatal("the domain does not disable after an hour of failures")
	}
	out, err := s.RecordAttempts(f.ctx, []ports.AttemptRecord{r1, r2}, func(r ports.AttemptRecord, w *domain.WebhookEndpoint) error {
		w.RecordAttempt(r.Status, r.At, time.Hour)
		return nil
	})
	if err != nil || len(out) != 2 || out[0].Err != nil || out[1].Err != nil {
		t.Fatalf("RecordAttempts = %+v, %v", out, err)
	}
	mustEqual(t, "endpoint after the first record", afterFirst, out[0].Endpoint)
	mustEqual(t, "endpoint after the second record", want, out[1].Endpoint)
	mustEqual(t, "endpoint stored", want, f.getEndpoint(e.ID))
	claimNone(t, s, claimAt("w", now.Add(48*time.Hour)), e)
}

// A failure that is not one record's own (here the endpoint function's)
// stores none of the batch: the leases hold, no attempt is kept.
func testDeliveryRecordAttemptsFailAll(t *testing.T, s Store) {
	f := newFixture(t, s)
	e := f.endpoint(domain.ModeLive, domain.AllEvents())
	now := Now()
	first := f.appendEvent(NewEvent(t, f.ws, domain.ModeLive, domain.EventContactOptedOut, "", now))
	second := f.appendEvent(NewEvent(t, f.ws, domain.ModeLive, domain.EventContactOptedIn, "", now))
	c1, c2 := claimBoth(t, s, now, e, first.ID, second.ID)
	r1 := attemptRecord("w", c1, 410, now, domain.DeliveryPending, now.Add(time.Minute))
	r2 := attemptRecord("w", c2, 200, now, domain.DeliverySucceeded, time.Time{})
	boom := errors.New("boom")
	_, err := s.RecordAttempts(f.ctx, []ports.AttemptRecord{r1, r2}, func(r ports.AttemptRecord, w *domain.WebhookEndpoint) error {
		if r.Event == second.ID {
			return boom
		}
		w.RecordAttempt(r.Status, r.At, 0)
		return nil
	})
	mustBe(t, "RecordAttempts with a failing endpoint function", err, boom)
	mustEqual(t, "endpoint", e, f.getEndpoint(e.ID))
	f.mustDeliveries(first, pendingAt(e.ID, &first.OccurredAt, first.OccurredAt))
	f.mustDeliveries(second, pendingAt(e.ID, &second.OccurredAt, second.OccurredAt))
	recordAttempt(t, s, "w", c1, 200, now, domain.DeliverySucceeded, time.Time{})
	recordAttempt(t, s, "w", c2, 200, now, domain.DeliverySucceeded, time.Time{})
}

// claimBoth claims the endpoint's deliveries of two events, as "w" at now.
func claimBoth(t *testing.T, s Store, now time.Time, e domain.WebhookEndpoint, first, second domain.EventID) (ports.ClaimedDelivery, ports.ClaimedDelivery) {
	t.Helper()
	byEvent := map[domain.EventID]ports.ClaimedDelivery{}
	for _, c := range claimAs(t, s, "w", now, e) {
		byEvent[c.Event.ID] = c
	}
	c1, ok1 := byEvent[first]
	c2, ok2 := byEvent[second]
	if len(byEvent) != 2 || !ok1 || !ok2 {
		t.Fatalf("claimed %v, want the deliveries of %s and %s", byEvent, first, second)
	}
	return c1, c2
}

// A batch of successes, the worker's usual batch, over two endpoints: each
// delivery whose lease holds is succeeded with its attempt, a lost lease's
// is left as it was, and the endpoints, whose rule changes nothing for a
// success, are answered as they are.
func testDeliveryRecordSuccesses(t *testing.T, s Store) {
	f := newFixture(t, s)
	a := f.endpoint(domain.ModeLive, domain.AllEvents())
	b := f.endpoint(domain.ModeLive, domain.AllEvents())
	now := Now()
	var evs []domain.Event
	for i := range 3 {
		evs = append(evs, f.appendEvent(NewEvent(t, f.ws, domain.ModeLive, domain.EventMessageSent,
			NewID(domain.PrefixMessage), now.Add(time.Duration(i)*time.Millisecond))))
	}
	claimed := claimAs(t, s, "w", now.Add(time.Second), a, b)
	if len(claimed) != 6 {
		t.Fatalf("claimed %d deliveries, want 6", len(claimed))
	}
	at := now.Add(2 * time.Second)
	var recs []ports.AttemptRecord
	for _, c := range claimed {
		recs = append(recs, attemptRecord("w", c, 200, at, domain.DeliverySucceeded, time.Time{}))
	}
	recs[4].Owner = "someone else"
	ruled := 0
	out, err := s.RecordAttempts(f.ctx, recs, func(r ports.AttemptRecord, e *domain.WebhookEndpoint) error {
		ruled++
		e.RecordAttempt(r.Status, r.At, time.Hour)
		return nil
	})
	if err != nil {
		t.Fatalf("RecordAttempts: %v", err)
	}
	if ruled < len(recs)-1 {
		t.Errorf("the endpoint rule ran %d times for %d records", ruled, len(recs))
	}
	endpoints := map[domain.WebhookEndpointID]domain.WebhookEndpoint{a.ID: a, b.ID: b}
	for i, r := range recs {
		if i == 4 {
			mustBe(t, "the lost lease's outcome", out[i].Err, ports.ErrDeliveryLeaseLost)
			continue
		}
		if out[i].Err != nil {
			t.Fatalf("outcome %d: %v", i, out[i].Err)
		}
		mustEqual(t, "endpoint after a success", endpoints[r.Endpoint], out[i].Endpoint)
	}
	for _, ev := range evs {
		var want []domain.EventDelivery
		for i, r := range recs {
			if r.Event != ev.ID {
				continue
			}
			if i == 4 {
				want = append(want, pendingAt(r.Endpoint, &ev.OccurredAt, ev.OccurredAt))
				continue
			}
			want = append(want, domain.EventDelivery{Endpoint: r.Endpoint, State: domain.DeliverySucceeded,
				Attempts: []domain.DeliveryAttempt{r.DeliveryAttempt}, UpdatedAt: at.Add(r.Duration)})
		}
		f.mustDeliveries(ev, want...)
	}
}
