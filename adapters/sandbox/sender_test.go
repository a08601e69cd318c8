package sandbox_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/heraldhq/herald/adapters/sandbox"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/ports/portsmock"
	"github.com/heraldhq/herald/ports/porttest"
)

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// fixedClock stands at t0.
func fixedClock() *portsmock.ClockMock {
	return &portsmock.ClockMock{NowFunc: func() time.Time { return t0 }}
}

// capture is a status sink that hands every event to a channel, failing
// with fail(e) when it is set.
func capture(fail func(ports.StatusEvent) error) (*portsmock.StatusSinkMock, chan ports.StatusEvent) {
	ch := make(chan ports.StatusEvent, 16)
	return &portsmock.StatusSinkMock{RecordStatusFunc: func(ctx context.Context, e ports.StatusEvent) error {
		ch <- e
		if fail != nil {
			return fail(e)
		}
		return nil
	}}, ch
}

// discard is a status sink that accepts everything.
func discard() *portsmock.StatusSinkMock {
	return &portsmock.StatusSinkMock{RecordStatusFunc: func(context.Context, ports.StatusEvent) error { return nil }}
}

func message(id domain.MessageID, phone string) ports.OutboundMessage {
	return ports.OutboundMessage{ID: id, To: domain.MustPhoneNumber(phone), TemplateName: "welcome", Language: "en_US",
		HeaderFormat: domain.HeaderNone, Variables: []string{"Ana"}}
}

var cmpEvents = cmp.AllowUnexported(domain.MessageStatus{})

// receive waits for n events.
func receive(t *testing.T, ch <-chan ports.StatusEvent, n int) []ports.StatusEvent {
	t.Helper()
	var got []ports.StatusEvent
	timeout := time.After(10 * time.Second)
	for len(got) < n {
		select {
		case e := <-ch:
			got = append(got, e)
		case <-timeout:
			t.Fatalf("received %d of %d events: %+v", len(got), n, got)
		}
	}
	return got
}

func TestSendAnswersLikeMeta(t *testing.T) {
	t.Parallel()
	sink := discard()
	s := sandbox.New(sink, fixedClock(), sandbox.Config{DeliveredAfter: time.Hour}, nil)
	t.Cleanup(s.Close)
	seen := map[string]bool{}
	for i := range 100 {
		res, err := s.Send(context.Background(), message(domain.MessageID(fmt.Sprint("msg_", i)), "+14155552671"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(res.ProviderID, "wamid.") || len(res.ProviderID) <= len("wamid.") {
			t.Fatalf("provider id %q does not look like a wamid", res.ProviderID)
		}
		if res.WaID != "14155552671" {
			t.Fatalf("wa_id %q, want the number without +", res.WaID)
		}
		if seen[res.ProviderID] {
			t.Fatalf("provider id %s given twice", res.ProviderID)
		}
		seen[res.ProviderID] = true
	}
}

// TestStatusesInOrder: each recipient gets its statuses in lifecycle order,
// each naming the message and its wamid, and nothing after its last one.
func TestStatusesInOrder(t *testing.T) {
	t.Parallel()
	undeliverable := &domain.Failure{Code: 131026, Title: "Message undeliverable"}
	cases := []struct {
		name, phone string
		statuses    []domain.MessageStatus
		failure     *domain.Failure
	}{
		{"ordinary number", "+14155552671", []domain.MessageStatus{domain.StatusSent, domain.StatusDelivered, domain.StatusRead}, nil},
		{"0001 fails with 131026", "+14155550001", []domain.MessageStatus{domain.StatusFailed}, undeliverable},
		{"0002 stops at sent", "+14155550002", []domain.MessageStatus{domain.StatusSent}, nil},
		{"0003 stops at delivered", "+14155550003", []domain.MessageStatus{domain.StatusSent, domain.StatusDelivered}, nil},
		{"0001 inside the number is ordinary", "+14150001267", []domain.MessageStatus{domain.StatusSent, domain.StatusDelivered, domain.StatusRead}, nil},
		{"another country", "+447911120002", []domain.MessageStatus{domain.StatusSent}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			sink, ch := capture(nil)
			s := sandbox.New(sink, fixedClock(), sandbox.Config{}, nil)
			res, err := s.Send(context.Background(), message("msg_1", c.phone))
			if err != nil {
				t.Fatal(err)
			}
			// Sent is reported during the send, so a crash right after
			// cannot lose it.
			if c.statuses[0] == domain.StatusSent && len(sink.RecordStatusCalls()) == 0 {
				t.Fatal("sent was not reported before Send returned")
			}
			got := receive(t, ch, len(c.statuses))
			s.Close() // waits for pending events: nothing may follow
			var want []ports.StatusEvent
			for _, st := range c.statuses {
				e := ports.StatusEvent{MessageID: "msg_1", ProviderID: res.ProviderID, Status: st, At: t0}
				if st == domain.StatusFailed {
					e.Failure = c.failure
				}
				want = append(want, e)
			}
			if diff := cmp.Diff(want, got, cmpEvents); diff != "" {
				t.Fatalf("events (-want +got):\n%s", diff)
			}
			if n := len(sink.RecordStatusCalls()); n != len(c.statuses) {
				t.Fatalf("%d events reported, want %d", n, len(c.statuses))
			}
		})
	}
}

// TestDelaysKeepTheOrder: with delays configured, statuses still arrive in
// order, each stamped by the clock when it is reported.
func TestDelaysKeepTheOrder(t *testing.T) {
	t.Parallel()
	sink, ch := capture(nil)
	var ticks atomic.Int64
	clock := &portsmock.ClockMock{NowFunc: func() time.Time { return t0.Add(time.Duration(ticks.Add(1)) * time.Second) }}
	s := sandbox.New(sink, clock, sandbox.Config{SentAfter: time.Millisecond, DeliveredAfter: time.Millisecond, ReadAfter: time.Millisecond}, nil)
	t.Cleanup(s.Close)
	if _, err := s.Send(context.Background(), message("msg_1", "+14155552671")); err != nil {
		t.Fatal(err)
	}
	got := receive(t, ch, 3)
	for i, st := range []domain.MessageStatus{domain.StatusSent, domain.StatusDelivered, domain.StatusRead} {
		if got[i].Status != st {
			t.Fatalf("event %d is %s, want %s", i, got[i].Status, st)
		}
		if i > 0 && !got[i].At.After(got[i-1].At) {
			t.Fatalf("event %d at %v, not after %v", i, got[i].At, got[i-1].At)
		}
	}
}

// TestCloseStopsPendingEvents: with long delays, Close returns at once and
// the pending statuses never arrive.
func TestCloseStopsPendingEvents(t *testing.T) {
	t.Parallel()
	sink, ch := capture(nil)
	s := sandbox.New(sink, fixedClock(), sandbox.Config{SentAfter: time.Hour, DeliveredAfter: time.Hour, ReadAfter: time.Hour}, nil)
	if _, err := s.Send(context.Background(), message("msg_1", "+14155552671")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Send(context.Background(), message("msg_2", "+14155550001")); err != nil { // fails after SentAfter
		t.Fatal(err)
	}
	if e := receive(t, ch, 1)[0]; e.Status != domain.StatusSent || e.MessageID != "msg_1" {
		t.Fatalf("first event %+v, want msg_1 sent, reported during the send", e)
	}
	closed := make(chan struct{})
	go func() { s.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("Close waited for events an hour away")
	}
	if n := len(sink.RecordStatusCalls()); n != 1 {
		t.Fatalf("%d events after Close, want only the sent reported during the send", n)
	}
	// A closed sandbox refuses new sends as retryable, reporting nothing.
	_, err := s.Send(context.Background(), message("msg_3", "+14155552671"))
	var se *ports.SendError
	if !errors.As(err, &se) || se.Class != ports.ClassRetryable {
		t.Fatalf("send after Close: %v, want a retryable SendError", err)
	}
	if n := len(sink.RecordStatusCalls()); n != 1 {
		t.Fatal("a send after Close reported a status")
	}
	s.Close() // closing twice is harmless
}

func TestSendWithACanceledContext(t *testing.T) {
	t.Parallel()
	sink, _ := capture(nil)
	s := sandbox.New(sink, fixedClock(), sandbox.Config{}, nil)
	t.Cleanup(s.Close)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := s.Send(ctx, message("msg_1", "+14155552671"))
	var se *ports.SendError
	if !errors.As(err, &se) || se.Class != ports.ClassRetryable || !errors.Is(err, context.Canceled) {
		t.Fatalf("send with a canceled context: %v, want a retryable SendError wrapping context.Canceled", err)
	}
	if n := len(sink.RecordStatusCalls()); n != 0 {
		t.Fatalf("a canceled send reported %d statuses", n)
	}
}

// TestSinkFailures: if sent cannot be recorded the send fails as retryable
// (the dispatcher tries again); if a later status cannot be recorded, the
// ones after it are not reported.
func TestSinkFailures(t *testing.T) {
	t.Parallel()
	down := fmt.Errorf("record status: %w", ports.ErrUnavailable)
	t.Run("sent", func(t *testing.T) {
		t.Parallel()
		sink, _ := capture(func(ports.StatusEvent) error { return down })
		s := sandbox.New(sink, fixedClock(), sandbox.Config{}, nil)
		_, err := s.Send(context.Background(), message("msg_1", "+14155552671"))
		var se *ports.SendError
		if !errors.As(err, &se) || se.Class != ports.ClassRetryable || !errors.Is(err, ports.ErrUnavailable) {
			t.Fatalf("send whose sent status was not recorded: %v, want a retryable SendError wrapping the sink's error", err)
		}
		s.Close()
		if n := len(sink.RecordStatusCalls()); n != 1 {
			t.Fatalf("%d statuses reported after a failed send, want only the failed sent", n)
		}
	})
	t.Run("delivered", func(t *testing.T) {
		t.Parallel()
		sink, ch := capture(func(e ports.StatusEvent) error {
			if e.Status == domain.StatusDelivered {
				return down
			}
			return nil
		})
		s := sandbox.New(sink, fixedClock(), sandbox.Config{}, nil)
		if _, err := s.Send(context.Background(), message("msg_1", "+14155552671")); err != nil {
			t.Fatal(err)
		}
		receive(t, ch, 2)
		s.Close()
		var got []domain.MessageStatus
		for _, c := range sink.RecordStatusCalls() {
			got = append(got, c.E.Status)
		}
		if diff := cmp.Diff([]domain.MessageStatus{domain.StatusSent, domain.StatusDelivered}, got, cmpEvents); diff != "" {
			t.Fatalf("statuses reported (-want +got):\n%s", diff)
		}
	})
}

func TestDefaultConfigPacesStatuses(t *testing.T) {
	t.Parallel()
	c := sandbox.DefaultConfig()
	if c.SentAfter <= 0 || c.DeliveredAfter <= 0 || c.ReadAfter <= 0 {
		t.Fatalf("default config %+v: every delay should be positive, so a person can watch statuses move", c)
	}
}

func TestSenderContract(t *testing.T) {
	t.Parallel()
	porttest.RunSender(t, func(t *testing.T) porttest.SenderUnderTest {
		// Final statuses (failed, read) go to final; sent is reported
		// during each send, delivered an hour later.
		final := make(chan ports.StatusEvent, 16)
		sink := &portsmock.StatusSinkMock{RecordStatusFunc: func(_ context.Context, e ports.StatusEvent) error {
			if e.Status == domain.StatusFailed || e.Status == domain.StatusRead {
				final <- e
			}
			return nil
		}}
		s := sandbox.New(sink, fixedClock(), sandbox.Config{DeliveredAfter: time.Hour}, nil)
		t.Cleanup(s.Close)
		return porttest.SenderUnderTest{
			Sender: s,
			// The sandbox meets one failure: a number ending 0001 is
			// undeliverable, as Meta reports it.
			Provoke: func(t *testing.T, f porttest.SenderFailure, m ports.OutboundMessage) (ports.OutboundMessage, bool) {
				if f != porttest.FailUndeliverable {
					return m, false
				}
				m.To = domain.MustPhoneNumber("+14155550001")
				return m, true
			},
			Reported: func(t *testing.T, id domain.MessageID) ports.StatusEvent {
				t.Helper()
				e := receive(t, final, 1)[0]
				if e.MessageID != id {
					t.Fatalf("final status of %s, want one of %s", e.MessageID, id)
				}
				return e
			},
		}
	})
}
