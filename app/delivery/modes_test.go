package delivery_test

import (
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/app/delivery"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/ports/portsmock"
)

// A live message claimed by a dispatcher without a live sender (queued
// before an upgrade, or on an instance set up unlike the others) is never
// handed to the sandbox: it waits for an instance that can send it, and
// fails saying why when its attempts run out.
func TestLiveMessageWithoutALiveSenderIsNeverSandboxed(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	live := f.principal
	live.Mode = domain.ModeLive
	m := f.send(t, live, phone)
	// No SendFunc: handing the message to the sandbox would panic.
	sandbox := &portsmock.WhatsAppSenderMock{}

	d := f.dispatcher(f.st, f.st, nil, sandbox, delivery.Config{})
	if n := dispatchOnce(t, d); n != 1 {
		t.Fatalf("claimed %d, want the live message", n)
	}
	if got := f.message(t, m.ID); got.Status.IsTerminal() || got.ProviderID != "" {
		t.Fatalf("after one attempt without a live sender: %s, provider id %q; want it waiting, unsent", got.Status, got.ProviderID)
	}
	if n := dispatchOnce(t, d); n != 0 {
		t.Fatalf("the waiting message was claimed again at once (%d)", n)
	}

	// The last attempt fails it, with the reason.
	f.clock.Advance(time.Minute) // it waits as long as live sends pause after refused credentials (AuthPause)
	last := f.dispatcher(f.st, f.st, nil, sandbox, delivery.Config{MaxAttempts: 2})
	if n := dispatchOnce(t, last); n != 1 {
		t.Fatalf("claimed %d after the wait, want the live message", n)
	}
	got := f.message(t, m.ID)
	if got.Status != domain.StatusFailed || got.Failure == nil || !strings.Contains(got.Failure.Title, "no WhatsApp Cloud API number configured") {
		t.Fatalf("after its last attempt: %s, failure %+v; want failed saying the Cloud API is not configured", got.Status, got.Failure)
	}
	if len(sandbox.SendCalls()) != 0 {
		t.Fatalf("the sandbox was handed %d live messages", len(sandbox.SendCalls()))
	}
}

// TestReplyToASandboxMessageIsLive: a person's message quoting the wamid
// of a sandbox message (which never reached anyone) is live traffic: it
// lands on the number's live contact and does not point at the test
// message, whose thread it stays out of.
func TestReplyToASandboxMessageIsLive(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	h := newHooks(f, f.st)
	test := f.send(t, f.principal, "+14155550100")
	h.post(t, statuses(ports.StatusEvent{MessageID: test.ID, ProviderID: "wamid.SANDBOX", Status: domain.StatusSent, At: t0}))
	h.post(t, inbound(ports.InboundEvent{From: "14155550100", WaID: "14155550100",
		Message: domain.InboundMessage{ProviderID: "wamid.IN", Kind: domain.KindButton, Text: "Yes", ReplyTo: "wamid.SANDBOX", At: t0}}))

	live := f.contactOf(t, f.principal.Workspace, domain.ModeLive, "+14155550100")
	th := f.thread(t, live.Workspace, live.ID)
	if len(th) != 1 || th[0].ReplyTo != "" || th[0].Mode != domain.ModeLive {
		t.Errorf("the live thread %+v, want the reply alone, live, pointing at nothing", th)
	}
	testContact := f.contact(t, f.principal.Workspace, "+14155550100")
	if th := f.thread(t, testContact.Workspace, testContact.ID); len(th) != 1 || th[0].MessageID != test.ID {
		t.Errorf("the test thread %+v, want the test message alone", th)
	}
}
