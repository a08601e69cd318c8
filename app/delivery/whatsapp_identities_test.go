package delivery_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/app/delivery"
	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/ports/portsmock"
)

// metaSender answers each send as Meta does for users whose number it
// writes in another form: with the wa_id waIDs holds for the number.
func metaSender(waIDs map[string]string) *portsmock.WhatsAppSenderMock {
	return &portsmock.WhatsAppSenderMock{SendFunc: func(ctx context.Context, m ports.OutboundMessage) (ports.SendResult, error) {
		digits := strings.TrimPrefix(m.To.String(), "+")
		waID, ok := waIDs[digits]
		if !ok {
			waID = digits
		}
		return ports.SendResult{ProviderID: "wamid.TO" + digits, WaID: waID}, nil
	}}
}

// liveContacts lists the workspace's live contacts.
func (f *fixture) liveContacts(t *testing.T, ws domain.WorkspaceID) []domain.Contact {
	t.Helper()
	cs, _, err := f.st.ListContacts(context.Background(), ws, ports.ContactFilter{Mode: domain.ModeLive}, ports.Page{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// sendLive tries a live send to phone.
func (f *fixture) sendLive(phone string) error {
	live := f.principal
	live.Mode = domain.ModeLive
	_, err := f.sender(f.st, nil).Handle(context.Background(), app.SendCampaignMessage{Principal: live, PhoneNumber: phone,
		CampaignID: string(f.campaign.ID), Variables: []string{"Ana", "1"}})
	return err
}

// from is an inbound text as Meta reports it: from and the contacts' wa_id.
func from(waID, wamid, body string, at time.Time) ports.InboundEvent {
	return ports.InboundEvent{From: waID, WaID: waID, ProfileName: "Ana",
		Message: domain.InboundMessage{ProviderID: wamid, Kind: domain.KindText, Text: body, At: at}}
}

// Herald sends to a Brazilian mobile with its ninth digit; Meta answers
// with the wa_id without it, and the reply and the STOP come from that
// wa_id. They land on the contact Herald sent to, whose thread has all
// three; no second contact is made; the next send is refused.
func TestBrazilianRepliesLandOnTheContactSentTo(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	h := newHooks(f, f.st)
	ws := f.principal.Workspace
	if err := f.sendLive("+5582999448232"); err != nil {
		t.Fatal(err)
	}
	meta := metaSender(map[string]string{"5582999448232": "558299448232"})
	if n := dispatchOnce(t, f.dispatcher(f.st, f.st, meta, meta, delivery.Config{})); n != 1 {
		t.Fatalf("dispatched %d, want 1", n)
	}
	sentTo := f.contactOf(t, ws, domain.ModeLive, "+5582999448232")
	if sentTo.WaID != "558299448232" {
		t.Fatalf("the contact's wa_id after the send: %q, want Meta's 558299448232", sentTo.WaID)
	}

	h.post(t, inbound(from("558299448232", "wamid.OI", "oi", t0.Add(time.Minute))))
	if rep := h.post(t, inbound(from("558299448232", "wamid.STOP", "STOP", t0.Add(2*time.Minute)))); rep.OptedOut != 1 {
		t.Fatalf("STOP report %+v, want the contact opted out", rep)
	}
	if cs := f.liveContacts(t, ws); len(cs) != 1 || cs[0].ID != sentTo.ID || !cs[0].OptedOut {
		t.Fatalf("live contacts after the reply and the STOP: %+v, want the one sent to, opted out", cs)
	}
	if n := len(f.thread(t, ws, sentTo.ID)); n != 3 {
		t.Errorf("the thread has %d entries, want the send, the reply and the STOP", n)
	}
	for _, p := range []string{"+5582999448232", "+558299448232"} {
		if err := f.sendLive(p); !errors.Is(err, domain.ErrContactOptedOut) {
			t.Errorf("a live send to %s after the STOP: %v, want contact_opted_out", p, err)
		}
	}
}

// Without Meta's answer (lost with a timeout) a reply from the other form
// of the number still finds the contact: the number in any form.
func TestReplyFromTheOtherFormOfTheNumber(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	h := newHooks(f, f.st)
	ws := f.principal.Workspace
	if _, err := app.NewSyncContactHandler(f.st, f.clock, f.ids, nil, nil).Handle(context.Background(), app.SyncContact{
		Principal: domain.Principal{Workspace: ws, Mode: domain.ModeLive}, PhoneNumber: "+541123456789"}); err != nil {
		t.Fatal(err)
	}
	h.post(t, inbound(from("5491123456789", "wamid.1", "hola", t0)))
	cs := f.liveContacts(t, ws)
	if len(cs) != 1 || cs[0].Phone.String() != "+541123456789" || cs[0].WaID != "5491123456789" {
		t.Fatalf("live contacts: %+v, want the synced one with Meta's wa_id", cs)
	}
}

// A Mexican user writes from 521…, a form E.164 refuses: the message and
// the STOP are kept, on a contact under the number people type, and a send
// to it is refused.
func TestMexicanSenderIsKept(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	h := newHooks(f, f.st)
	ws := f.principal.Workspace
	rep := h.post(t, inbound(from("5215512345678", "wamid.HOLA", "hola", t0), from("5215512345678", "wamid.STOP", "STOP", t0.Add(time.Second))))
	if rep.Inbound != 2 || rep.OptedOut != 1 || len(rep.Skipped) != 0 {
		t.Fatalf("report %+v, want both messages kept and the contact opted out", rep)
	}
	c := f.contactOf(t, ws, domain.ModeLive, "+525512345678")
	if c.WaID != "5215512345678" || !c.OptedOut || len(f.thread(t, ws, c.ID)) != 2 {
		t.Fatalf("contact %+v", c)
	}
	if err := f.sendLive("+525512345678"); !errors.Is(err, domain.ErrContactOptedOut) {
		t.Errorf("a live send after the STOP: %v, want contact_opted_out", err)
	}
}

// A wa_id that is no number Herald can address is kept as it is: the
// contact has no number, its thread and opt-out work, and the log says why.
func TestOddNumberIsKeptUnderItsWaID(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	core, logs := observer.New(zap.InfoLevel)
	obs := usecase.NewObserver(zap.New(core))
	numbers := &portsmock.BusinessNumbersMock{IsOursFunc: func(string) bool { return true }}
	h := newHooks(f, f.st)
	h.receive = delivery.NewReceiveWebhookHandler(h.verifier, f.st,
		delivery.NewApplyWebhookEventHandler(h.decoder, numbers, f.st, f.st, f.clock, f.ids, nil, delivery.Config{}, obs), f.clock, f.ids, nil)
	ws := f.principal.Workspace
	h.post(t, inbound(from("99912345678", "wamid.1", "hello", t0)))
	if rep := h.post(t, inbound(from("99912345678", "wamid.2", "STOP", t0.Add(time.Second)))); rep.OptedOut != 1 {
		t.Fatalf("STOP report %+v", rep)
	}
	cs := f.liveContacts(t, ws)
	if len(cs) != 1 || !cs[0].Phone.IsZero() || cs[0].WaID != "99912345678" || !cs[0].OptedOut || len(f.thread(t, ws, cs[0].ID)) != 2 {
		t.Fatalf("live contacts %+v, want one without a number, under its wa_id, opted out, with both messages", cs)
	}
	why := logs.FilterMessageSnippet("kept under their WhatsApp id").All()
	if len(why) != 1 || !strings.Contains(why[0].ContextMap()["why"].(string), "known country code") ||
		strings.Contains(why[0].ContextMap()["why"].(string), "99912345678") {
		t.Errorf("log of the odd number: %+v, want one line saying why, without the number", why)
	}
}

// A user known only by a business-scoped user id and a username: their
// messages and STOP are kept on a contact with no number; once an event
// reveals their number too, the contact takes it.
func TestUsernameUserIsKept(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	h := newHooks(f, f.st)
	ws := f.principal.Workspace
	bsuid := "BR.1502576394655843"
	msg := func(wamid, body string, at time.Time) ports.InboundEvent {
		return ports.InboundEvent{UserID: bsuid, Username: "ana.silva", ProfileName: "Ana",
			Message: domain.InboundMessage{ProviderID: wamid, Kind: domain.KindText, Text: body, At: at}}
	}
	h.post(t, inbound(msg("wamid.1", "oi", t0)))
	if rep := h.post(t, inbound(msg("wamid.2", "STOP", t0.Add(time.Second)))); rep.OptedOut != 1 {
		t.Fatalf("STOP report %+v", rep)
	}
	cs := f.liveContacts(t, ws)
	if len(cs) != 1 || !cs[0].Phone.IsZero() || cs[0].UserID != bsuid || cs[0].Username != "ana.silva" || !cs[0].OptedOut ||
		len(f.thread(t, ws, cs[0].ID)) != 2 {
		t.Fatalf("live contacts %+v, want one by user id, opted out, with both messages", cs)
	}
	withNumber := msg("wamid.3", "START", t0.Add(time.Minute))
	withNumber.From, withNumber.WaID = "5511988887777", "5511988887777"
	h.post(t, inbound(withNumber))
	got := f.contactOf(t, ws, domain.ModeLive, "+5511988887777")
	if got.ID != cs[0].ID || got.WaID != "5511988887777" || got.OptedOut {
		t.Errorf("after a message with the number too: %+v, want the same contact with its number, opted in", got)
	}
}

// A user who changed their number keeps their contact: its number, wa_id
// and user id move to the new ones, what they write from the new number
// lands on it, and the old number is free. A change of user id moves the
// user id.
func TestUserChangedNumber(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	h := newHooks(f, f.st)
	ws := f.principal.Workspace
	if err := f.sendLive("+16505551234"); err != nil {
		t.Fatal(err)
	}
	was := f.contactOf(t, ws, domain.ModeLive, "+16505551234")
	rep := h.post(t, ports.WebhookBatch{IdentityChanges: []ports.IdentityChangeEvent{{Kind: ports.UserChangedNumber,
		Old: domain.WhatsAppUser{WaID: "16505551234"}, New: domain.WhatsAppUser{WaID: "12195555358", UserID: "US.77"},
		ProviderID: "wamid.SYS", At: t0}}})
	if rep.Identities != 1 {
		t.Fatalf("report %+v, want one contact changed", rep)
	}
	now := f.contactOf(t, ws, domain.ModeLive, "+12195555358")
	if now.ID != was.ID || now.WaID != "12195555358" || now.UserID != "US.77" {
		t.Fatalf("after the change: %+v", now)
	}
	if _, err := f.st.GetContactByPhone(context.Background(), ws, domain.ModeLive, domain.MustPhoneNumber("+16505551234")); !errors.Is(err, domain.ErrContactNotFound) {
		t.Errorf("the old number: %v, want no contact", err)
	}
	h.post(t, inbound(from("12195555358", "wamid.NEW", "new phone, same me", t0.Add(time.Minute))))
	if cs := f.liveContacts(t, ws); len(cs) != 1 || len(f.thread(t, ws, was.ID)) != 2 {
		t.Errorf("after a message from the new number: %d contacts, want the one, with its thread", len(cs))
	}
	h.post(t, ports.WebhookBatch{IdentityChanges: []ports.IdentityChangeEvent{{Kind: ports.UserChangedUserID,
		Old: domain.WhatsAppUser{UserID: "US.77"}, New: domain.WhatsAppUser{UserID: "US.78"}, ProviderID: "wamid.SYS2", At: t0}}})
	if got := f.contactOf(t, ws, domain.ModeLive, "+12195555358"); got.UserID != "US.78" {
		t.Errorf("after the change of user id: %q, want US.78", got.UserID)
	}
	// Nobody: skipped, not failed.
	rep = h.post(t, ports.WebhookBatch{IdentityChanges: []ports.IdentityChangeEvent{{Kind: ports.UserChangedNumber,
		Old: domain.WhatsAppUser{WaID: "14155550000"}, New: domain.WhatsAppUser{WaID: "14155550001"}, ProviderID: "wamid.SYS3", At: t0}}})
	if rep.Identities != 0 || len(rep.Skipped) != 1 {
		t.Errorf("a change for nobody: %+v", rep)
	}
}

// When the new number is another contact's, the contact keeps its number
// and takes the new wa_id: two contacts are one person, and neither is
// merged into the other.
func TestUserChangedToANumberAnotherContactHas(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	h := newHooks(f, f.st)
	ws := f.principal.Workspace
	for _, p := range []string{"+16505551234", "+12195555358"} {
		if err := f.sendLive(p); err != nil {
			t.Fatal(err)
		}
	}
	h.post(t, ports.WebhookBatch{IdentityChanges: []ports.IdentityChangeEvent{{Kind: ports.UserChangedNumber,
		Old: domain.WhatsAppUser{WaID: "16505551234"}, New: domain.WhatsAppUser{WaID: "12195555358"}, ProviderID: "wamid.SYS", At: t0}}})
	if c := f.contactOf(t, ws, domain.ModeLive, "+16505551234"); c.WaID != "12195555358" {
		t.Errorf("the contact that changed: %+v, want its number kept and the new wa_id", c)
	}
	if len(f.liveContacts(t, ws)) != 2 {
		t.Error("a contact was merged or lost")
	}
}

// Statuses tell who received a message: the user id and username they
// carry are kept on the message's contact, unless another contact of the
// workspace already holds the user id.
func TestStatusesRecordTheRecipientsIdentities(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	h := newHooks(f, f.st)
	ws := f.principal.Workspace
	if err := f.sendLive("+5511988887777"); err != nil {
		t.Fatal(err)
	}
	meta := metaSender(nil)
	dispatchOnce(t, f.dispatcher(f.st, f.st, meta, meta, delivery.Config{}))
	h.post(t, statuses(ports.StatusEvent{ProviderID: "wamid.TO5511988887777", Status: domain.StatusDelivered, At: t0,
		Recipient: domain.WhatsAppUser{WaID: "5511988887777", UserID: "BR.1502576394655843", Username: "ana.silva"}}))
	c := f.contactOf(t, ws, domain.ModeLive, "+5511988887777")
	if c.UserID != "BR.1502576394655843" || c.Username != "ana.silva" {
		t.Fatalf("contact after a delivered status with the user id: %+v", c)
	}
	if m := f.message(t, f.liveContactsMessage(t, c)); m.Status != domain.StatusDelivered {
		t.Errorf("the message: %s, want delivered", m.Status)
	}

	// A user id another contact holds stays there.
	if err := f.sendLive("+5511977776666"); err != nil {
		t.Fatal(err)
	}
	dispatchOnce(t, f.dispatcher(f.st, f.st, meta, meta, delivery.Config{}))
	rep := h.post(t, statuses(ports.StatusEvent{ProviderID: "wamid.TO5511977776666", Status: domain.StatusDelivered, At: t0,
		Recipient: domain.WhatsAppUser{WaID: "5511977776666", UserID: "BR.1502576394655843"}}))
	if rep.Statuses != 1 || len(rep.Failed) != 0 {
		t.Fatalf("report %+v", rep)
	}
	if other := f.contactOf(t, ws, domain.ModeLive, "+5511977776666"); other.UserID != "" {
		t.Errorf("a user id another contact holds was recorded: %+v", other)
	}
}

// liveContactsMessage is the id of the one live message sent to c.
func (f *fixture) liveContactsMessage(t *testing.T, c domain.Contact) domain.MessageID {
	t.Helper()
	for _, e := range f.thread(t, c.Workspace, c.ID) {
		if e.MessageID != "" {
			return e.MessageID
		}
	}
	t.Fatal("no message sent to the contact")
	return ""
}

// Events for a business number that is not Herald's are stored and not
// applied: no contact, no thread, no status, no opt-out. The log names
// each such number once, however many events come for it.
func TestEventsForOtherNumbersAreNotApplied(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	core, logs := observer.New(zap.InfoLevel)
	h := newHooks(f, f.st)
	numbers := &portsmock.BusinessNumbersMock{IsOursFunc: func(id string) bool { return id == ourNumber }}
	h.receive = delivery.NewReceiveWebhookHandler(h.verifier, f.st, delivery.NewApplyWebhookEventHandler(h.decoder, numbers, f.st, f.st,
		f.clock, f.ids, nil, delivery.Config{}, usecase.NewObserver(zap.New(core))), f.clock, f.ids, nil)
	ws := f.principal.Workspace
	if err := f.sendLive("+14155552671"); err != nil {
		t.Fatal(err)
	}
	m := f.liveContactsMessage(t, f.contactOf(t, ws, domain.ModeLive, "+14155552671"))
	theirs := "999000111"
	stop := from("14155552671", "wamid.STOP", "STOP", t0)
	stop.Number = theirs
	for i, b := range []ports.WebhookBatch{
		inbound(stop),
		statuses(ports.StatusEvent{MessageID: m, ProviderID: "wamid.X", Status: domain.StatusRead, At: t0, Number: theirs}),
	} {
		rep := h.post(t, b)
		if rep.Foreign != 1 || rep.Inbound != 0 || rep.Statuses != 0 || rep.OptedOut != 0 {
			t.Errorf("event %d for another number: %+v, want one item stored, not applied", i, rep)
		}
	}
	if c := f.contactOf(t, ws, domain.ModeLive, "+14155552671"); c.OptedOut || len(f.thread(t, ws, c.ID)) != 1 {
		t.Errorf("a STOP for another number was applied: %+v", c)
	}
	if got := f.message(t, m); got.Status != domain.StatusQueued {
		t.Errorf("a status for another number was applied: %s", got.Status)
	}
	if n := logs.FilterField(zap.String("phone_number_id", theirs)).Len(); n != 1 {
		t.Errorf("the other number was logged %d times, want once", n)
	}
	if evs := f.webhookEvents(t); len(evs) != 2 || evs[0].AppliedAt == nil || evs[1].AppliedAt == nil {
		t.Errorf("stored events %+v, want both stored and done with", evs)
	}
}

// With no business number configured nothing is Herald's: an event is
// stored, nothing of it applied.
func TestNoConfiguredNumberAppliesNothing(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	h := newHooks(f, f.st)
	none := &portsmock.BusinessNumbersMock{IsOursFunc: func(string) bool { return false }}
	h.receive = delivery.NewReceiveWebhookHandler(h.verifier, f.st, delivery.NewApplyWebhookEventHandler(h.decoder, none, f.st, f.st,
		f.clock, f.ids, nil, delivery.Config{}, nil), f.clock, f.ids, nil)
	if rep := h.post(t, inbound(from("14155550100", "wamid.1", "hi", t0))); rep.Foreign != 1 || rep.Inbound != 0 {
		t.Errorf("report %+v", rep)
	}
	if cs := f.liveContacts(t, f.principal.Workspace); len(cs) != 0 {
		t.Errorf("contacts %+v, want none", cs)
	}
}
