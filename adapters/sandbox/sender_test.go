package sandbox_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/adapters/sandbox"
	"github.com/heraldhq/herald/adapters/system"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/ports/portsmock"
	"github.com/heraldhq/herald/ports/porttest"
)

func sinkTo(ch chan ports.StatusEvent) *portsmock.StatusSinkMock {
	return &portsmock.StatusSinkMock{RecordStatusFunc: func(ctx context.Context, e ports.StatusEvent) error {
		ch <- e
		return nil
	}}
}

func msg(phone string) ports.OutboundMessage {
	return ports.OutboundMessage{ID: "msg_1", To: domain.MustPhoneNumber(phone), TemplateName: "t", Language: "en"}
}

func TestStatusesInOrder(t *testing.T) {
	t.Parallel()
	cases := map[string][]domain.MessageStatus{
		"+14155552671": {domain.StatusSent, domain.StatusDelivered, domain.StatusRead},
		"+14155550001": {domain.StatusFailed},
		"+14155550002": {domain.StatusSent},
		"+14155550003": {domain.StatusSent, domain.StatusDelivered},
	}
	for phone, want := range cases {
		ch := make(chan ports.StatusEvent, 8)
		s := sandbox.New(sinkTo(ch), system.Clock{}, sandbox.Config{}, nil)
		res, err := s.Send(context.Background(), msg(phone))
		if err != nil || !strings.HasPrefix(res.ProviderID, "wamid.") || res.WaID != phone[1:] {
			t.Fatalf("%s: %+v %v", phone, res, err)
		}
		for _, w := range want {
			e := <-ch
			if e.Status != w || e.ProviderID != res.ProviderID || e.MessageID != "msg_1" {
				t.Fatalf("%s: event %+v, want %s", phone, e, w)
			}
			if w == domain.StatusFailed && (e.Failure == nil || e.Failure.Code != 131026) {
				t.Fatalf("%s: failure %+v", phone, e.Failure)
			}
		}
		s.Close() // waits for the emitter: nothing more may arrive
		if len(ch) != 0 {
			t.Fatalf("%s: extra events %v", phone, <-ch)
		}
	}
}

func TestDistinctProviderIDs(t *testing.T) {
	t.Parallel()
	s := sandbox.New(&portsmock.StatusSinkMock{RecordStatusFunc: func(context.Context, ports.StatusEvent) error { return nil }},
		system.Clock{}, sandbox.Config{}, nil)
	defer s.Close()
	seen := map[string]bool{}
	for range 100 {
		res, _ := s.Send(context.Background(), msg("+14155552671"))
		if seen[res.ProviderID] {
			t.Fatalf("provider id %s given twice", res.ProviderID)
		}
		seen[res.ProviderID] = true
	}
}

func TestCloseStopsPendingEvents(t *testing.T) {
	t.Parallel()
	ch := make(chan ports.StatusEvent, 8)
	s := sandbox.New(sinkTo(ch), system.Clock{}, sandbox.Config{DeliveredAfter: time.Hour}, nil)
	if _, err := s.Send(context.Background(), msg("+14155552671")); err != nil {
		t.Fatal(err)
	}
	if e := <-ch; e.Status != domain.StatusSent {
		t.Fatalf("first event %s, want sent, reported during the send", e.Status)
	}
	done := make(chan struct{})
	go func() { s.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Close waited for an event an hour away")
	}
	if len(ch) != 0 {
		t.Fatal("a pending event arrived after Close")
	}
	if _, err := s.Send(context.Background(), msg("+14155552671")); err == nil {
		t.Fatal("a closed sandbox accepted a send")
	}
}

func TestSenderContract(t *testing.T) {
	t.Parallel()
	porttest.RunSender(t, func(t *testing.T) ports.WhatsAppSender {
		s := sandbox.New(&portsmock.StatusSinkMock{RecordStatusFunc: func(context.Context, ports.StatusEvent) error { return nil }},
			system.Clock{}, sandbox.Config{}, nil)
		t.Cleanup(s.Close)
		return s
	})
}
