package porttest

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// eventTests run in parallel, each in its own workspace: they append and
// read, and never sequence, claim or purge, which look across workspaces.
var eventTests = []storeTest{
	{"RoundTrip", testEventRoundTrip},
	{"NotFoundAcrossWorkspaceAndMode", testEventNotFound},
	{"Conflict", testEventConflict},
	{"TestEventNotByType", testEventTestNotByType},
	{"FanOut", testEventFanOut},
	{"FanOutInTx", testEventFanOutInTx},
	{"RollbackLeavesNoEvent", testEventRollback},
	{"AppendTo", testEventAppendTo},
}

// sequenceTests run one after another, before the parallel cases (see
// RunStore): SequenceEvents and PurgeEvents look across workspaces. Each
// case first sequences whatever is waiting, so that the seqs it then sees
// given are its own events'.
var sequenceTests = []storeTest{
	{"InAppendOrder", testSequenceInAppendOrder},
	{"Pull", testSequencePull},
	{"LateEventNotSkipped", testSequenceLateEventNotSkipped},
	{"ConcurrentSequencers", testSequenceConcurrently},
	{"Purge", testSequencePurge},
}

// appendEvents appends es in one call and returns copies of them.
func (f *fixture) appendEvents(es ...domain.Event) []domain.Event {
	f.t.Helper()
	in := make([]domain.Event, len(es))
	for i, e := range es {
		in[i] = cloneOutboxEvent(e)
	}
	if err := f.s.AppendEvents(f.ctx, in...); err != nil {
		f.t.Fatalf("AppendEvents: %v", err)
	}
	for i := range in {
		in[i].Body[0] = 'X' // the store keeps its own copy
	}
	out := make([]domain.Event, len(es))
	for i, e := range es {
		out[i] = cloneOutboxEvent(e)
	}
	return out
}

func (f *fixture) appendEvent(e domain.Event) domain.Event {
	f.t.Helper()
	return f.appendEvents(e)[0]
}

// getOutboxEvent reads one of the fixture's events, of any mode.
func (f *fixture) getOutboxEvent(id domain.EventID) domain.Event {
	f.t.Helper()
	e, err := f.s.GetEvent(f.ctx, f.ws, domain.KeyMode{}, id)
	if err != nil {
		f.t.Fatalf("GetEvent: %v", err)
	}
	return e
}

func (f *fixture) deliveries(ev domain.Event) []domain.EventDelivery {
	f.t.Helper()
	ds, err := f.s.ListDeliveries(f.ctx, ev.Workspace, ev.Mode, ev.ID)
	if err != nil {
		f.t.Fatalf("ListDeliveries: %v", err)
	}
	return ds
}

// mustDeliveries checks ev's deliveries, which want lists in any order,
// without their event.
func (f *fixture) mustDeliveries(ev domain.Event, want ...domain.EventDelivery) {
	f.t.Helper()
	for i := range want {
		want[i].Event = ev.ID
	}
	slices.SortFunc(want, func(a, b domain.EventDelivery) int { return cmp.Compare(a.Endpoint, b.Endpoint) })
	mustEqual(f.t, "deliveries of "+string(ev.ID), want, f.deliveries(ev))
}

// pendingAt is a pending delivery to endpoint, due at next (nil: without
// a due time), last changed at updated, without attempts.
func pendingAt(endpoint domain.WebhookEndpointID, next *time.Time, updated time.Time) domain.EventDelivery {
	return domain.EventDelivery{Endpoint: endpoint, State: domain.DeliveryPending, NextAttemptAt: clonePtr(next), UpdatedAt: updated}
}

// An event reads back exactly as written, body bytes included, and
// unsequenced.
func testEventRoundTrip(t *testing.T, s Store) {
	f := newFixture(t, s)
	ct := f.contact()
	for _, e := range []domain.Event{
		NewEvent(t, f.ws, domain.ModeTest, domain.EventContactOptedOut, "", Now()),
		NewEvent(t, f.ws, domain.ModeLive, domain.EventMessageRead, NewID(domain.PrefixMessage), Now()),
		NewEvent(t, f.ws, domain.ModeLive, domain.EventTemplateStatusChanged, string(ct.ID), Now()),
	} {
		want := f.appendEvent(e)
		got, err := s.GetEvent(f.ctx, f.ws, e.Mode, e.ID)
		if err != nil {
			t.Fatalf("GetEvent: %v", err)
		}
		mustEqual(t, "event read back", want, got)
	}
}

// Another workspace's event, or another mode's, is not found by any
// method that names one; the zero mode finds every mode's.
func testEventNotFound(t *testing.T, s Store) {
	f := newFixture(t, s)
	ev := f.appendEvent(NewEvent(t, f.ws, domain.ModeTest, domain.EventContactOptedIn, "", Now()))
	other := f.otherWorkspace()
	for _, c := range []struct {
		what string
		ws   domain.WorkspaceID
		mode domain.KeyMode
	}{
		{"another workspace", other, domain.ModeTest},
		{"another workspace, any mode", other, domain.KeyMode{}},
		{"another mode", f.ws, domain.ModeLive},
	} {
		_, err := s.GetEvent(f.ctx, c.ws, c.mode, ev.ID)
		mustBe(t, "GetEvent of "+c.what, err, domain.ErrEventNotFound)
		_, err = s.ListDeliveries(f.ctx, c.ws, c.mode, ev.ID)
		mustBe(t, "ListDeliveries of "+c.what, err, domain.ErrEventNotFound)
		_, err = s.Redeliver(f.ctx, c.ws, c.mode, ev.ID, "", Now())
		mustBe(t, "Redeliver of "+c.what, err, domain.ErrEventNotFound)
	}
	_, err := s.GetEvent(f.ctx, f.ws, domain.ModeTest, "evt_01m80000000000000000000000")
	mustBe(t, "GetEvent of an unknown id", err, domain.ErrEventNotFound)
	mustEqual(t, "GetEvent with the zero mode", ev, f.getOutboxEvent(ev.ID))
}

// An id stored already is a conflict, in another call or twice in one, and
// the call stores none of its events.
func testEventConflict(t *testing.T, s Store) {
	f := newFixture(t, s)
	e := f.endpoint(domain.ModeLive, domain.AllEvents())
	first := f.appendEvent(NewEvent(t, f.ws, domain.ModeLive, domain.EventContactOptedIn, "", Now()))
	fresh := NewEvent(t, f.ws, domain.ModeLive, domain.EventContactOptedOut, "", Now())
	again := NewEvent(t, f.ws, domain.ModeLive, domain.EventContactOptedOut, "", Now())
	again.ID = first.ID
	mustBe(t, "AppendEvents with a stored id", s.AppendEvents(f.ctx, fresh, again), domain.ErrConflict)
	twice := NewEvent(t, f.ws, domain.ModeLive, domain.EventContactOptedOut, "", Now())
	mustBe(t, "AppendEvents with one id twice", s.AppendEvents(f.ctx, twice, twice), domain.ErrConflict)
	for _, id := range []domain.EventID{fresh.ID, twice.ID} {
		_, err := s.GetEvent(f.ctx, f.ws, domain.ModeLive, id)
		mustBe(t, "GetEvent of an event of a refused call", err, domain.ErrEventNotFound)
	}
	mustEqual(t, "first event", first, f.getOutboxEvent(first.ID))
	f.mustDeliveries(first, pendingAt(e.ID, &first.OccurredAt, first.OccurredAt))
}

// webhook.test goes to one endpoint, by AppendEventTo: AppendEvents
// refuses it and stores nothing of the call.
func testEventTestNotByType(t *testing.T, s Store) {
	f := newFixture(t, s)
	f.endpoint(domain.ModeLive, domain.AllEvents())
	ok := NewEvent(t, f.ws, domain.ModeLive, domain.EventContactOptedIn, "", Now())
	test := NewEvent(t, f.ws, domain.ModeLive, domain.EventWebhookTest, "", Now())
	if err := s.AppendEvents(f.ctx, ok, test); err == nil {
		t.Fatal("AppendEvents of a webhook.test event succeeded")
	}
	for _, id := range []domain.EventID{ok.ID, test.ID} {
		_, err := s.GetEvent(f.ctx, f.ws, domain.ModeLive, id)
		mustBe(t, "GetEvent after the refused call", err, domain.ErrEventNotFound)
	}
}

// An event gets one pending delivery, due when it occurred, to each
// enabled endpoint of its workspace and mode whose subscription matches
// its type: every type, or a list naming it. Disabled endpoints, other
// types' subscribers, another mode's and another workspace's endpoints get
// none.
func testEventFanOut(t *testing.T, s Store) {
	f := newFixture(t, s)
	all := f.endpoint(domain.ModeLive, domain.AllEvents())
	listed := f.endpoint(domain.ModeLive, Subscribe(t, "message.sent", "message.delivered"))
	f.endpoint(domain.ModeLive, Subscribe(t, "message.read", "message.sent"))
	f.disabledEndpoint(domain.ModeLive, domain.AllEvents())
	f.endpoint(domain.ModeTest, domain.AllEvents())
	of := newFixture(t, s)
	of.endpoint(domain.ModeLive, domain.AllEvents())

	at := Now().Add(-time.Minute)
	ev := f.appendEvent(NewEvent(t, f.ws, domain.ModeLive, domain.EventMessageDelivered, NewID(domain.PrefixMessage), at))
	f.mustDeliveries(ev, pendingAt(all.ID, &at, at), pendingAt(listed.ID, &at, at))

	// The types of one call are matched each on its own.
	opted := NewEvent(t, f.ws, domain.ModeLive, domain.EventContactOptedOut, "", at)
	failed := NewEvent(t, f.ws, domain.ModeLive, domain.EventMessageFailed, NewID(domain.PrefixMessage), at)
	f.appendEvents(opted, failed)
	f.mustDeliveries(opted, pendingAt(all.ID, &at, at))
	f.mustDeliveries(failed, pendingAt(all.ID, &at, at))

	// An event of no subscribed type is stored without deliveries.
	test := f.appendEvent(NewEvent(t, f.ws, domain.ModeTest, domain.EventCampaignStatusChanged, "", at))
	if len(f.deliveries(test)) != 1 {
		t.Fatalf("the test mode's event has %d deliveries, want one, to the test-mode endpoint", len(f.deliveries(test)))
	}
	alone := newFixture(t, s)
	lone := alone.appendEvent(NewEvent(t, alone.ws, domain.ModeLive, domain.EventMessageSent, NewID(domain.PrefixMessage), at))
	alone.mustDeliveries(lone)
}

// Events appended through a transaction's repositories are stored with
// their deliveries when it commits.
func testEventFanOutInTx(t *testing.T, s Store) {
	f := newFixture(t, s)
	e := f.endpoint(domain.ModeLive, domain.AllEvents())
	ev := NewEvent(t, f.ws, domain.ModeLive, domain.EventMessageSent, NewID(domain.PrefixMessage), Now())
	err := s.WithinTx(f.ctx, func(ctx context.Context, r ports.Repos) error {
		return r.Events.AppendEvents(ctx, cloneOutboxEvent(ev))
	})
	if err != nil {
		t.Fatalf("WithinTx: %v", err)
	}
	mustEqual(t, "event appended in a transaction", ev, f.getOutboxEvent(ev.ID))
	f.mustDeliveries(ev, pendingAt(e.ID, &ev.OccurredAt, ev.OccurredAt))
}

// A change that rolls back leaves no event and no delivery: the contact
// and the event written with it are both gone.
func testEventRollback(t *testing.T, s Store) {
	f := newFixture(t, s)
	e := f.endpoint(domain.ModeTest, domain.AllEvents())
	ct := NewContact(t, f.ws)
	ev := NewEvent(t, f.ws, domain.ModeTest, domain.EventContactOptedOut, "", Now())
	to := NewEvent(t, f.ws, domain.ModeTest, domain.EventWebhookTest, "", Now())
	boom := errors.New("boom")
	err := s.WithinTx(f.ctx, func(ctx context.Context, r ports.Repos) error {
		if err := r.Contacts.CreateContact(ctx, ct); err != nil {
			return err
		}
		if err := r.Events.AppendEvents(ctx, cloneOutboxEvent(ev)); err != nil {
			return err
		}
		if err := r.Events.AppendEventTo(ctx, cloneOutboxEvent(to), e.ID); err != nil {
			return err
		}
		return boom
	})
	mustBe(t, "WithinTx", err, boom)
	_, err = s.GetContact(f.ctx, f.ws, ct.ID)
	mustBe(t, "GetContact after the rollback", err, domain.ErrContactNotFound)
	for _, id := range []domain.EventID{ev.ID, to.ID} {
		_, err = s.GetEvent(f.ctx, f.ws, domain.ModeTest, id)
		mustBe(t, "GetEvent after the rollback", err, domain.ErrEventNotFound)
		_, err = s.ListDeliveries(f.ctx, f.ws, domain.ModeTest, id)
		mustBe(t, "ListDeliveries after the rollback", err, domain.ErrEventNotFound)
	}
	// The ids are free: nothing of them was kept.
	f.appendEvent(ev)
	f.mustDeliveries(ev, pendingAt(e.ID, &ev.OccurredAt, ev.OccurredAt))
}

// AppendEventTo delivers to its endpoint only, whatever its subscription;
// a disabled endpoint's delivery waits without a due time. Another
// workspace's or mode's endpoint is not found, and nothing is stored.
func testEventAppendTo(t *testing.T, s Store) {
	f := newFixture(t, s)
	e := f.endpoint(domain.ModeLive, Subscribe(t, "message.sent"))
	f.endpoint(domain.ModeLive, domain.AllEvents())
	ev := NewEvent(t, f.ws, domain.ModeLive, domain.EventWebhookTest, "", Now())
	if err := s.AppendEventTo(f.ctx, cloneOutboxEvent(ev), e.ID); err != nil {
		t.Fatalf("AppendEventTo: %v", err)
	}
	mustEqual(t, "test event", ev, f.getOutboxEvent(ev.ID))
	f.mustDeliveries(ev, pendingAt(e.ID, &ev.OccurredAt, ev.OccurredAt))

	off := f.disabledEndpoint(domain.ModeLive, domain.AllEvents())
	ev2 := NewEvent(t, f.ws, domain.ModeLive, domain.EventWebhookTest, "", Now())
	if err := s.AppendEventTo(f.ctx, cloneOutboxEvent(ev2), off.ID); err != nil {
		t.Fatalf("AppendEventTo a disabled endpoint: %v", err)
	}
	f.mustDeliveries(ev2, pendingAt(off.ID, nil, ev2.OccurredAt))

	testMode := f.endpoint(domain.ModeTest, domain.AllEvents())
	of := newFixture(t, s)
	foreign := of.endpoint(domain.ModeLive, domain.AllEvents())
	for _, id := range []domain.WebhookEndpointID{testMode.ID, foreign.ID, "whe_01m80000000000000000000000"} {
		ev3 := NewEvent(t, f.ws, domain.ModeLive, domain.EventWebhookTest, "", Now())
		mustBe(t, "AppendEventTo another mode's or workspace's endpoint", s.AppendEventTo(f.ctx, ev3, id),
			domain.ErrWebhookEndpointNotFound)
		_, err := s.GetEvent(f.ctx, f.ws, domain.KeyMode{}, ev3.ID)
		mustBe(t, "GetEvent of the refused test event", err, domain.ErrEventNotFound)
	}
}

// sequenceAll sequences every event waiting, and returns how many.
func sequenceAll(t *testing.T, s Store) int {
	t.Helper()
	total := 0
	for {
		n, err := s.SequenceEvents(t.Context(), 500)
		if err != nil {
			t.Fatalf("SequenceEvents: %v", err)
		}
		if total += n; n == 0 {
			return total
		}
	}
}

// seqsOf reads the seq of each of the fixture's events.
func (f *fixture) seqsOf(es []domain.Event) []int64 {
	f.t.Helper()
	out := make([]int64, len(es))
	for i, e := range es {
		out[i] = f.getOutboxEvent(e.ID).Seq
	}
	return out
}

// mustConsecutive checks that seqs run from one more than after, one by
// one.
func mustConsecutive(t *testing.T, seqs []int64, after int64) {
	t.Helper()
	for i, s := range seqs {
		if s != after+1+int64(i) {
			t.Fatalf("seqs %v, want consecutive from %d", seqs, after+1)
		}
	}
}

// eventIDAt returns a fresh event id whose time part is at: ids made with
// an earlier time sort first, whenever they are appended.
func eventIDAt(at time.Time) domain.EventID {
	var entropy [10]byte
	copy(entropy[:], NewID("x")[10:])
	return domain.EventID(domain.NewID(domain.PrefixEvent, at, entropy))
}

// Events are sequenced in the order they were appended, not their ids'
// (ids carry several instances' clocks), with consecutive seqs, each
// after every seq given before; an event appended unsequenced reads back
// with Seq 0, and SequenceEvents does up to its limit at a time.
func testSequenceInAppendOrder(t *testing.T, s Store) {
	f := newFixture(t, s)
	sequenceAll(t, s)
	before := f.appendEvent(NewEvent(t, f.ws, domain.ModeLive, domain.EventContactOptedIn, "", Now()))
	if n := sequenceAll(t, s); n != 1 {
		t.Fatalf("sequenced %d events, want the one appended", n)
	}
	last := f.getOutboxEvent(before.ID).Seq
	if last <= 0 {
		t.Fatalf("the sequenced event has seq %d", last)
	}

	now := Now()
	var es []domain.Event
	for i := range 5 {
		// Each id sorts before the one appended before it.
		id := eventIDAt(now.Add(-time.Duration(i) * time.Second))
		es = append(es, newEventWithID(t, id, f.ws, domain.ModeLive, domain.EventMessageSent, NewID(domain.PrefixMessage), now))
	}
	f.appendEvents(es[:3]...)
	f.appendEvents(es[3])
	f.appendEvents(es[4])
	if seq := f.getOutboxEvent(es[0].ID).Seq; seq != 0 {
		t.Fatalf("an event not sequenced yet reads back with seq %d", seq)
	}
	n, err := s.SequenceEvents(f.ctx, 2)
	if err != nil || n != 2 {
		t.Fatalf("SequenceEvents(2) = %d, %v; want 2", n, err)
	}
	if seqs := f.seqsOf(es); seqs[2] != 0 || seqs[3] != 0 {
		t.Fatalf("after sequencing two events the seqs are %v, want the first two appended only", seqs)
	}
	if n, err := s.SequenceEvents(f.ctx, 0); err != nil || n != 0 {
		t.Fatalf("SequenceEvents(0) = %d, %v; want nothing done", n, err)
	}
	if n := sequenceAll(t, s); n != 3 {
		t.Fatalf("sequenced %d more events, want 3", n)
	}
	mustConsecutive(t, f.seqsOf(es), last)
}

// The pull lists a workspace's sequenced events of one mode after a
// cursor, by seq, as many as the limit, of the types asked for; the zero
// mode lists both modes'. Unsequenced events are not listed.
func testSequencePull(t *testing.T, s Store) {
	f := newFixture(t, s)
	sequenceAll(t, s)
	now := Now()
	msg := NewID(domain.PrefixMessage)
	live := f.appendEvents(
		NewEvent(t, f.ws, domain.ModeLive, domain.EventMessageSent, msg, now),
		NewEvent(t, f.ws, domain.ModeLive, domain.EventMessageDelivered, msg, now),
		NewEvent(t, f.ws, domain.ModeLive, domain.EventContactOptedOut, "", now),
	)
	test := f.appendEvent(NewEvent(t, f.ws, domain.ModeTest, domain.EventMessageSent, NewID(domain.PrefixMessage), now))
	live = append(live, f.appendEvent(NewEvent(t, f.ws, domain.ModeLive, domain.EventMessageRead, msg, now)))
	of := newFixture(t, s)
	of.appendEvent(NewEvent(t, of.ws, domain.ModeLive, domain.EventMessageSent, NewID(domain.PrefixMessage), now))

	list := func(mode domain.KeyMode, filter ports.EventFilter) []domain.EventID {
		t.Helper()
		es, err := s.ListEvents(f.ctx, f.ws, mode, filter)
		if err != nil {
			t.Fatalf("ListEvents: %v", err)
		}
		ids := make([]domain.EventID, len(es))
		for i, e := range es {
			ids[i] = e.ID
		}
		return ids
	}
	if got := list(domain.ModeLive, ports.EventFilter{}); len(got) != 0 {
		t.Fatalf("before sequencing the pull lists %v, want nothing", got)
	}
	sequenceAll(t, s)
	seqs := f.seqsOf(live)
	mustEqual(t, "live events", []domain.EventID{live[0].ID, live[1].ID, live[2].ID, live[3].ID}, list(domain.ModeLive, ports.EventFilter{}))
	mustEqual(t, "the test mode's events", []domain.EventID{test.ID}, list(domain.ModeTest, ports.EventFilter{}))
	mustEqual(t, "every mode's events", []domain.EventID{live[0].ID, live[1].ID, live[2].ID, test.ID, live[3].ID},
		list(domain.KeyMode{}, ports.EventFilter{}))
	mustEqual(t, "a page of two", []domain.EventID{live[0].ID, live[1].ID}, list(domain.ModeLive, ports.EventFilter{Limit: 2}))
	mustEqual(t, "the page after it", []domain.EventID{live[2].ID, live[3].ID},
		list(domain.ModeLive, ports.EventFilter{AfterSeq: seqs[1], Limit: 2}))
	mustEqual(t, "after the last", []domain.EventID{}, list(domain.ModeLive, ports.EventFilter{AfterSeq: seqs[3]}))
	mustEqual(t, "message.read and message.sent", []domain.EventID{live[0].ID, live[3].ID},
		list(domain.ModeLive, ports.EventFilter{Types: []domain.EventType{domain.EventMessageRead, domain.EventMessageSent}}))
	got, err := s.ListEvents(f.ctx, f.ws, domain.ModeLive, ports.EventFilter{AfterSeq: seqs[2]})
	if err != nil {
		t.Fatalf("ListEvents: %v", err)
	}
	want := live[3]
	want.Seq = seqs[3]
	mustEqual(t, "listed event", []domain.Event{want}, got)
}

// A reader that paged to the end never misses an event listed after its
// cursor later, even one whose id sorts before what it read (written by
// an instance whose clock is behind, or by a transaction that committed
// late): the event is sequenced after everything read.
func testSequenceLateEventNotSkipped(t *testing.T, s Store) {
	f := newFixture(t, s)
	sequenceAll(t, s)
	now := Now()
	read := f.appendEvent(NewEvent(t, f.ws, domain.ModeLive, domain.EventContactOptedIn, "", now))
	sequenceAll(t, s)
	page, err := s.ListEvents(f.ctx, f.ws, domain.ModeLive, ports.EventFilter{})
	if err != nil || len(page) != 1 || page[0].ID != read.ID {
		t.Fatalf("first page: %v, %v; want the one event", page, err)
	}
	cursor := page[0].Seq
	late := f.appendEvent(newEventWithID(t, eventIDAt(now.Add(-time.Minute)), f.ws, domain.ModeLive,
		domain.EventContactOptedOut, "", now.Add(-time.Minute)))
	if late.ID >= read.ID {
		t.Fatalf("the late event's id %s does not sort before %s", late.ID, read.ID)
	}
	sequenceAll(t, s)
	next, err := s.ListEvents(f.ctx, f.ws, domain.ModeLive, ports.EventFilter{AfterSeq: cursor})
	if err != nil || len(next) != 1 || next[0].ID != late.ID {
		t.Fatalf("the page after the cursor: %v, %v; want the late event", next, err)
	}
}

// Sequencers running at once, while events are appended, give every event
// one seq: no seq twice, none skipped, and each appender's events in the
// order it appended them.
func testSequenceConcurrently(t *testing.T, s Store) {
	f := newFixture(t, s)
	sequenceAll(t, s)
	last := f.appendEvent(NewEvent(t, f.ws, domain.ModeLive, domain.EventContactOptedIn, "", Now()))
	sequenceAll(t, s)
	after := f.getOutboxEvent(last.ID).Seq

	const appenders, each = 4, 15
	appended := make([][]domain.Event, appenders)
	var appending, sequencing sync.WaitGroup
	done := make(chan struct{})
	errs := make(chan error, appenders+2)
	for a := range appenders {
		appending.Go(func() {
			for range each {
				e := NewEvent(t, f.ws, domain.ModeLive, domain.EventContactOptedOut, "", Now())
				if err := s.AppendEvents(f.ctx, e); err != nil {
					errs <- err
					return
				}
				appended[a] = append(appended[a], e)
			}
		})
	}
	for range 2 {
		sequencing.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				if _, err := s.SequenceEvents(f.ctx, 7); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	appending.Wait()
	close(done)
	sequencing.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("appending or sequencing: %v", err)
	}
	sequenceAll(t, s)
	var all []int64
	for a, es := range appended {
		seqs := f.seqsOf(es)
		if !slices.IsSorted(seqs) {
			t.Errorf("appender %d's events have seqs %v, not in the order appended", a, seqs)
		}
		all = append(all, seqs...)
	}
	slices.Sort(all)
	mustConsecutive(t, all, after)
}

// PurgeEvents removes the events that occurred before a time, oldest
// first, up to its limit, with their deliveries and attempts, and leaves
// later events and the seqs to come alone.
func testSequencePurge(t *testing.T, s Store) {
	f := newFixture(t, s)
	sequenceAll(t, s)
	e := f.endpoint(domain.ModeLive, domain.AllEvents())
	// Decades ago: no other case has events this old.
	base := time.Date(1984, 3, 1, 0, 0, 0, 0, time.UTC)
	var old []domain.Event
	for i := range 3 {
		old = append(old, f.appendEvent(NewEvent(t, f.ws, domain.ModeLive, domain.EventContactOptedOut, "", base.Add(time.Duration(i)*time.Hour))))
	}
	kept := f.appendEvent(NewEvent(t, f.ws, domain.ModeLive, domain.EventContactOptedOut, "", base.Add(10*time.Hour)))
	sequenceAll(t, s)
	lastSeq := f.getOutboxEvent(kept.ID).Seq
	// The oldest was attempted once.
	c := claimOne(t, s, claimAt("purge", base.Add(time.Minute)), old[0].ID, e.ID, 1)
	recordAttempt(t, s, "purge", c, 200, base.Add(time.Minute), domain.DeliverySucceeded, time.Time{})

	cut := base.Add(5 * time.Hour)
	if n, err := s.PurgeEvents(f.ctx, cut, 2); err != nil || n != 2 {
		t.Fatalf("PurgeEvents(limit 2) = %d, %v; want 2", n, err)
	}
	for _, ev := range old[:2] {
		_, err := s.GetEvent(f.ctx, f.ws, domain.ModeLive, ev.ID)
		mustBe(t, "GetEvent of a purged event", err, domain.ErrEventNotFound)
	}
	f.getOutboxEvent(old[2].ID)
	if n, err := s.PurgeEvents(f.ctx, cut, 2); err != nil || n != 1 {
		t.Fatalf("PurgeEvents again = %d, %v; want the one left", n, err)
	}
	if n, err := s.PurgeEvents(f.ctx, cut, 2); err != nil || n != 0 {
		t.Fatalf("PurgeEvents with nothing left = %d, %v", n, err)
	}
	attempts, err := s.ListEndpointAttempts(f.ctx, f.ws, domain.ModeLive, e.ID, 10)
	if err != nil || len(attempts) != 0 {
		t.Fatalf("attempts after the purge: %v, %v; want none", attempts, err)
	}
	f.mustDeliveries(kept, pendingAt(e.ID, &kept.OccurredAt, kept.OccurredAt))
	if n, err := s.PurgeEvents(f.ctx, cut, 0); err != nil || n != 0 {
		t.Fatalf("PurgeEvents(limit 0) = %d, %v", n, err)
	}
	next := f.appendEvent(NewEvent(t, f.ws, domain.ModeLive, domain.EventContactOptedIn, "", Now()))
	sequenceAll(t, s)
	if seq := f.getOutboxEvent(next.ID).Seq; seq <= lastSeq {
		t.Fatalf("an event sequenced after the purge has seq %d, not after %d", seq, lastSeq)
	}
}
