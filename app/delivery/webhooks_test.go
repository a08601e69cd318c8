package delivery_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/app/delivery"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/ports/portsmock"
)

// hooks receives webhook calls on the fixture's store. Its verifier accepts
// the signature "ok" and its decoder answers each body with the batch
// registered for it, so a test says what a call reports without building Meta's JSON
// (the whatsapp adapter's tests own that part).
type hooks struct {
	f        *fixture
	batches  map[string]ports.WebhookBatch
	verifier *portsmock.WebhookVerifierMock
	decoder  *portsmock.WebhookDecoderMock
	receive  *delivery.ReceiveWebhookHandler
	replay   *delivery.ReplayWebhookEventsHandler
	n        atomic.Int64
}

func newHooks(f *fixture, tx ports.Transactor) *hooks {
	return newHooksWith(f, tx, delivery.Config{})
}

// newHooksWith is newHooks with cfg for applying.
func newHooksWith(f *fixture, tx ports.Transactor, cfg delivery.Config) *hooks {
	h := &hooks{f: f, batches: map[string]ports.WebhookBatch{}}
	h.verifier = &portsmock.WebhookVerifierMock{
		VerifySignatureFunc: func(body []byte, header string) error {
			if header != "ok" {
				return domain.ErrInvalidSignature
			}
			return nil
		},
	}
	h.decoder = &portsmock.WebhookDecoderMock{
		DecodeFunc: func(body []byte) (ports.WebhookBatch, error) {
			b, ok := h.batches[string(body)]
			if !ok {
				return ports.WebhookBatch{}, errors.New("not a webhook payload")
			}
			return forOurNumber(b), nil
		},
	}
	numbers := &portsmock.BusinessNumbersMock{IsOursFunc: func(id string) bool { return id == ourNumber }}
	apply := delivery.NewApplyWebhookEventHandler(h.decoder, numbers, tx, f.st, f.clock, f.ids, f.events, cfg, nil)
	h.receive = delivery.NewReceiveWebhookHandler(h.verifier, f.st, apply, f.clock, f.ids, nil)
	h.replay = delivery.NewReplayWebhookEventsHandler(f.st, apply, f.st, f.clock, delivery.Config{}, nil)
	return h
}

// ourNumber is the business number the tests' webhooks are for, unless an
// item names another.
const ourNumber = "106540352242922"

// forOurNumber gives the items of b that name no business number ours, as
// Meta's metadata would.
func forOurNumber(b ports.WebhookBatch) ports.WebhookBatch {
	b.Statuses, b.Inbound, b.IdentityChanges = slices.Clone(b.Statuses), slices.Clone(b.Inbound), slices.Clone(b.IdentityChanges)
	b.Preferences = slices.Clone(b.Preferences)
	ours := func(n *string) {
		if *n == "" {
			*n = ourNumber
		}
	}
	for i := range b.Statuses {
		ours(&b.Statuses[i].Number)
	}
	for i := range b.Inbound {
		ours(&b.Inbound[i].Number)
	}
	for i := range b.IdentityChanges {
		ours(&b.IdentityChanges[i].Number)
	}
	for i := range b.Preferences {
		ours(&b.Preferences[i].Number)
	}
	return b
}

// body registers b under a fresh JSON body and returns the body.
func (h *hooks) body(b ports.WebhookBatch) []byte {
	body := fmt.Sprintf(`{"call":%d}`, h.n.Add(1))
	h.batches[body] = b
	return []byte(body)
}

// post receives one call reporting b and fails the test unless it is
// stored and applied.
func (h *hooks) post(t *testing.T, b ports.WebhookBatch) delivery.WebhookReport {
	t.Helper()
	res, err := h.receive.Handle(context.Background(), delivery.ReceiveWebhook{Body: h.body(b), Signature: "ok"})
	if err != nil || !res.Applied {
		t.Fatalf("webhook: %v (applied %v, %v)", err, res.Applied, res.ApplyError)
	}
	return res.Report
}

func statuses(events ...ports.StatusEvent) ports.WebhookBatch {
	return ports.WebhookBatch{Statuses: events}
}

func inbound(events ...ports.InboundEvent) ports.WebhookBatch {
	return ports.WebhookBatch{Inbound: events}
}

func text(from, wamid, body string, at time.Time) ports.InboundEvent {
	return ports.InboundEvent{From: from, WaID: from, ProfileName: "Ana Lima",
		Message: domain.InboundMessage{ProviderID: wamid, Kind: domain.KindText, Text: body, At: at}}
}

func (f *fixture) thread(t *testing.T, ws domain.WorkspaceID, c domain.ContactID) []domain.Entry {
	t.Helper()
	es, _, err := f.st.ListEntries(context.Background(), ws, c, domain.KeyMode{}, ports.Page{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	return es
}

func (f *fixture) webhookEvents(t *testing.T) []domain.WebhookEvent {
	t.Helper()
	evs, err := f.st.ListWebhookEvents(context.Background(), ports.WebhookEventFilter{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// TestStatusesInEveryOrder delivers sent, delivered and read for one message
// in all six orders, each event twice: the message ends read with each
// status once in its history, whatever the order.
func TestStatusesInEveryOrder(t *testing.T) {
	t.Parallel()
	sent, dl, rd := domain.StatusSent, domain.StatusDelivered, domain.StatusRead
	at := map[domain.MessageStatus]time.Time{sent: t0.Add(time.Second), dl: t0.Add(2 * time.Second), rd: t0.Add(3 * time.Second)}
	for _, order := range [][]domain.MessageStatus{{sent, dl, rd}, {sent, rd, dl}, {dl, sent, rd}, {dl, rd, sent}, {rd, sent, dl}, {rd, dl, sent}} {
		t.Run(fmt.Sprint(order), func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			h := newHooks(f, f.st)
			m := f.send(t, f.principal, "+14155552671")
			applied := 0
			for _, st := range order {
				for range 2 {
					rep := h.post(t, statuses(ports.StatusEvent{MessageID: m.ID, ProviderID: "wamid.A", Status: st, At: at[st]}))
					applied += rep.Statuses
				}
			}
			if applied != 3 {
				t.Errorf("%d events changed the message, want 3 (the duplicates change nothing)", applied)
			}
			got := f.message(t, m.ID)
			want := []domain.StatusChange{{Status: domain.StatusQueued, At: t0}, {Status: sent, At: at[sent]}, {Status: dl, At: at[dl]}, {Status: rd, At: at[rd]}}
			if got.Status != rd || got.ProviderID != "wamid.A" {
				t.Errorf("status %v, wamid %q; want read, wamid.A", got.Status, got.ProviderID)
			}
			if diff := cmp.Diff(want, got.History, cmpDomain); diff != "" {
				t.Errorf("history (-want +got):\n%s", diff)
			}
		})
	}
}

// TestFailedAfterSent keeps Meta's reason; a failure reported after the
// message was read does not change it (read is final).
func TestFailedAfterSent(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	h := newHooks(f, f.st)
	failure := &domain.Failure{Code: 131049, Title: "This message was not delivered to maintain healthy ecosystem engagement."}
	m := f.send(t, f.principal, "+14155552671")
	h.post(t, statuses(ports.StatusEvent{MessageID: m.ID, ProviderID: "wamid.A", Status: domain.StatusSent, At: t0,
		Pricing: &domain.Pricing{Model: "PMP", Type: "regular", Category: "marketing", Billable: true}}))
	h.post(t, statuses(ports.StatusEvent{MessageID: m.ID, ProviderID: "wamid.A", Status: domain.StatusFailed, At: t0.Add(time.Second), Failure: failure}))
	got := f.message(t, m.ID)
	if got.Status != domain.StatusFailed || !cmp.Equal(got.Failure, failure) {
		t.Errorf("after failed: %v %+v, want failed with %+v", got.Status, got.Failure, failure)
	}
	if want := (&domain.Pricing{Model: "PMP", Type: "regular", Category: "marketing", Billable: true}); !cmp.Equal(got.Pricing, want) {
		t.Errorf("pricing %+v, want %+v", got.Pricing, want)
	}
	stats, err := app.NewGetCampaignStatsHandler(f.st, f.st, f.clock, nil).Handle(context.Background(),
		app.GetCampaignStats{Principal: f.principal, CampaignID: string(f.campaign.ID)})
	if err != nil {
		t.Fatal(err)
	}
	if stats.Stats.Counts[domain.StatusFailed] != 1 || stats.Stats.FailuresByCode[domain.FailureKey{Code: 131049}] != 1 {
		t.Errorf("stats %+v, want one failure with code 131049", stats.Stats)
	}

	read := f.send(t, f.principal, "+14155552672")
	h.post(t, statuses(ports.StatusEvent{MessageID: read.ID, ProviderID: "wamid.B", Status: domain.StatusRead, At: t0}))
	rep := h.post(t, statuses(ports.StatusEvent{MessageID: read.ID, ProviderID: "wamid.B", Status: domain.StatusFailed, At: t0.Add(time.Second), Failure: failure}))
	if got := f.message(t, read.ID); got.Status != domain.StatusRead || got.Failure != nil || rep.Statuses != 1 {
		t.Errorf("failed after read: %v %+v (changed %d), want read, no failure, the event in the history", got.Status, got.Failure, rep.Statuses)
	}
}

// TestStatusBeforeTheSendIsRecorded parks a status that names only a wamid
// no message holds yet, and applies it once the send's answer records
// that wamid: through a later event carrying our id, or the dispatcher.
func TestStatusBeforeTheSendIsRecorded(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	h := newHooks(f, f.st)
	m := f.send(t, f.principal, "+14155552671")
	rep := h.post(t, statuses(ports.StatusEvent{ProviderID: "wamid.EARLY", Status: domain.StatusDelivered, At: t0.Add(2 * time.Second)}))
	if rep.Parked != 1 {
		t.Fatalf("report %+v, want the status parked", rep)
	}
	h.post(t, statuses(ports.StatusEvent{MessageID: m.ID, ProviderID: "wamid.EARLY", Status: domain.StatusSent, At: t0.Add(time.Second)}))
	if got := f.message(t, m.ID); got.Status != domain.StatusDelivered || len(got.History) != 3 {
		t.Errorf("after the wamid became known: %v %+v, want delivered with queued, sent, delivered", got.Status, got.History)
	}
	if left, err := f.st.TakeParkedStatuses(context.Background(), "wamid.EARLY"); err != nil || len(left) != 0 {
		t.Errorf("still parked: %+v (%v)", left, err)
	}

	// The dispatcher records the wamid of Meta's answer and applies what
	// was parked for it.
	m2 := f.send(t, f.principal, "+14155552672")
	h.post(t, statuses(ports.StatusEvent{ProviderID: "wamid.RACE", Status: domain.StatusRead, At: t0.Add(time.Second)}))
	live := &portsmock.WhatsAppSenderMock{SendFunc: func(ctx context.Context, om ports.OutboundMessage) (ports.SendResult, error) {
		if om.ID == m2.ID {
			return ports.SendResult{ProviderID: "wamid.RACE", WaID: "14155552672"}, nil
		}
		return ports.SendResult{ProviderID: "wamid.OTHER"}, nil
	}}
	dispatchOnce(t, f.dispatcher(f.st, f.st, live, live, delivery.Config{}))
	if got := f.message(t, m2.ID); got.Status != domain.StatusRead || got.ProviderID != "wamid.RACE" {
		t.Errorf("after dispatch: %v %q, want read with wamid.RACE", got.Status, got.ProviderID)
	}
}

// TestWebhookEventsAreStoredBeforeTheyApply: a bad signature or a body that
// is not JSON stores nothing; an event that fails to apply is kept, answered
// as received, and applied by the retry loop; a repeated body is stored once.
func TestWebhookEventsAreStoredBeforeTheyApply(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	m := f.send(t, f.principal, "+14155552671")

	var failing atomic.Bool
	failing.Store(true)
	tx := &portsmock.TransactorMock{WithinTxFunc: func(ctx context.Context, fn func(context.Context, ports.Repos) error) error {
		if failing.Load() {
			return fmt.Errorf("database is locked: %w", ports.ErrUnavailable)
		}
		return f.st.WithinTx(ctx, fn)
	}}
	h := newHooks(f, tx)
	body := h.body(statuses(ports.StatusEvent{MessageID: m.ID, ProviderID: "wamid.A", Status: domain.StatusDelivered, At: t0}))

	if _, err := h.receive.Handle(ctx, delivery.ReceiveWebhook{Body: body, Signature: "sha256=00"}); !errors.Is(err, domain.ErrInvalidSignature) {
		t.Fatalf("bad signature: %v, want invalid_signature", err)
	}
	if _, err := h.receive.Handle(ctx, delivery.ReceiveWebhook{Body: []byte("{not json"), Signature: "ok"}); !errors.Is(err, delivery.ErrWebhookNotJSON) {
		t.Fatalf("not JSON: %v, want ErrWebhookNotJSON", err)
	}
	if evs := f.webhookEvents(t); len(evs) != 0 {
		t.Fatalf("refused calls stored %d events", len(evs))
	}

	res, err := h.receive.Handle(ctx, delivery.ReceiveWebhook{Body: body, Signature: "ok"})
	if err != nil || res.Applied || res.ApplyError == nil {
		t.Fatalf("applying with the database down: %+v, %v; want stored, not applied, no error", res, err)
	}
	evs := f.webhookEvents(t)
	if len(evs) != 1 || evs[0].AppliedAt != nil || evs[0].Attempts != 1 || evs[0].LastError == "" || string(evs[0].Body) != string(body) {
		t.Fatalf("stored events %+v, want the body kept with one failed attempt", evs)
	}
	if got := f.message(t, m.ID); got.Status != domain.StatusQueued {
		t.Fatalf("a failed apply changed the message: %v", got.Status)
	}

	// The retry loop leaves events that just arrived to the request.
	failing.Store(false)
	if n, err := h.replay.RetryOnce(ctx); err != nil || n != 0 {
		t.Fatalf("retry right away applied %d (%v), want 0", n, err)
	}
	f.clock.Advance(time.Minute)
	if n, err := h.replay.RetryOnce(ctx); err != nil || n != 1 {
		t.Fatalf("retry applied %d (%v), want 1", n, err)
	}
	if got := f.message(t, m.ID); got.Status != domain.StatusDelivered {
		t.Errorf("after the retry: %v, want delivered", got.Status)
	}

	again, err := h.receive.Handle(ctx, delivery.ReceiveWebhook{Body: body, Signature: "ok"})
	if err != nil || !again.Duplicate || !again.Applied || again.Event.ID != evs[0].ID {
		t.Errorf("the same body again: %+v (%v), want the stored event, applied, marked duplicate", again, err)
	}
	if n := len(f.webhookEvents(t)); n != 1 {
		t.Errorf("%d events stored, want 1", n)
	}
}

// TestWebhookStoredAndAppliedInOneTransaction: a call whose items all
// apply costs one transaction, which stores the event already applied; the
// same body again is answered from the stored event in one more and
// changes nothing.
func TestWebhookStoredAndAppliedInOneTransaction(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	m := f.send(t, f.principal, "+14155552671")
	var txs atomic.Int64
	tx := &portsmock.TransactorMock{WithinTxFunc: func(ctx context.Context, fn func(context.Context, ports.Repos) error) error {
		txs.Add(1)
		return f.st.WithinTx(ctx, fn)
	}}
	h := newHooks(f, tx)
	body := h.body(statuses(ports.StatusEvent{MessageID: m.ID, ProviderID: "wamid.A", Status: domain.StatusDelivered, At: t0}))

	res, err := h.receive.Handle(ctx, delivery.ReceiveWebhook{Body: body, Signature: "ok"})
	if err != nil || !res.Applied || res.Duplicate || res.Report.Statuses != 1 {
		t.Fatalf("first call: %+v, %v; want applied, one status", res, err)
	}
	if n := txs.Load(); n != 1 {
		t.Errorf("first call took %d transactions, want 1", n)
	}
	evs := f.webhookEvents(t)
	if len(evs) != 1 || evs[0].AppliedAt == nil || evs[0].Attempts != 1 || string(evs[0].Body) != string(body) {
		t.Fatalf("stored events %+v, want the body, applied at its first attempt", evs)
	}
	if got := f.message(t, m.ID); got.Status != domain.StatusDelivered {
		t.Errorf("message %v, want delivered", got.Status)
	}

	again, err := h.receive.Handle(ctx, delivery.ReceiveWebhook{Body: body, Signature: "ok"})
	if err != nil || !again.Duplicate || !again.Applied || again.Event.ID != evs[0].ID || again.Report.Statuses != 0 {
		t.Errorf("the same body again: %+v (%v), want the stored event, applied before, nothing changed", again, err)
	}
	if n := txs.Load(); n != 2 {
		t.Errorf("two calls took %d transactions, want 2", n)
	}
	if evs := f.webhookEvents(t); len(evs) != 1 || evs[0].Attempts != 1 {
		t.Errorf("after the duplicate: %+v, want one event, one attempt", evs)
	}
}

// TestWebhookOutOfTimeIsStillStored: when the request's time runs out in
// the transaction that stores and applies the call, the event is stored
// on its own and left to the retry loop, as before the two were one
// transaction.
func TestWebhookOutOfTimeIsStillStored(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	m := f.send(t, f.principal, "+14155552671")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tx := &portsmock.TransactorMock{WithinTxFunc: func(ctx context.Context, fn func(context.Context, ports.Repos) error) error {
		cancel() // the request's time runs out while the transaction waits
		return fmt.Errorf("begin transaction: %w", ctx.Err())
	}}
	h := newHooks(f, tx)
	events := timeBoundEvents{f.st}
	numbers := &portsmock.BusinessNumbersMock{IsOursFunc: func(id string) bool { return id == ourNumber }}
	receive := delivery.NewReceiveWebhookHandler(h.verifier, events,
		delivery.NewApplyWebhookEventHandler(h.decoder, numbers, tx, events, f.clock, f.ids, f.events, delivery.Config{}, nil),
		f.clock, f.ids, nil)
	body := h.body(statuses(ports.StatusEvent{MessageID: m.ID, ProviderID: "wamid.A", Status: domain.StatusRead, At: t0}))
	res, err := receive.Handle(ctx, delivery.ReceiveWebhook{Body: body, Signature: "ok"})
	if err != nil || res.Applied || res.ApplyError == nil {
		t.Fatalf("out of time: %+v, %v; want stored, not applied, no error", res, err)
	}
	evs := f.webhookEvents(t)
	if len(evs) != 1 || evs[0].AppliedAt != nil || string(evs[0].Body) != string(body) {
		t.Fatalf("stored events %+v, want the body kept, not applied", evs)
	}
	if got := f.message(t, m.ID); got.Status != domain.StatusQueued {
		t.Errorf("message %v, want it unchanged until the retry", got.Status)
	}
}

// timeBoundEvents refuses to store for a request whose time has run out,
// as the SQL stores do.
type timeBoundEvents struct{ ports.WebhookEventRepository }

func (e timeBoundEvents) SaveWebhookEvent(ctx context.Context, ev domain.WebhookEvent) (domain.WebhookEvent, bool, error) {
	if err := ctx.Err(); err != nil {
		return domain.WebhookEvent{}, false, err
	}
	return e.WebhookEventRepository.SaveWebhookEvent(ctx, ev)
}

// TestRetriesStopAfterMaxAttempts leaves an event that keeps failing to
// `herald webhooks replay`, which reports it.
func TestRetriesStopAfterMaxAttempts(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	h := newHooks(f, f.st)
	res, err := h.receive.Handle(ctx, delivery.ReceiveWebhook{Body: []byte(`{"object":"page"}`), Signature: "ok"})
	if err != nil || res.Applied {
		t.Fatalf("an undecodable event: %+v, %v; want stored and not applied", res, err)
	}
	f.clock.Advance(time.Hour)
	for range 12 {
		if _, err := h.replay.RetryOnce(ctx); err != nil {
			t.Fatal(err)
		}
	}
	evs := f.webhookEvents(t)
	if len(evs) != 1 || evs[0].Attempts != 10 {
		t.Fatalf("events %+v, want one with 10 attempts", evs)
	}
	out, err := h.replay.Handle(ctx, delivery.ReplayWebhookEvents{})
	if err != nil || len(out) != 1 || out[0].Err == nil || out[0].Event.Attempts != 11 {
		t.Errorf("replay: %+v (%v), want the event tried an 11th time and reported failed", out, err)
	}
}

// TestInboundMessagesBuildTheThread: a message from a new number creates
// its (live) contact in the default workspace; a reply to our template
// lands in the workspace that sent it, pointing at our message; a
// redelivered message is recorded once.
func TestInboundMessagesBuildTheThread(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	h := newHooks(f, f.st)
	ws := f.principal.Workspace

	rep := h.post(t, inbound(text("14155550100", "wamid.IN1", "Hola, ¿tienen otro color? 😀", t0.Add(-time.Minute))))
	if rep.Inbound != 1 {
		t.Fatalf("report %+v", rep)
	}
	c := f.contactOf(t, ws, domain.ModeLive, "+14155550100")
	if c.WaID != "14155550100" || c.ProfileName != "Ana Lima" || c.Name != "" || c.LastMessageAt == nil || !c.LastMessageAt.Equal(t0.Add(-time.Minute)) {
		t.Errorf("new contact %+v", c)
	}
	want := []domain.Entry{{Workspace: ws, ContactID: c.ID, ConversationID: c.ConversationID, Mode: domain.ModeLive, Direction: domain.Inbound,
		Kind: domain.KindText, Body: "Hola, ¿tienen otro color? 😀", ProviderID: "wamid.IN1", CreatedAt: t0.Add(-time.Minute)}}
	if diff := cmp.Diff(want, f.thread(t, ws, c.ID), cmpDomain, cmpIgnoreEntryID); diff != "" {
		t.Errorf("thread (-want +got):\n%s", diff)
	}
	if rep := h.post(t, inbound(text("14155550100", "wamid.IN1", "Hola, ¿tienen otro color? 😀", t0.Add(-time.Minute)))); rep.Repeated != 1 || rep.Inbound != 0 {
		t.Errorf("redelivery: %+v, want it recognised", rep)
	}

	// A quick-reply button on a template the other workspace sent.
	otherWS, otherCampaign := f.otherWorkspace(t)
	other := domain.Principal{Workspace: otherWS, Key: f.principal.Key, Mode: domain.ModeLive}
	res, err := f.sender(f.st, nil).Handle(context.Background(), app.SendCampaignMessage{Principal: other,
		PhoneNumber: "+14155550100", CampaignID: string(otherCampaign.ID), Variables: []string{"Ana", "1"}})
	if err != nil {
		t.Fatal(err)
	}
	h.post(t, statuses(ports.StatusEvent{MessageID: res.Message.ID, ProviderID: "wamid.OUT", Status: domain.StatusSent, At: t0}))
	button := ports.InboundEvent{From: "14155550100", WaID: "14155550100", ProfileName: "Ana",
		Message: domain.InboundMessage{ProviderID: "wamid.IN2", Kind: domain.KindButton, Text: "Yes, book it", Payload: "BOOK", ReplyTo: "wamid.OUT", At: t0.Add(time.Minute)}}
	h.post(t, inbound(button))
	oc := f.contactOf(t, otherWS, domain.ModeLive, "+14155550100")
	thread := f.thread(t, otherWS, oc.ID)
	if len(thread) != 2 || thread[0].ReplyTo != res.Message.ID || thread[0].Payload != "BOOK" || thread[0].Kind != domain.KindButton {
		t.Errorf("the other workspace's thread %+v, want the button reply on top, pointing at %s", thread, res.Message.ID)
	}
	if n := len(f.thread(t, ws, c.ID)); n != 1 {
		t.Errorf("the default workspace's thread has %d entries, want 1: the reply went to the workspace that sent the template", n)
	}
	if oc.ProfileName != "Ana" {
		t.Errorf("profile name %q, want the latest, Ana", oc.ProfileName)
	}
}

var cmpIgnoreEntryID = cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".ID" }, cmp.Ignore())

// TestStopAndStart: STOP opts the number's live contacts out in every
// workspace, so live sends are refused with contact_opted_out; START opts
// them back in; a stale START written before the STOP changes nothing; a
// STOP delivered again after a START changes nothing either. The number's
// test contact, which no person ever hears from, keeps its own opt-out.
func TestStopAndStart(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	h := newHooks(f, f.st)
	ctx := context.Background()
	otherWS, _ := f.otherWorkspace(t)
	phone := "+14155552671"
	live := f.principal
	live.Mode = domain.ModeLive
	f.send(t, live, phone)
	f.send(t, f.principal, phone)
	if _, err := app.NewSyncContactHandler(f.st, f.clock, f.ids, nil, nil).Handle(ctx, app.SyncContact{
		Principal: domain.Principal{Workspace: otherWS, Mode: domain.ModeLive}, PhoneNumber: phone}); err != nil {
		t.Fatal(err)
	}
	optedOut := func() []bool {
		return []bool{f.contactOf(t, f.principal.Workspace, domain.ModeLive, phone).OptedOut,
			f.contactOf(t, otherWS, domain.ModeLive, phone).OptedOut}
	}

	stop := text("14155552671", "wamid.STOP", " stop! ", t0.Add(time.Minute))
	if rep := h.post(t, inbound(stop)); rep.OptedOut != 2 {
		t.Errorf("STOP report %+v, want 2 contacts opted out", rep)
	}
	if got := optedOut(); !cmp.Equal(got, []bool{true, true}) {
		t.Fatalf("after STOP: %v, want opted out everywhere", got)
	}
	_, err := f.sender(f.st, nil).Handle(ctx, app.SendCampaignMessage{Principal: live, PhoneNumber: phone,
		CampaignID: string(f.campaign.ID), Variables: []string{"Ana", "1"}})
	if !errors.Is(err, domain.ErrContactOptedOut) {
		t.Fatalf("live send after STOP: %v, want contact_opted_out", err)
	}
	if f.contact(t, f.principal.Workspace, phone).OptedOut {
		t.Error("STOP opted the number's test contact out")
	}
	f.send(t, f.principal, phone) // the sandbox reaches no one

	h.post(t, inbound(text("14155552671", "wamid.OLDSTART", "START", t0)))
	if got := optedOut(); !cmp.Equal(got, []bool{true, true}) {
		t.Errorf("after a START written before the STOP: %v, want still opted out", got)
	}
	if rep := h.post(t, inbound(text("14155552671", "wamid.START", "Start", t0.Add(2*time.Minute)))); rep.OptedIn != 2 {
		t.Errorf("START report %+v", rep)
	}
	h.post(t, inbound(stop)) // Meta delivers the STOP again
	if got := optedOut(); !cmp.Equal(got, []bool{false, false}) {
		t.Errorf("after START and a redelivered STOP: %v, want opted in everywhere", got)
	}
	f.send(t, live, phone)
}

// TestTemplateStatusWebhook pauses every campaign on the template, in every
// workspace, and records the status on the synced template.
func TestTemplateStatusWebhook(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	h := newHooks(f, f.st)
	ctx := context.Background()
	_, theirs := f.otherWorkspace(t)
	if err := f.st.ReplaceTemplates(ctx, "waba1", []domain.SyncedTemplate{{Account: "waba1", Name: "welcome", Language: "en_US",
		Status: domain.TemplateApproved, Category: "UTILITY", Definition: f.campaign.Template, SyncedAt: t0}}); err != nil {
		t.Fatal(err)
	}
	rep := h.post(t, ports.WebhookBatch{Templates: []ports.TemplateStatusEvent{{Account: "waba1", Name: "welcome", Language: "en_US",
		Status: domain.TemplatePaused, Event: "PAUSED", Reason: "NONE", At: t0}}})
	if rep.Templates != 2 {
		t.Errorf("report %+v, want 2 campaigns changed", rep)
	}
	for _, c := range []domain.Campaign{f.campaign, theirs} {
		got, err := f.st.GetCampaign(ctx, c.Workspace, c.ID)
		if err != nil || got.TemplateStatus != domain.TemplatePaused {
			t.Errorf("campaign %s: %v (%v), want PAUSED", c.ID, got.TemplateStatus, err)
		}
	}
	if st, err := f.st.GetTemplate(ctx, "waba1", "welcome", "en_US"); err != nil || st.Status != domain.TemplatePaused {
		t.Errorf("synced template: %v (%v), want PAUSED", st.Status, err)
	}
	_, err := f.sender(f.st, nil).Handle(ctx, app.SendCampaignMessage{Principal: f.principal, PhoneNumber: "+14155552671",
		CampaignID: string(f.campaign.ID), Variables: []string{"Ana", "1"}})
	if !errors.Is(err, domain.ErrCampaignNotActive) {
		t.Errorf("send on a paused template: %v, want campaign_not_active", err)
	}
}

// TestReplayChangesNothingTwice replays applied events by id and by time:
// everything stays as the first application left it.
func TestReplayChangesNothingTwice(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	h := newHooks(f, f.st)
	ctx := context.Background()
	m := f.send(t, f.principal, "+14155552671")
	h.post(t, statuses(ports.StatusEvent{MessageID: m.ID, ProviderID: "wamid.A", Status: domain.StatusRead, At: t0}))
	h.post(t, inbound(text("14155552671", "wamid.IN", "STOP", t0)))
	before, contact := f.message(t, m.ID), f.contactOf(t, f.principal.Workspace, domain.ModeLive, "+14155552671")

	evs := f.webhookEvents(t)
	out, err := h.replay.Handle(ctx, delivery.ReplayWebhookEvents{ID: string(evs[0].ID)})
	if err != nil || len(out) != 1 || out[0].Err != nil || out[0].Report.Unchanged != 1 {
		t.Fatalf("replay by id: %+v (%v)", out, err)
	}
	out, err = h.replay.Handle(ctx, delivery.ReplayWebhookEvents{Since: t0.Add(-time.Hour)})
	if err != nil || len(out) != 2 || out[1].Report.Repeated != 1 {
		t.Fatalf("replay since: %+v (%v)", out, err)
	}
	if diff := cmp.Diff(before, f.message(t, m.ID), cmpDomain); diff != "" {
		t.Errorf("the message changed (-before +after):\n%s", diff)
	}
	if diff := cmp.Diff(contact, f.contactOf(t, f.principal.Workspace, domain.ModeLive, "+14155552671"), cmpDomain); diff != "" {
		t.Errorf("the contact changed (-before +after):\n%s", diff)
	}
	if _, err := h.replay.Handle(ctx, delivery.ReplayWebhookEvents{ID: "whk_" + strconv.Itoa(1)}); !errors.Is(err, domain.ErrWebhookEventNotFound) {
		t.Errorf("replay of a malformed id: %v, want webhook_event_not_found", err)
	}
}

// TestAmbiguousSendReportedByMetaIsNotSentAgain: the send's answer was lost,
// but Meta's sent webhook (matched by our id) shows it took the message;
// when the retry comes due the message is released without a second send.
func TestAmbiguousSendReportedByMetaIsNotSentAgain(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	h := newHooks(f, f.st)
	m := f.send(t, f.principal, "+14155552671")
	var calls atomic.Int64
	sender := &portsmock.WhatsAppSenderMock{SendFunc: func(ctx context.Context, om ports.OutboundMessage) (ports.SendResult, error) {
		calls.Add(1)
		return ports.SendResult{}, &ports.SendError{Class: ports.ClassRetryable, Ambiguous: true, Err: context.DeadlineExceeded}
	}}
	d := f.dispatcher(f.st, f.st, sender, sender, delivery.Config{})
	if n := dispatchOnce(t, d); n != 1 || calls.Load() != 1 {
		t.Fatalf("first dispatch: %d claimed, %d sends", n, calls.Load())
	}
	h.post(t, statuses(ports.StatusEvent{MessageID: m.ID, ProviderID: "wamid.LOST", Status: domain.StatusSent, At: t0}))
	f.clock.Advance(time.Hour) // the retry is due
	if n := dispatchOnce(t, d); n != 1 {
		t.Fatalf("the retry was not claimed (%d)", n)
	}
	if calls.Load() != 1 {
		t.Errorf("%d sends, want 1: Meta had reported the message", calls.Load())
	}
	if got := f.message(t, m.ID); got.Status != domain.StatusSent || got.ProviderID != "wamid.LOST" {
		t.Errorf("message %v %q, want sent with wamid.LOST", got.Status, got.ProviderID)
	}
	if n := dispatchOnce(t, d); n != 0 {
		t.Errorf("the message is due again (%d claimed)", n)
	}
}
