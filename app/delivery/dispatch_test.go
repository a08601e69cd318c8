package delivery_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/heraldhq/herald/adapters/sandbox"
	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/app/delivery"
	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/ports/portsmock"
)

// notifyingSink applies status events through the real use case, then
// reports each on a channel, so tests wait on a signal instead of sleeping.
type notifyingSink struct {
	rec    *delivery.RecordStatusEventHandler
	events chan ports.StatusEvent
}

func newNotifyingSink(f *fixture) notifyingSink {
	return notifyingSink{rec: delivery.NewRecordStatusEventHandler(f.st, f.clock, f.events, usecase.NewObserver(nil)), events: make(chan ports.StatusEvent, 64)}
}

func (s notifyingSink) RecordStatus(ctx context.Context, e ports.StatusEvent) error {
	err := s.rec.RecordStatus(ctx, e)
	s.events <- e
	return err
}

func (f *fixture) dispatcher(queue ports.MessageQueue, tx ports.Transactor, live, test ports.WhatsAppSender, cfg delivery.Config) *delivery.Dispatcher {
	return delivery.NewDispatcher(queue, tx, f.st, f.st, delivery.Senders{Live: live, Sandbox: test}, f.clock, f.ids, f.events, nil, cfg, usecase.NewObserver(nil))
}

// dispatchOnce claims one batch, starts its sends and waits until every
// outcome is recorded.
func dispatchOnce(t *testing.T, d *delivery.Dispatcher) int {
	t.Helper()
	n, err := d.DispatchOnce(context.Background(), make(chan struct{}, 4))
	if err != nil {
		t.Fatal(err)
	}
	d.Wait()
	return n
}

// TestSandboxDeliversThroughTheStatusPipeline accepts test-mode messages,
// dispatches them to the sandbox and waits for the sandbox's status events
// to move each to its final status, magic numbers included.
func TestSandboxDeliversThroughTheStatusPipeline(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	sink := newNotifyingSink(f)
	sb := sandbox.New(sink, f.clock, sandbox.Config{}, nil)
	t.Cleanup(sb.Close)
	// A live send would panic: every message here is test mode.
	d := f.dispatcher(f.st, f.st, &portsmock.WhatsAppSenderMock{}, sb, delivery.Config{})

	undeliverable := &domain.Failure{Code: sandbox.UndeliverableCode, Title: "Message undeliverable"}
	q, s, sent, dl, rd, fl := domain.StatusQueued, domain.StatusSending, domain.StatusSent, domain.StatusDelivered, domain.StatusRead, domain.StatusFailed
	want := map[string]struct {
		status  domain.MessageStatus
		history []domain.MessageStatus
		failure *domain.Failure
	}{
		"+14155552671": {rd, []domain.MessageStatus{q, s, sent, dl, rd}, nil},
		"+14155550001": {fl, []domain.MessageStatus{q, s, fl}, undeliverable},
		"+14155550002": {sent, []domain.MessageStatus{q, s, sent}, nil},
		"+14155550003": {dl, []domain.MessageStatus{q, s, sent, dl}, nil},
	}
	accepted := map[string]domain.Message{}
	for p := range want {
		accepted[p] = f.send(t, f.principal, p)
	}
	if n := dispatchOnce(t, d); n != len(want) {
		t.Fatalf("claimed %d messages, want %d", n, len(want))
	}

	final := func() bool {
		for p, w := range want {
			if f.message(t, accepted[p].ID).Status != w.status {
				return false
			}
		}
		return true
	}
	timeout := time.After(10 * time.Second)
	for !final() {
		select {
		case <-sink.events:
		case <-timeout:
			t.Fatal("the messages did not reach their final statuses")
		}
	}
	sb.Close() // no event is pending or in flight after this

	for p, w := range want {
		got := f.message(t, accepted[p].ID)
		if !strings.HasPrefix(got.ProviderID, "wamid.") {
			t.Errorf("%s: provider id %q, want a wamid", p, got.ProviderID)
		}
		m := accepted[p]
		m.Status, m.History, m.Failure, m.ProviderID = w.status, history(t0, w.history...), w.failure, got.ProviderID
		m.WaID = strings.TrimPrefix(p, "+") // the sandbox answers like Meta
		if diff := cmp.Diff(m, got, cmpDomain); diff != "" {
			t.Errorf("%s (-want +got):\n%s", p, diff)
		}
	}

	// The thread and the statistics follow the messages.
	readMsg := accepted["+14155552671"]
	page, err := app.NewListConversationHandler(f.st, f.st, nil).Handle(ctx, app.ListConversation{Principal: f.principal, ContactID: string(readMsg.ContactID)})
	if err != nil || len(page.Entries) != 1 || page.Entries[0].Status != domain.StatusRead {
		t.Errorf("the thread of the read message: %+v (%v), want one entry with status read", page.Entries, err)
	}
	stats, err := app.NewGetCampaignStatsHandler(f.st, f.st, f.clock, nil).Handle(ctx, app.GetCampaignStats{Principal: f.principal, CampaignID: string(f.campaign.ID)})
	if err != nil {
		t.Fatal(err)
	}
	wantStats := domain.NewCampaignStats(map[domain.MessageStatus]int{rd: 1, fl: 1, sent: 1, dl: 1}, map[domain.FailureKey]int{{Code: 131026}: 1})
	if diff := cmp.Diff(wantStats, stats.Stats, cmpDomain); diff != "" || stats.Stats.DeliveryRate != 0.5 || stats.Stats.ReadRate != 0.5 {
		t.Errorf("campaign stats (-want +got):\n%s", diff)
	}

	if n := dispatchOnce(t, d); n != 0 {
		t.Fatalf("%d sent messages were claimed again", n)
	}
}

// releaseSpy is a transactor over the store whose queue records every
// release the dispatcher makes.
type releaseSpy struct {
	*portsmock.TransactorMock
	mu       sync.Mutex
	releases []release
}

type release struct {
	id      domain.MessageID
	attempt int
	retryAt *time.Time
}

func newReleaseSpy(f *fixture) *releaseSpy {
	s := &releaseSpy{}
	s.TransactorMock = &portsmock.TransactorMock{WithinTxFunc: func(ctx context.Context, fn func(context.Context, ports.Repos) error) error {
		return f.st.WithinTx(ctx, func(ctx context.Context, r ports.Repos) error {
			queue := r.Queue
			r.Queue = &portsmock.MessageQueueMock{ReleaseMessageFunc: func(ctx context.Context, id domain.MessageID, owner string, attempt int, retryAt *time.Time) error {
				s.mu.Lock()
				s.releases = append(s.releases, release{id, attempt, retryAt})
				s.mu.Unlock()
				return queue.ReleaseMessage(ctx, id, owner, attempt, retryAt)
			}}
			return fn(ctx, r)
		})
	}}
	return s
}

func (s *releaseSpy) all() []release {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]release(nil), s.releases...)
}

// senderMock answers each send with the next of results, safely from
// concurrent sends, and records what it was asked to send.
type senderMock struct {
	*portsmock.WhatsAppSenderMock
}

func newSenderMock(results ...error) senderMock {
	var mu sync.Mutex
	n := 0
	return senderMock{&portsmock.WhatsAppSenderMock{SendFunc: func(ctx context.Context, m ports.OutboundMessage) (ports.SendResult, error) {
		mu.Lock()
		defer mu.Unlock()
		var err error
		if n < len(results) {
			err = results[n]
		}
		n++
		if err != nil {
			return ports.SendResult{}, err
		}
		return ports.SendResult{ProviderID: fmt.Sprintf("wamid.%d", n), WaID: strings.TrimPrefix(m.To.String(), "+")}, nil
	}}}
}

func TestRetryableFailureIsDueAgainLater(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	id := f.send(t, f.principal, phone).ID
	sender := newSenderMock(&ports.SendError{Class: ports.ClassRetryable, Code: 131000, Title: "Something went wrong"})
	spy := newReleaseSpy(f)
	d := f.dispatcher(f.st, spy, sender, sender, delivery.Config{})

	if n := dispatchOnce(t, d); n != 1 {
		t.Fatalf("claimed %d, want 1", n)
	}
	rel := spy.all()
	if len(rel) != 1 || rel[0].id != id || rel[0].attempt != 1 || rel[0].retryAt == nil {
		t.Fatalf("releases %+v, want attempt 1 released with a retry time", rel)
	}
	retryAt := *rel[0].retryAt
	if retryAt.Before(t0.Add(time.Second)) || !retryAt.Before(t0.Add(2*time.Second)) {
		t.Fatalf("first retry at %v, want within [1 s, 2 s) of %v", retryAt, t0)
	}
	m := f.message(t, id)
	if m.Status != domain.StatusSending || m.Failure != nil || m.ProviderID != "" {
		t.Fatalf("after a retryable failure: %s %+v %q, want still sending", m.Status, m.Failure, m.ProviderID)
	}

	if n := dispatchOnce(t, d); n != 0 {
		t.Fatal("a failed send was claimed again at once, without backoff")
	}
	f.clock.Advance(retryAt.Sub(t0))
	if n := dispatchOnce(t, d); n != 1 {
		t.Fatalf("at the retry time: claimed %d, want 1", n)
	}
	rel = spy.all()
	if len(rel) != 2 || rel[1].attempt != 2 || rel[1].retryAt != nil {
		t.Fatalf("releases %+v, want attempt 2 released for good", rel)
	}
	if n := len(sender.SendCalls()); n != 2 {
		t.Fatalf("%d sends, want 2", n)
	}
	m = f.message(t, id)
	if m.ProviderID != "wamid.2" || m.Status != domain.StatusSending || m.Failure != nil {
		t.Fatalf("after the retry: %s %q %+v", m.Status, m.ProviderID, m.Failure)
	}
}

// TestSendOutcomes: how each kind of send failure is recorded.
func TestSendOutcomes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name       string
		cfg        delivery.Config
		age        time.Duration // how long after acceptance the send happens
		err        error
		retryFrom  time.Duration // retry window after the send, when retried
		retryUntil time.Duration
		failure    *domain.Failure // when the message fails
	}{
		{name: "retryable", err: &ports.SendError{Class: ports.ClassRetryable, Code: 131000},
			retryFrom: time.Second, retryUntil: 2 * time.Second},
		{name: "retryable with Meta's hint", err: &ports.SendError{Class: ports.ClassRetryable, RetryAfter: 5 * time.Minute},
			retryFrom: 5 * time.Minute, retryUntil: 5*time.Minute + 1},
		{name: "hint beyond the cap", err: &ports.SendError{Class: ports.ClassRetryable, RetryAfter: time.Hour},
			retryFrom: 10 * time.Minute, retryUntil: 10*time.Minute + 1},
		{name: "pair limited", err: &ports.SendError{Class: ports.ClassPairLimited, Code: 131056},
			retryFrom: time.Second, retryUntil: time.Second + 1},
		{name: "throttled in test mode", err: &ports.SendError{Class: ports.ClassThrottled, Code: 130429},
			retryFrom: time.Second, retryUntil: 2 * time.Second},
		{name: "unclassified error", err: errors.New("connection reset"),
			retryFrom: time.Second, retryUntil: 2 * time.Second},
		{name: "permanent", err: &ports.SendError{Class: ports.ClassPermanent, Code: 132001, Title: "Template name does not exist in the translation"},
			failure: &domain.Failure{Code: 132001, Title: "Template name does not exist in the translation"}},
		{name: "out of attempts", cfg: delivery.Config{MaxAttempts: 1}, err: &ports.SendError{Class: ports.ClassRetryable, Code: 131000, Title: "Something went wrong"},
			failure: &domain.Failure{Code: 131000, Title: "Something went wrong"}},
		{name: "out of attempts without a title", cfg: delivery.Config{MaxAttempts: 1}, err: &ports.SendError{Class: ports.ClassRetryable, Err: errors.New("timeout")},
			failure: &domain.Failure{Title: "gave up after 1 attempts: send failed (retryable): timeout"}},
		{name: "too old", age: 25 * time.Hour, err: &ports.SendError{Class: ports.ClassRetryable, Code: 131000, Title: "Something went wrong"},
			failure: &domain.Failure{Code: 131000, Title: "Something went wrong"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			id := f.send(t, f.principal, phone).ID
			f.clock.Advance(c.age)
			sendAt := f.clock.Now()
			sender := newSenderMock(c.err)
			spy := newReleaseSpy(f)
			d := f.dispatcher(f.st, spy, sender, sender, c.cfg)
			if n := dispatchOnce(t, d); n != 1 {
				t.Fatalf("claimed %d, want 1", n)
			}
			rel := spy.all()
			if len(rel) != 1 || rel[0].attempt != 1 {
				t.Fatalf("releases %+v, want one for attempt 1", rel)
			}
			m := f.message(t, id)
			if c.failure != nil {
				if rel[0].retryAt != nil {
					t.Fatalf("a failed message is due again at %v", rel[0].retryAt)
				}
				if m.Status != domain.StatusFailed || m.History[len(m.History)-1].Status != domain.StatusFailed {
					t.Fatalf("status %s, history %v, want failed", m.Status, m.History)
				}
				if diff := cmp.Diff(c.failure, m.Failure); diff != "" {
					t.Fatalf("failure (-want +got):\n%s", diff)
				}
				f.clock.Advance(time.Hour)
				if n := dispatchOnce(t, d); n != 0 {
					t.Fatal("a failed message was claimed again")
				}
				return
			}
			if rel[0].retryAt == nil {
				t.Fatal("a retryable failure was released for good")
			}
			if wait := rel[0].retryAt.Sub(sendAt); wait < c.retryFrom || wait >= c.retryUntil {
				t.Fatalf("retry after %v, want within [%v, %v)", wait, c.retryFrom, c.retryUntil)
			}
			if m.Status != domain.StatusSending || m.Failure != nil {
				t.Fatalf("a retried message is %s with failure %+v", m.Status, m.Failure)
			}
			// A claim at the retry time is the second attempt.
			claimed, err := f.st.ClaimMessages(context.Background(), ports.Claim{Owner: "other", Now: *rel[0].retryAt,
				LeaseUntil: rel[0].retryAt.Add(time.Minute), Limit: 10})
			if err != nil || len(claimed) != 1 || claimed[0].Attempt != 2 {
				t.Fatalf("claim at the retry time: %+v (%v), want attempt 2", claimed, err)
			}
		})
	}
}

func TestLiveAndTestKeysUseTheirSenders(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	live, test := newSenderMock(), newSenderMock()
	d := f.dispatcher(f.st, f.st, live, test, delivery.Config{})
	testMsg := f.send(t, f.principal, "+14155552671")
	livePrincipal := f.principal
	livePrincipal.Mode = domain.ModeLive
	liveMsg := f.send(t, livePrincipal, "+14155552672")
	if n := dispatchOnce(t, d); n != 2 {
		t.Fatalf("claimed %d, want 2", n)
	}
	outbound := func(m domain.Message) []ports.OutboundMessage {
		return []ports.OutboundMessage{{ID: m.ID, Workspace: m.Workspace, Mode: m.Mode, To: m.Phone, TemplateName: "welcome", Language: "en_US",
			HeaderFormat: domain.HeaderNone, Variables: []string{"Ana", "1234"}, Values: m.Values}}
	}
	sentBy := func(s senderMock) []ports.OutboundMessage {
		var out []ports.OutboundMessage
		for _, c := range s.SendCalls() {
			out = append(out, c.M)
		}
		return out
	}
	if diff := cmp.Diff(outbound(liveMsg), sentBy(live), cmpDomain); diff != "" {
		t.Errorf("live sender (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(outbound(testMsg), sentBy(test), cmpDomain); diff != "" {
		t.Errorf("sandbox (-want +got):\n%s", diff)
	}
	for _, m := range []domain.Message{liveMsg, testMsg} {
		if got := f.message(t, m.ID); got.ProviderID == "" {
			t.Errorf("%s: the provider id was not recorded", m.ID)
		}
	}
}

// TestLostLeaseRecordsNothing: when a send outlives its lease and another
// dispatcher claims the message, the first dispatcher's outcome is dropped.
func TestLostLeaseRecordsNothing(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	id := f.send(t, f.principal, phone).ID
	sender := &portsmock.WhatsAppSenderMock{SendFunc: func(ctx context.Context, m ports.OutboundMessage) (ports.SendResult, error) {
		// While this send hangs, its lease runs out and another instance
		// claims the message.
		later := f.clock.Now().Add(time.Hour)
		got, err := f.st.ClaimMessages(ctx, ports.Claim{Owner: "other", Now: later, LeaseUntil: later.Add(time.Minute), Limit: 100})
		if err != nil || len(got) != 1 {
			t.Errorf("takeover claim: %v %d", err, len(got))
		}
		return ports.SendResult{}, &ports.SendError{Class: ports.ClassPermanent, Code: 131026, Title: "Message undeliverable"}
	}}
	dispatchOnce(t, f.dispatcher(f.st, f.st, sender, sender, delivery.Config{}))
	m := f.message(t, id)
	if m.Status != domain.StatusSending || m.Failure != nil {
		t.Fatalf("a dispatcher that lost its lease recorded %s %+v", m.Status, m.Failure)
	}
	if err := f.st.ReleaseMessage(context.Background(), id, "other", 2, nil); err != nil {
		t.Fatalf("the new holder's lease was disturbed: %v", err)
	}
}

// renewSpy passes lease renewals to the store and reports them.
type renewSpy struct {
	ports.MessageQueue
	renewed chan []domain.MessageID
}

func (r renewSpy) RenewLeases(ctx context.Context, owner string, ids []domain.MessageID, until time.Time) error {
	err := r.MessageQueue.RenewLeases(ctx, owner, ids, until)
	select {
	case r.renewed <- ids:
	default:
	}
	return err
}

// TestLeasesAreRenewedWhileSending: a send that takes longer than a third of
// the lease has its lease renewed while it runs.
func TestLeasesAreRenewedWhileSending(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	id := f.send(t, f.principal, phone).ID
	spy := renewSpy{MessageQueue: f.st, renewed: make(chan []domain.MessageID, 1)}
	var renewedIDs []domain.MessageID
	returned := make(chan struct{})
	sender := &portsmock.WhatsAppSenderMock{SendFunc: func(ctx context.Context, m ports.OutboundMessage) (ports.SendResult, error) {
		defer close(returned)
		select {
		case renewedIDs = <-spy.renewed: // the send lasts until a renewal happened
		case <-time.After(10 * time.Second):
		}
		return ports.SendResult{ProviderID: "wamid.1"}, nil
	}}
	d := f.dispatcher(spy, f.st, sender, sender, delivery.Config{LeaseDuration: 150 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { d.Run(ctx); close(done) }()
	<-returned
	cancel()
	<-done // Run returns once the send in flight is recorded
	if len(renewedIDs) != 1 || renewedIDs[0] != id {
		t.Fatalf("renewed %v while sending %s", renewedIDs, id)
	}
	if m := f.message(t, id); m.ProviderID != "wamid.1" {
		t.Fatalf("the outcome of the renewed send was not recorded: %q", m.ProviderID)
	}
}

// TestLeasesAreRenewedInMessageOrder: a renewal locks its messages in id
// order, the order in which outcome and webhook groups lock theirs, so a
// renewal and a group wait for each other instead of deadlocking on
// PostgreSQL (the pipeline benchmark saw 40P01 when renewals followed the
// order of a map).
func TestLeasesAreRenewedInMessageOrder(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	const n = 24
	for i := range n {
		f.send(t, f.principal, fmt.Sprintf("+1415555%04d", 7000+i))
	}
	spy := renewSpy{MessageQueue: f.st, renewed: make(chan []domain.MessageID, 1)}
	gate := make(chan struct{})
	sender := &portsmock.WhatsAppSenderMock{SendFunc: func(ctx context.Context, m ports.OutboundMessage) (ports.SendResult, error) {
		<-gate
		return ports.SendResult{ProviderID: "wamid." + string(m.ID)}, nil
	}}
	d := f.dispatcher(spy, f.st, sender, sender, delivery.Config{LeaseDuration: 150 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { d.Run(ctx); close(done) }()
	defer func() { close(gate); cancel(); <-done }()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case ids := <-spy.renewed:
			if len(ids) < n {
				continue // a renewal before every send had started
			}
			if !slices.IsSorted(ids) {
				t.Fatalf("renewed %v, not in id order", ids)
			}
			return
		case <-deadline:
			t.Fatal("no renewal of every message in flight within 10 s")
		}
	}
}

// claimSpy passes claims to the store and reports how many it returned.
type claimSpy struct {
	ports.MessageQueue
	claims chan int
}

func (c claimSpy) ClaimMessages(ctx context.Context, cl ports.Claim) ([]ports.Claimed, error) {
	got, err := c.MessageQueue.ClaimMessages(ctx, cl)
	c.claims <- len(got)
	return got, err
}

// TestRunWakesOnSignal: once Run has found nothing to do, it picks up a new
// message as soon as the send handler signals the Wakeup, long before its
// poll interval.
func TestRunWakesOnSignal(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sent := make(chan ports.OutboundMessage, 1)
	sender := &portsmock.WhatsAppSenderMock{SendFunc: func(ctx context.Context, m ports.OutboundMessage) (ports.SendResult, error) {
		sent <- m
		return ports.SendResult{ProviderID: "wamid.1"}, nil
	}}
	wake := delivery.NewWakeup()
	spy := claimSpy{MessageQueue: f.st, claims: make(chan int, 16)}
	d := delivery.NewDispatcher(spy, f.st, f.st, f.st, delivery.Senders{Live: sender, Sandbox: sender}, f.clock, f.ids, nil, wake,
		delivery.Config{DispatchPoll: time.Hour}, usecase.NewObserver(nil))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { d.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	timeout := time.After(10 * time.Second)
	select {
	case n := <-spy.claims:
		if n != 0 {
			t.Fatalf("the first claim found %d messages in an empty queue", n)
		}
	case <-timeout:
		t.Fatal("Run never looked for messages")
	}
	// Run now waits for the Wakeup or its hour-long poll.
	res, err := f.sender(f.st, wake).Handle(ctx, app.SendCampaignMessage{Principal: f.principal, PhoneNumber: phone,
		CampaignID: string(f.campaign.ID), Variables: []string{"Ana", "1234"}})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case m := <-sent:
		if m.ID != res.Message.ID {
			t.Fatalf("sent %s, want %s", m.ID, res.Message.ID)
		}
	case <-timeout:
		t.Fatal("the dispatcher did not pick up the accepted message")
	}
}

// TestRefusedCredentialsPauseLiveSends: after Meta refuses the token, live
// messages are held back without calling Meta (no retry storm) and the
// dispatcher reports it; test-mode messages go on.
func TestRefusedCredentialsPauseLiveSends(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	live := newSenderMock(&ports.SendError{Class: ports.ClassAuth, Code: 190, Title: "Error validating access token"})
	test := newSenderMock()
	d := f.dispatcher(f.st, f.st, live, test, delivery.Config{})
	livePrincipal := f.principal
	livePrincipal.Mode = domain.ModeLive
	for i := range 3 {
		f.send(t, livePrincipal, fmt.Sprintf("+1415555267%d", i))
	}
	f.send(t, f.principal, "+14155552679")
	if _, err := d.DispatchOnce(context.Background(), make(chan struct{}, 1)); err != nil {
		t.Fatal(err)
	}
	d.Wait()
	if l, s := len(live.SendCalls()), len(test.SendCalls()); l != 1 || s != 1 {
		t.Fatalf("Meta called %d times, sandbox %d; want Meta once (then paused) and the test message sent", l, s)
	}
	if d.LiveError() == nil {
		t.Fatal("the dispatcher does not report the paused live sends")
	}
	f.clock.Advance(2 * time.Minute)
	if d.LiveError() != nil {
		t.Fatal("live sends stay paused after the pause")
	}
}

func TestRecordStatusEvent(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	rec := delivery.NewRecordStatusEventHandler(f.st, f.clock, nil, usecase.NewObserver(nil))
	id := f.send(t, f.principal, phone).ID
	// Meta echoes our id: the provider id is learned from the event.
	if err := rec.RecordStatus(ctx, ports.StatusEvent{MessageID: id, ProviderID: "wamid.A", Status: domain.StatusSent, At: t0.Add(time.Second)}); err != nil {
		t.Fatal(err)
	}
	// Later events may carry only the wamid.
	if err := rec.RecordStatus(ctx, ports.StatusEvent{ProviderID: "wamid.A", Status: domain.StatusRead, At: t0.Add(3 * time.Second)}); err != nil {
		t.Fatal(err)
	}
	// A late delivered and a repeated read.
	for _, e := range []ports.StatusEvent{
		{ProviderID: "wamid.A", Status: domain.StatusDelivered, At: t0.Add(2 * time.Second)},
		{MessageID: id, Status: domain.StatusRead, At: t0.Add(9 * time.Second)},
	} {
		if err := rec.RecordStatus(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	m := f.message(t, id)
	want := []domain.StatusChange{{Status: domain.StatusQueued, At: t0}, {Status: domain.StatusSent, At: t0.Add(time.Second)},
		{Status: domain.StatusDelivered, At: t0.Add(2 * time.Second)}, {Status: domain.StatusRead, At: t0.Add(3 * time.Second)}}
	if m.Status != domain.StatusRead || m.ProviderID != "wamid.A" {
		t.Fatalf("message %s %q, want read with wamid.A", m.Status, m.ProviderID)
	}
	if diff := cmp.Diff(want, m.History, cmpDomain); diff != "" {
		t.Fatalf("history (-want +got):\n%s", diff)
	}
	// An event for a wamid no message holds yet is kept for later.
	if err := rec.RecordStatus(ctx, ports.StatusEvent{ProviderID: "wamid.unknown", Status: domain.StatusSent, At: t0}); err != nil {
		t.Fatalf("an event for an unknown wamid: %v, want it parked", err)
	}
	if parked, err := f.st.TakeParkedStatuses(ctx, "wamid.unknown"); err != nil || len(parked) != 1 {
		t.Fatalf("parked: %+v (%v), want the event", parked, err)
	}
	err := rec.RecordStatus(ctx, ports.StatusEvent{MessageID: "msg_01m84vkv5be6bnn9r74vgy0yw5", Status: domain.StatusSent, At: t0})
	if !errors.Is(err, domain.ErrMessageNotFound) {
		t.Fatalf("an event for an unknown message id and no wamid: %v, want message_not_found", err)
	}
}

// TestSentMessageKeepsMetasIDs: the wamid and the recipient's wa_id from
// Meta's answer are recorded on the message.
func TestSentMessageKeepsMetasIDs(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	id := f.send(t, f.principal, phone).ID
	sender := newSenderMock()
	d := f.dispatcher(f.st, f.st, sender, sender, delivery.Config{})
	if n := dispatchOnce(t, d); n != 1 {
		t.Fatalf("claimed %d, want 1", n)
	}
	m := f.message(t, id)
	if m.ProviderID != "wamid.1" || m.WaID != strings.TrimPrefix(phone, "+") {
		t.Fatalf("recorded wamid %q and wa_id %q, want wamid.1 and %s", m.ProviderID, m.WaID, strings.TrimPrefix(phone, "+"))
	}
}

// TestAmbiguousOutcomesAreRetriedAndCounted: a send whose answer never came
// may have reached Meta; it is retried like any transient failure and
// counted, so operators can see how many duplicates were possible.
func TestAmbiguousOutcomesAreRetriedAndCounted(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	id := f.send(t, f.principal, phone).ID
	f.send(t, f.principal, "+14155550123")
	sender := newSenderMock(
		&ports.SendError{Class: ports.ClassRetryable, Ambiguous: true, Err: context.DeadlineExceeded},
		&ports.SendError{Class: ports.ClassRetryable, Err: errors.New("connection refused")},
	)
	spy := newReleaseSpy(f)
	d := f.dispatcher(f.st, spy, sender, sender, delivery.Config{})
	if n := dispatchOnce(t, d); n != 2 {
		t.Fatalf("claimed %d, want 2", n)
	}
	if got := d.AmbiguousSends(); got != 1 {
		t.Fatalf("%d ambiguous sends counted, want 1 (a refused connection is not ambiguous)", got)
	}
	for _, r := range spy.all() {
		if r.retryAt == nil {
			t.Fatalf("message %s was not retried after an unknown outcome", r.id)
		}
	}
	if m := f.message(t, id); m.Status != domain.StatusSending || m.Failure != nil {
		t.Fatalf("after an unknown outcome: %s %+v, want still sending", m.Status, m.Failure)
	}
}

// TestRefusedTemplateStopsItsCampaigns: Meta answers that the template is
// paused; the message fails with Meta's code, and every campaign on that
// template stops sending at once instead of waiting for the next sync.
func TestRefusedTemplateStopsItsCampaigns(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	id := f.send(t, f.principal, phone).ID
	_, theirs := f.otherWorkspace(t) // same template name and language
	sender := newSenderMock(&ports.SendError{Class: ports.ClassPermanent, Code: 132015, Title: "Template is paused",
		TemplateStatus: domain.TemplatePaused})
	d := f.dispatcher(f.st, f.st, sender, sender, delivery.Config{})
	f.clock.Advance(time.Second)
	if n := dispatchOnce(t, d); n != 1 {
		t.Fatalf("claimed %d, want 1", n)
	}
	if m := f.message(t, id); m.Status != domain.StatusFailed || m.Failure == nil || m.Failure.Code != 132015 {
		t.Fatalf("message %s with failure %+v, want failed with 132015", m.Status, m.Failure)
	}
	ctx := context.Background()
	for ws, cid := range map[domain.WorkspaceID]domain.CampaignID{f.principal.Workspace: f.campaign.ID, theirs.Workspace: theirs.ID} {
		c, err := f.st.GetCampaign(ctx, ws, cid)
		if err != nil {
			t.Fatal(err)
		}
		if c.TemplateStatus != domain.TemplatePaused || c.Status != domain.CampaignActive || !c.UpdatedAt.Equal(t0.Add(time.Second)) {
			t.Errorf("campaign %s: template %s, status %s, updated %v; want PAUSED template on an active campaign", cid, c.TemplateStatus, c.Status, c.UpdatedAt)
		}
	}
	_, err := f.sender(f.st, nil).Handle(ctx, app.SendCampaignMessage{Principal: f.principal, PhoneNumber: phone,
		CampaignID: string(f.campaign.ID), Variables: []string{"Ana", "1234"}})
	wantCode(t, err, domain.CodeCampaignNotActive, "template welcome (en_US) is PAUSED at Meta")
}
