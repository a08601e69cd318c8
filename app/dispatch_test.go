package app_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/heraldhq/herald/adapters/sandbox"
	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/ports/portsmock"
)

// notifyingSink applies status events through the real use case and then
// reports each applied status on a channel, so tests wait on a signal.
type notifyingSink struct {
	rec *app.RecordStatusEventHandler
	ch  chan ports.StatusEvent
}

func (s notifyingSink) RecordStatus(ctx context.Context, e ports.StatusEvent) error {
	err := s.rec.RecordStatus(ctx, e)
	s.ch <- e
	return err
}

func (f *fixture) dispatcher(t *testing.T, live, test ports.WhatsAppSender) *app.Dispatcher {
	t.Helper()
	return app.NewDispatcher(f.st, f.st, app.Senders{Live: live, Sandbox: test}, f.clock, f.ids, nil, app.Config{}, app.NewObserver(nil))
}

func dispatchAll(t *testing.T, d *app.Dispatcher) int {
	t.Helper()
	n, err := d.DispatchOnce(context.Background(), make(chan struct{}, 8))
	if err != nil {
		t.Fatal(err)
	}
	d.Wait()
	return n
}

func TestSandboxMessagesReachTheirFinalStatus(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sink := notifyingSink{rec: app.NewRecordStatusEventHandler(f.st, nil), ch: make(chan ports.StatusEvent, 32)}
	sb := sandbox.New(sink, f.clock, sandbox.Config{}, nil)
	t.Cleanup(sb.Close)
	d := f.dispatcher(t, &portsmock.WhatsAppSenderMock{}, sb) // a live send would panic: these are test-mode messages

	want := map[string]struct {
		status domain.MessageStatus
		events int
	}{
		"+14155552671": {domain.StatusRead, 3},
		"+14155550001": {domain.StatusFailed, 1},
		"+14155550002": {domain.StatusSent, 1},
		"+14155550003": {domain.StatusDelivered, 2},
	}
	ids := map[string]domain.MessageID{}
	total := 0
	for phone, w := range want {
		ids[phone] = f.send(t, phone).ID
		total += w.events
	}
	if n := dispatchAll(t, d); n != len(want) {
		t.Fatalf("claimed %d, want %d", n, len(want))
	}
	for range total {
		select {
		case <-sink.ch:
		case <-time.After(10 * time.Second):
			t.Fatal("status events stopped arriving")
		}
	}
	for phone, w := range want {
		m, err := f.st.GetMessage(context.Background(), f.principal.Workspace, ids[phone])
		if err != nil {
			t.Fatal(err)
		}
		if m.Status != w.status || m.ProviderID == "" {
			t.Errorf("%s: status %s (provider id %q), want %s", phone, m.Status, m.ProviderID, w.status)
		}
		if w.status == domain.StatusFailed && (m.Failure == nil || m.Failure.Code != sandbox.UndeliverableCode) {
			t.Errorf("%s: failure %+v, want Meta's 131026", phone, m.Failure)
		}
	}
	if n := dispatchAll(t, d); n != 0 {
		t.Fatalf("sent messages were claimed again: %d", n)
	}
}

func TestRetryableFailureIsRetriedLater(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	calls := 0
	sender := &portsmock.WhatsAppSenderMock{SendFunc: func(ctx context.Context, m ports.OutboundMessage) (ports.SendResult, error) {
		calls++
		if calls == 1 {
			return ports.SendResult{}, &ports.SendError{Class: ports.ClassRetryable, Code: 131000, Title: "Something went wrong"}
		}
		return ports.SendResult{ProviderID: "wamid.2"}, nil
	}}
	d := f.dispatcher(t, sender, sender)
	id := f.send(t, "+14155552671").ID
	dispatchAll(t, d)
	if n := dispatchAll(t, d); n != 0 {
		t.Fatal("a failed send was retried at once, without backoff")
	}
	f.clock.Advance(11 * time.Minute) // past the longest backoff
	if n := dispatchAll(t, d); n != 1 || calls != 2 {
		t.Fatalf("after the backoff: claimed %d, sends %d", n, calls)
	}
	m, _ := f.st.GetMessage(context.Background(), f.principal.Workspace, id)
	if m.ProviderID != "wamid.2" || m.Status != domain.StatusSending {
		t.Fatalf("after the retry: %s %q", m.Status, m.ProviderID)
	}
}

func TestPermanentFailureFailsWithMetasCode(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sender := &portsmock.WhatsAppSenderMock{SendFunc: func(ctx context.Context, m ports.OutboundMessage) (ports.SendResult, error) {
		return ports.SendResult{}, &ports.SendError{Class: ports.ClassPermanent, Code: 132001, Title: "Template name does not exist in the translation"}
	}}
	d := f.dispatcher(t, sender, sender)
	id := f.send(t, "+14155552671").ID
	dispatchAll(t, d)
	m, _ := f.st.GetMessage(context.Background(), f.principal.Workspace, id)
	if m.Status != domain.StatusFailed || m.Failure == nil || m.Failure.Code != 132001 {
		t.Fatalf("%s %+v", m.Status, m.Failure)
	}
	f.clock.Advance(time.Hour)
	if n := dispatchAll(t, d); n != 0 {
		t.Fatal("a permanently failed message was claimed again")
	}
}

func TestLiveAndTestKeysUseTheirSenders(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var live, test []ports.OutboundMessage
	mk := func(into *[]ports.OutboundMessage) *portsmock.WhatsAppSenderMock {
		return &portsmock.WhatsAppSenderMock{SendFunc: func(ctx context.Context, m ports.OutboundMessage) (ports.SendResult, error) {
			*into = append(*into, m)
			return ports.SendResult{ProviderID: "wamid." + string(m.ID)}, nil
		}}
	}
	d := f.dispatcher(t, mk(&live), mk(&test))
	f.send(t, "+14155552671")
	f.principal.Mode = domain.ModeLive
	f.send(t, "+14155552672")
	sem := make(chan struct{}, 1) // one at a time: the mocks append without locks
	if _, err := d.DispatchOnce(context.Background(), sem); err != nil {
		t.Fatal(err)
	}
	d.Wait()
	if len(live) != 1 || live[0].To.String() != "+14155552672" || len(test) != 1 || test[0].To.String() != "+14155552671" {
		t.Fatalf("live %v, test %v", live, test)
	}
	if test[0].Payload().BizOpaqueCallbackData != string(test[0].ID) {
		t.Fatal("the payload must carry our message id for status matching")
	}
}

// TestLostLeaseRecordsNothing: when a send outlives its lease and another
// dispatcher claims the message, the first dispatcher's outcome is dropped.
func TestLostLeaseRecordsNothing(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	id := f.send(t, "+14155552671").ID
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
	dispatchAll(t, f.dispatcher(t, sender, sender))
	m, _ := f.st.GetMessage(context.Background(), f.principal.Workspace, id)
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
	id := f.send(t, "+14155552671").ID
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
	d := app.NewDispatcher(spy, f.st, app.Senders{Live: sender, Sandbox: sender}, f.clock, f.ids, nil,
		app.Config{LeaseDuration: 150 * time.Millisecond}, app.NewObserver(nil))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { d.Run(ctx); close(done) }()
	<-returned
	cancel()
	<-done // Run returns once the send in flight is recorded
	if len(renewedIDs) != 1 || renewedIDs[0] != id {
		t.Fatalf("renewed %v while sending %s", renewedIDs, id)
	}
	if m, _ := f.st.GetMessage(context.Background(), f.principal.Workspace, id); m.ProviderID != "wamid.1" {
		t.Fatalf("the outcome of the renewed send was not recorded: %q", m.ProviderID)
	}
}

// TestRefusedCredentialsPauseLiveSends: after Meta refuses the token, live
// messages are held back without calling Meta (no retry storm) and the
// dispatcher reports it; test-mode messages go on.
func TestRefusedCredentialsPauseLiveSends(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	calls := 0
	live := &portsmock.WhatsAppSenderMock{SendFunc: func(ctx context.Context, m ports.OutboundMessage) (ports.SendResult, error) {
		calls++
		return ports.SendResult{}, &ports.SendError{Class: ports.ClassAuth, Code: 190, Title: "Error validating access token"}
	}}
	sandboxed := 0
	test := &portsmock.WhatsAppSenderMock{SendFunc: func(ctx context.Context, m ports.OutboundMessage) (ports.SendResult, error) {
		sandboxed++
		return ports.SendResult{ProviderID: "wamid.t"}, nil
	}}
	d := f.dispatcher(t, live, test)
	f.principal.Mode = domain.ModeLive
	for i := range 3 {
		f.send(t, fmt.Sprintf("+1415555267%d", i))
	}
	f.principal.Mode = domain.ModeTest
	f.send(t, "+14155552679")
	if _, err := d.DispatchOnce(context.Background(), make(chan struct{}, 1)); err != nil {
		t.Fatal(err)
	}
	d.Wait()
	if calls != 1 || sandboxed != 1 {
		t.Fatalf("Meta called %d times, sandbox %d; want Meta once (then paused) and the test message sent", calls, sandboxed)
	}
	if d.LiveError() == nil {
		t.Fatal("the dispatcher does not report the paused live sends")
	}
	f.clock.Advance(2 * time.Minute)
	if d.LiveError() != nil {
		t.Fatal("live sends stay paused after the pause")
	}
}
