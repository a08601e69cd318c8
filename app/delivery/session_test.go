package delivery_test

import (
	"context"
	"testing"
	"time"

	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/app/delivery"
	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/ports/portsmock"
	"github.com/heraldhq/herald/ports/porttest"
)

// sendSession accepts a text session message to phone, whose contact
// wrote an hour ago.
func (f *fixture) sendSession(t *testing.T, phone string) domain.Message {
	t.Helper()
	ctx := context.Background()
	c := f.contact(t, f.principal.Workspace, f.send(t, f.principal, phone).Phone.String())
	if _, err := f.st.UpdateContact(ctx, c.Workspace, c.ID, func(c *domain.Contact) error {
		c.RecordInbound("", "", f.clock.Now().Add(-time.Hour), f.clock.Now())
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	h := app.NewSendSessionMessageHandler(app.SendSessionDeps{Tx: f.st, Messages: f.st, Idempotency: f.st,
		Clock: f.clock, IDs: f.ids, Obs: usecase.NewObserver(nil), LiveSending: true})
	res, err := h.Handle(ctx, app.SendSessionMessage{Principal: f.principal, To: phone,
		Content: porttest.SessionContents()["text"], ReplyTo: "wamid.Q"})
	if err != nil {
		t.Fatal(err)
	}
	return res.Message
}

// A session message leaves through the same queue as templates: the
// sender gets its content and the quoted wamid, and Meta's answer is
// recorded with its message events. Meta's 131047 (outside the window)
// fails it as outside_service_window.
func TestSessionMessagesAreDispatched(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ok, closed := f.sendSession(t, "+14155550171"), f.sendSession(t, "+14155550172")
	var got []ports.OutboundMessage
	sender := &portsmock.WhatsAppSenderMock{SendFunc: func(ctx context.Context, m ports.OutboundMessage) (ports.SendResult, error) {
		if m.Session == nil {
			return ports.SendResult{ProviderID: "wamid.T" + string(m.ID)}, nil
		}
		got = append(got, m)
		if m.ID == closed.ID {
			return ports.SendResult{}, &ports.SendError{Class: ports.ClassPermanent, Code: domain.MetaOutsideWindowCode,
				Title: "Re-engagement message"}
		}
		return ports.SendResult{ProviderID: "wamid.S" + string(m.ID)}, nil
	}}
	for dispatchOnce(t, f.dispatcher(f.st, f.st, sender, sender, delivery.Config{})) > 0 {
	}
	if len(got) != 2 {
		t.Fatalf("the sender got %d session messages, want 2", len(got))
	}
	for _, m := range got {
		if m.Session.Text == nil || m.Session.Text.Body != "Your order shipped" || m.ReplyTo != "wamid.Q" {
			t.Errorf("sent %+v", m)
		}
	}
	if m := f.message(t, ok.ID); m.Status != domain.StatusSending || m.ProviderID != "wamid.S"+string(ok.ID) {
		t.Errorf("accepted session message: %s %q", m.Status, m.ProviderID)
	}
	m := f.message(t, closed.ID)
	if m.Status != domain.StatusFailed || m.Failure == nil || m.Failure.Code != domain.MetaOutsideWindowCode ||
		m.Failure.HeraldCode != domain.CodeOutsideServiceWindow {
		t.Fatalf("refused session message: %s %+v", m.Status, m.Failure)
	}
	failed := 0
	for _, e := range f.told(t, f.principal.Workspace, f.principal.Mode) {
		if e.Type == "message.failed" && e.Subject == string(closed.ID) {
			failed++
		}
	}
	if failed != 1 {
		t.Errorf("%d message.failed events for the refused session message, want 1", failed)
	}
}
