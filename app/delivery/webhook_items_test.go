package delivery_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heraldhq/herald/app/delivery"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/ports/portsmock"
)

// refusing is a transactor over the fixture's store whose repositories
// refuse one message's update and any inbound entry with one wamid, as
// PostgreSQL refuses a value it cannot hold. With unavailable set they
// answer that the store cannot be reached instead.
type refusing struct {
	f           *fixture
	message     domain.MessageID
	wamid       string
	on          atomic.Bool
	unavailable bool
}

func (x *refusing) fail() error {
	if x.unavailable {
		return fmt.Errorf("connection reset: %w", ports.ErrUnavailable)
	}
	return errors.New(`ERROR: invalid byte sequence for encoding "UTF8": 0x00 (SQLSTATE 22021)`)
}

func (x *refusing) WithinTx(ctx context.Context, fn func(context.Context, ports.Repos) error) error {
	return x.f.st.WithinTx(ctx, func(ctx context.Context, r ports.Repos) error {
		r.Messages = refusingMessages{r.Messages, x}
		r.Conversations = refusingEntries{r.Conversations, x}
		return fn(ctx, r)
	})
}

type refusingMessages struct {
	ports.MessageRepository
	x *refusing
}

func (m refusingMessages) UpdateMessage(ctx context.Context, ws domain.WorkspaceID, id domain.MessageID, fn func(*domain.Message) error) (domain.Message, error) {
	if m.x.on.Load() && id == m.x.message {
		return domain.Message{}, m.x.fail()
	}
	return m.MessageRepository.UpdateMessage(ctx, ws, id, fn)
}

func (m refusingMessages) UpdateLocatedMessage(ctx context.Context, id domain.MessageID, providerID string, fn func(*domain.Message) error) (domain.Message, error) {
	if m.x.on.Load() && id == m.x.message {
		return domain.Message{}, m.x.fail()
	}
	return m.MessageRepository.UpdateLocatedMessage(ctx, id, providerID, fn)
}

func (m refusingMessages) WriteMessageDeliveries(ctx context.Context, ms []domain.Message) error {
	if m.x.on.Load() && slices.ContainsFunc(ms, func(w domain.Message) bool { return w.ID == m.x.message }) {
		return m.x.fail()
	}
	return m.MessageRepository.WriteMessageDeliveries(ctx, ms)
}

type refusingEntries struct {
	ports.ConversationRepository
	x *refusing
}

func (c refusingEntries) AppendEntries(ctx context.Context, es ...domain.Entry) error {
	if c.x.on.Load() && slices.ContainsFunc(es, func(e domain.Entry) bool { return e.ProviderID == c.x.wamid }) {
		return c.x.fail()
	}
	return c.ConversationRepository.AppendEntries(ctx, es...)
}

// TestOneBadItemDoesNotBlockTheOthers: a webhook call reports two statuses
// and three inbound messages, one status and one message of which the store
// refuses. The other three apply, among them a STOP from another number;
// the event is applied, and says which items were not and why. Replaying it
// changes nothing, and once the store takes them, a replay applies the two
// left out.
func TestOneBadItemDoesNotBlockTheOthers(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	m1 := f.send(t, f.principal, "+14155552671")
	m2 := f.send(t, f.principal, "+14155552672")
	x := &refusing{f: f, message: m2.ID, wamid: "wamid.BAD"}
	x.on.Store(true)
	h := newHooks(f, x)

	batch := ports.WebhookBatch{
		Statuses: []ports.StatusEvent{
			{MessageID: m1.ID, ProviderID: "wamid.OUT1", Status: domain.StatusDelivered, At: t0},
			{MessageID: m2.ID, ProviderID: "wamid.OUT2", Status: domain.StatusDelivered, At: t0},
		},
		Inbound: []ports.InboundEvent{
			text("14155550100", "wamid.STOP", "STOP", t0),
			text("14155550101", "wamid.BAD", "hello", t0),
			text("14155550102", "wamid.HI", "hi", t0),
		},
	}
	rep := h.post(t, batch)
	if rep.Statuses != 1 || rep.Inbound != 2 || rep.OptedOut != 1 || len(rep.Failed) != 2 {
		t.Fatalf("report %+v, want 1 status and 2 inbound applied, 1 opt-out, 2 failed", rep)
	}
	for i, want := range []string{"status delivered of message " + string(m2.ID) + ": ", "inbound message wamid.BAD: "} {
		if !strings.HasPrefix(rep.Failed[i], want) || !strings.Contains(rep.Failed[i], "invalid byte sequence") {
			t.Errorf("failed item %d: %q, want %q and the store's reason", i, rep.Failed[i], want)
		}
	}
	if got := f.message(t, m1.ID); got.Status != domain.StatusDelivered {
		t.Errorf("the good status: message %v, want delivered", got.Status)
	}
	if got := f.message(t, m2.ID); got.Status != domain.StatusQueued {
		t.Errorf("the refused status: message %v, want queued", got.Status)
	}
	if !f.liveContact(t, "+14155550100").OptedOut {
		t.Error("the STOP in the same call was lost")
	}
	if len(f.liveThread(t, "+14155550102")) != 1 {
		t.Error("the message after the refused one was lost")
	}
	evs := f.webhookEvents(t)
	if len(evs) != 1 || evs[0].AppliedAt == nil || evs[0].Attempts != 1 || evs[0].LastError != "" {
		t.Fatalf("event %+v, want applied once", evs)
	}

	// Replaying changes nothing and reports the same two items.
	stopped := f.liveContact(t, "+14155550100")
	out, err := h.replay.Handle(ctx, delivery.ReplayWebhookEvents{ID: string(evs[0].ID)})
	if err != nil || len(out) != 1 || out[0].Err != nil {
		t.Fatalf("replay: %+v (%v)", out, err)
	}
	if r := out[0].Report; r.Statuses != 0 || r.Unchanged != 1 || r.Repeated != 2 || r.Inbound != 0 || len(r.Failed) != 2 {
		t.Errorf("replay report %+v, want nothing new and the same 2 failed", r)
	}
	if got := f.liveContact(t, "+14155550100"); !got.UpdatedAt.Equal(stopped.UpdatedAt) || !got.OptedOut {
		t.Errorf("replay changed the contact: %+v", got)
	}

	// Once the store takes them, a replay applies what was left out.
	x.on.Store(false)
	out, err = h.replay.Handle(ctx, delivery.ReplayWebhookEvents{ID: string(evs[0].ID)})
	if err != nil || len(out) != 1 || out[0].Err != nil {
		t.Fatalf("replay: %+v (%v)", out, err)
	}
	if r := out[0].Report; r.Statuses != 1 || r.Inbound != 1 || r.Repeated != 2 || len(r.Failed) != 0 {
		t.Errorf("replay report %+v, want the two left out applied", r)
	}
	if got := f.message(t, m2.ID); got.Status != domain.StatusDelivered {
		t.Errorf("after the replay: message %v, want delivered", got.Status)
	}
	if len(f.liveThread(t, "+14155550101")) != 1 {
		t.Error("after the replay: the refused message is still missing")
	}
}

// TestUnreachableStoreFailsTheWholeEvent: an item that fails because the
// store cannot be reached is not the item's fault. Nothing of the event is
// applied and no item is reported failed; the retry applies it all.
func TestUnreachableStoreFailsTheWholeEvent(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	m1 := f.send(t, f.principal, "+14155552671")
	m2 := f.send(t, f.principal, "+14155552672")
	x := &refusing{f: f, message: m2.ID, unavailable: true}
	x.on.Store(true)
	h := newHooks(f, x)
	res, err := h.receive.Handle(ctx, delivery.ReceiveWebhook{Signature: "ok", Body: h.body(ports.WebhookBatch{
		Statuses: []ports.StatusEvent{
			{MessageID: m1.ID, ProviderID: "wamid.OUT1", Status: domain.StatusDelivered, At: t0},
			{MessageID: m2.ID, ProviderID: "wamid.OUT2", Status: domain.StatusDelivered, At: t0},
		},
		Inbound: []ports.InboundEvent{text("14155550100", "wamid.STOP", "STOP", t0)},
	})})
	if err != nil || res.Applied || !errors.Is(res.ApplyError, ports.ErrUnavailable) || len(res.Report.Failed) != 0 {
		t.Fatalf("with the store away: %+v (%v), want stored, not applied, unavailable", res, err)
	}
	if got := f.message(t, m1.ID); got.Status != domain.StatusQueued {
		t.Errorf("a failed event changed message 1: %v", got.Status)
	}
	if _, err := f.st.ListContactsByPhone(ctx, domain.ModeLive, domain.MustPhoneNumber("+14155550100")); err != nil {
		t.Fatal(err)
	}
	if cs, _ := f.st.ListContactsByPhone(ctx, domain.ModeLive, domain.MustPhoneNumber("+14155550100")); len(cs) != 0 {
		t.Errorf("a failed event created contact %+v", cs)
	}

	x.on.Store(false)
	f.clock.Advance(time.Minute)
	if n, err := h.replay.RetryOnce(ctx); err != nil || n != 1 {
		t.Fatalf("retry applied %d (%v), want 1", n, err)
	}
	for _, id := range []domain.MessageID{m1.ID, m2.ID} {
		if got := f.message(t, id); got.Status != domain.StatusDelivered {
			t.Errorf("after the retry: message %s %v, want delivered", id, got.Status)
		}
	}
	if !f.liveContact(t, "+14155550100").OptedOut {
		t.Error("after the retry: the STOP is missing")
	}
}

// TestNULInMetaTextIsReplaced: Herald cannot refuse what Meta reports, and
// no store may hold NUL (PostgreSQL refuses it), so each NUL becomes U+FFFD
// and the rest is kept: the thread shows the text, the profile name keeps
// its letters, a STOP followed by NUL still opts out, and a failure's title
// keeps its words.
func TestNULInMetaTextIsReplaced(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	h := newHooks(f, f.st)
	m := f.send(t, f.principal, "+14155552671")
	stop := text("14155550100", "wamid.STOP\x00", "STOP\x00", t0)
	stop.ProfileName = "A\x00na"
	rep := h.post(t, ports.WebhookBatch{
		Statuses: []ports.StatusEvent{{MessageID: m.ID, ProviderID: "wamid.\x00OUT", Status: domain.StatusFailed, At: t0,
			Failure: &domain.Failure{Code: 131026, Title: "Message\x00undeliverable"}}},
		Inbound: []ports.InboundEvent{stop},
	})
	if rep.Statuses != 1 || rep.Inbound != 1 || rep.OptedOut != 1 || len(rep.Failed) != 0 {
		t.Fatalf("report %+v", rep)
	}
	got := f.message(t, m.ID)
	if got.ProviderID != "wamid.\uFFFDOUT" || got.Failure == nil || got.Failure.Title != "Message\uFFFDundeliverable" {
		t.Errorf("message %q %+v, want the wamid and title with U+FFFD for NUL", got.ProviderID, got.Failure)
	}
	c := f.liveContact(t, "+14155550100")
	if !c.OptedOut || c.ProfileName != "A\uFFFDna" {
		t.Errorf("contact opted out %v, profile name %q; want opted out, A\uFFFDna", c.OptedOut, c.ProfileName)
	}
	if th := f.liveThread(t, "+14155550100"); len(th) != 1 || th[0].Body != "STOP\uFFFD" || th[0].ProviderID != "wamid.STOP\uFFFD" {
		t.Errorf("thread %+v, want STOP\uFFFD from wamid.STOP\uFFFD", th)
	}
}

// liveContact is the live contact of the default workspace with phone: the
// one Meta's messages reach.
func (f *fixture) liveContact(t *testing.T, phone string) domain.Contact {
	t.Helper()
	cs, err := f.st.ListContactsByPhone(context.Background(), domain.ModeLive, domain.MustPhoneNumber(phone))
	if err != nil || len(cs) != 1 {
		t.Fatalf("contacts with %s: %+v (%v), want one", phone, cs, err)
	}
	return cs[0]
}

// liveThread is the thread of liveContact(phone).
func (f *fixture) liveThread(t *testing.T, phone string) []domain.Entry {
	t.Helper()
	c := f.liveContact(t, phone)
	return f.thread(t, c.Workspace, c.ID)
}

// TestSendAnswerWithNULIsStorable: the answer to a send is Meta's text too;
// its wamid and the recipient's WhatsApp id keep their characters with NUL
// replaced, and a permanent failure's title likewise.
func TestSendAnswerWithNULIsStorable(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ok, bad := f.send(t, f.principal, "+14155552671"), f.send(t, f.principal, "+14155552672")
	sender := &portsmock.WhatsAppSenderMock{SendFunc: func(ctx context.Context, om ports.OutboundMessage) (ports.SendResult, error) {
		if om.ID == bad.ID {
			return ports.SendResult{}, &ports.SendError{Class: ports.ClassPermanent, Code: 131026, Title: "Un\x00deliverable", Err: errors.New("refused")}
		}
		return ports.SendResult{ProviderID: "wamid.A\x00", WaID: "1415\x00"}, nil
	}}
	if n := dispatchOnce(t, f.dispatcher(f.st, f.st, sender, sender, delivery.Config{})); n != 2 {
		t.Fatalf("dispatched %d, want 2", n)
	}
	if got := f.message(t, ok.ID); got.ProviderID != "wamid.A\uFFFD" || got.WaID != "1415\uFFFD" {
		t.Errorf("sent message: wamid %q, wa id %q", got.ProviderID, got.WaID)
	}
	if got := f.message(t, bad.ID); got.Failure == nil || got.Failure.Title != "Un\uFFFDdeliverable" {
		t.Errorf("failed message: %+v", got.Failure)
	}
}
