package app_test

import (
	"testing"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

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
