package porttest

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// SenderMessage is the message RunSender sends: template "welcome" in
// "en_US" with two body placeholders and no header. newSender must return a
// sender that accepts it.
func SenderMessage() ports.OutboundMessage {
	return ports.OutboundMessage{
		ID: "msg_01m80000000000000000000001", To: domain.MustPhoneNumber("+14155552671"),
		TemplateName: "welcome", Language: "en_US", HeaderFormat: domain.HeaderNone,
		Variables: []string{"Ana", "1234"},
	}
}

// RunSender holds the promises every WhatsAppSender keeps: an accepted send
// returns Meta's wamid and the recipient's wa_id, every send gets its own
// wamid, and a send whose context is already done fails as retryable
// without being accepted.
func RunSender(t *testing.T, newSender func(t *testing.T) ports.WhatsAppSender) {
	t.Run("Accepted", func(t *testing.T) {
		t.Parallel()
		s := newSender(t)
		res, err := s.Send(context.Background(), SenderMessage())
		if err != nil {
			t.Fatalf("Send: %v", err)
		}
		if !strings.HasPrefix(res.ProviderID, "wamid.") || res.WaID != "14155552671" {
			t.Fatalf("result %+v: want a wamid and the recipient's digits as wa_id", res)
		}
	})
	t.Run("DistinctIDs", func(t *testing.T) {
		t.Parallel()
		s := newSender(t)
		seen := map[string]bool{}
		for range 20 {
			res, err := s.Send(context.Background(), SenderMessage())
			if err != nil {
				t.Fatalf("Send: %v", err)
			}
			if seen[res.ProviderID] {
				t.Fatalf("wamid %s returned twice", res.ProviderID)
			}
			seen[res.ProviderID] = true
		}
	})
	t.Run("CanceledContext", func(t *testing.T) {
		t.Parallel()
		s := newSender(t)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := s.Send(ctx, SenderMessage())
		var se *ports.SendError
		if !errors.As(err, &se) || se.Class != ports.ClassRetryable {
			t.Fatalf("Send with a done context: %v, want a retryable *ports.SendError", err)
		}
	})
}
