package whatsapp_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/ports/porttest"
	"github.com/heraldhq/herald/test/fakemeta"
)

// Session messages of every type reach the Cloud API as bodies Meta's
// document accepts, quoting the message replied to; outside the window
// Meta's 131047 comes back as a permanent failure with its code.
func TestSessionMessages(t *testing.T) {
	t.Parallel()
	spec := fakemeta.LoadSpec(t)
	fake, c := newFake(t)
	ctx := context.Background()
	to := domain.MustPhoneNumber("+5511988887777")
	fake.Wrote(to.String(), time.Now().Add(-time.Hour))
	for name, content := range porttest.SessionContents() {
		content := content
		m := ports.OutboundMessage{ID: "msg_01m80000000000000000000009", To: to, Session: &content}
		if name != "reaction" {
			m.ReplyTo = "wamid.QUOTED"
		}
		res, err := c.Send(ctx, m)
		if err != nil || res.ProviderID == "" {
			t.Errorf("%s: %+v, %v", name, res, err)
		}
	}
	for _, r := range fake.Requests() {
		if err := spec.CheckSessionMessage(r.Body); err != nil {
			t.Errorf("request: %v", err)
		}
	}

	closed := domain.MustPhoneNumber("+5511988880000")
	text := porttest.SessionContents()["text"]
	_, err := c.Send(ctx, ports.OutboundMessage{ID: "msg_01m80000000000000000000010", To: closed, Session: &text})
	var se *ports.SendError
	if !errors.As(err, &se) || se.Class != ports.ClassPermanent || se.Code != domain.MetaOutsideWindowCode {
		t.Fatalf("outside the window: %v", err)
	}
}

// MarkRead posts Meta's mark-as-read body (with the typing indicator when
// asked), which Meta's document accepts; a refusal is a *ports.SendError.
func TestMarkRead(t *testing.T) {
	t.Parallel()
	spec := fakemeta.LoadSpec(t)
	fake, c := newFake(t)
	ctx := context.Background()
	if err := c.MarkRead(ctx, "wamid.IN1", false); err != nil {
		t.Fatal(err)
	}
	if err := c.MarkRead(ctx, "wamid.IN2", true); err != nil {
		t.Fatal(err)
	}
	if got := fake.Reads(); len(got) != 2 || got[0] != (fakemeta.Read{MessageID: "wamid.IN1"}) || got[1] != (fakemeta.Read{MessageID: "wamid.IN2", Typing: true}) {
		t.Fatalf("reads %+v", got)
	}
	for _, r := range fake.Requests() {
		if err := spec.Check("MarkMessageRequestPayload", r.Body); err != nil {
			t.Errorf("request: %v", err)
		}
	}
	var se *ports.SendError
	if err := c.MarkRead(ctx, "", false); !errors.As(err, &se) || se.Code != 100 {
		t.Fatalf("no wamid: %v", err)
	}
}
