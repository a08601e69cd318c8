package app_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/ports/portsmock"
	"github.com/heraldhq/herald/ports/porttest"
)

// gate is a Transactor over the fixture's store that holds its first
// transactions (one per batch runner) until released, so that the sends
// arriving meanwhile queue into one batch behind them.
type gate struct {
	st      ports.Transactor
	held    chan struct{} // a held transaction has started waiting
	release chan struct{}
	before  func(n int) // runs before the n-th transaction, counted from 1; may be nil

	mu    sync.Mutex
	calls int
}

func newGate(st ports.Transactor) *gate {
	return &gate{st: st, held: make(chan struct{}, app.SendBatchRunners), release: make(chan struct{})}
}

func (g *gate) WithinTx(ctx context.Context, fn func(context.Context, ports.Repos) error) error {
	g.mu.Lock()
	g.calls++
	n := g.calls
	g.mu.Unlock()
	if n <= app.SendBatchRunners {
		g.held <- struct{}{}
		<-g.release
	}
	if g.before != nil {
		g.before(n)
	}
	return g.st.WithinTx(ctx, fn)
}

func (g *gate) transactions() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.calls
}

// batchSender builds a send handler over the fixture's store whose
// transactions go through tx.
func (f *fixture) batchSender(tx ports.Transactor, cfg app.Config) *app.SendCampaignMessageHandler {
	return app.NewSendCampaignMessageHandler(app.SendCampaignDeps{Tx: tx, Campaigns: f.st, Contacts: f.st,
		Messages: f.st, Idempotency: f.st, SendCounts: f.st, Media: porttest.MediaByExtension(),
		Clock: f.clock, IDs: f.ids, Config: cfg, Obs: usecase.NewObserver(nil)})
}

type sendResult struct {
	res app.SendCampaignMessageResult
	err error
}

// sendBatched occupies h's runners with one send each (to numbers of their
// own), queues cmds behind them one after the other, and releases the gate
// once all of cmds wait: cmds are then stored as one batch, in their
// order. It returns cmds' results in order.
func sendBatched(t *testing.T, f *fixture, h *app.SendCampaignMessageHandler, g *gate, cmds ...app.SendCampaignMessage) []sendResult {
	t.Helper()
	var wg sync.WaitGroup
	for i := range app.SendBatchRunners {
		wg.Go(func() {
			if _, err := h.Handle(t.Context(), f.keyedSend(fmt.Sprintf("+1415555090%d", i), "")); err != nil {
				t.Errorf("a send holding a runner: %v", err)
			}
		})
		<-g.held
	}
	out := make([]sendResult, len(cmds))
	for i, cmd := range cmds {
		wg.Go(func() {
			res, err := h.Handle(t.Context(), cmd)
			out[i] = sendResult{res, err}
		})
		waitFor(t, "the send to queue", func() bool { return h.QueuedSends() == i+1 })
	}
	close(g.release)
	wg.Wait()
	return out
}

// waitFor yields until cond holds, failing the test after a while.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); runtime.Gosched() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// TestConcurrentSendsShareOneTransaction: sends that arrive together are
// stored in one transaction, and each keeps its own outcome: two sends to a
// new number make one contact with both messages in its thread, and a send to
// an opted-out contact is refused without touching it.
func TestConcurrentSendsShareOneTransaction(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	const fresh, other, optedOut = "+14155550201", "+14155550202", "+14155550203"
	f.send(t, f.principal, optedOut)
	before, err := app.NewSyncContactHandler(f.st, f.clock, f.ids, nil, nil).Handle(t.Context(), app.SyncContact{
		Principal: f.principal, PhoneNumber: optedOut, Changes: domain.ContactSync{OptedOut: ptr(true)}})
	if err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(time.Minute)
	g := newGate(f.st)
	h := f.batchSender(g, app.Config{})

	got := sendBatched(t, f, h, g, f.keyedSend(fresh, ""), f.keyedSend(fresh, ""), f.keyedSend(optedOut, ""), f.keyedSend(other, ""))

	if n := g.transactions(); n != app.SendBatchRunners+1 {
		t.Fatalf("%d transactions, want %d for the held sends and 1 for the batch", n, app.SendBatchRunners+1)
	}
	for _, i := range []int{0, 1, 3} {
		if got[i].err != nil {
			t.Fatalf("send %d: %v", i, got[i].err)
		}
	}
	if !errors.Is(got[2].err, domain.ErrContactOptedOut) {
		t.Fatalf("send to the opted-out contact: %v, want contact_opted_out", got[2].err)
	}
	if a, b := got[0].res.Message.ContactID, got[1].res.Message.ContactID; a != b {
		t.Fatalf("two sends to one new number made contacts %s and %s", a, b)
	}
	if contacts, _, entries := f.stored(t, f.principal.Workspace, fresh); contacts != 1 || entries != 2 {
		t.Fatalf("the new number has %d contacts and %d thread entries, want 1 and 2", contacts, entries)
	}
	c := f.contact(t, f.principal.Workspace, fresh)
	if c.LastMessageAt == nil || !c.LastMessageAt.Equal(t0.Add(time.Minute)) {
		t.Fatalf("the new contact's last message time is %v, want the sends' time", c.LastMessageAt)
	}
	for i, r := range got {
		if r.err == nil {
			if m := f.message(t, r.res.Message.ID); m.Status != domain.StatusQueued {
				t.Fatalf("send %d's message reads back %s", i, m.Status)
			}
		}
	}
	if _, _, entries := f.stored(t, f.principal.Workspace, optedOut); entries != 1 {
		t.Fatalf("the opted-out contact's thread has %d entries, want only the first send's", entries)
	}
	if after := f.contact(t, f.principal.Workspace, optedOut); !after.UpdatedAt.Equal(before.Contact.UpdatedAt) {
		t.Fatalf("the refused send touched the opted-out contact: updated %v, was %v", after.UpdatedAt, before.Contact.UpdatedAt)
	}
}

// TestBatchDropsASendWhoseKeyAnotherInstanceClaimed: another instance claims
// a send's Idempotency-Key while the send waits in a batch. The send replays
// the other instance's message, the rest of the batch is stored, and the
// daily count holds only the stored sends (the batch ran again without the
// dropped send, whose count rolled back).
func TestBatchDropsASendWhoseKeyAnotherInstanceClaimed(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	const limit = 5
	cfg := app.Config{DailySendCap: limit}
	g := newGate(f.st)
	h := f.batchSender(g, cfg)
	other := f.batchSender(f.st, cfg)
	keyed := f.keyedSend("+14155550301", "order-7")
	var theirs domain.MessageID
	g.before = func(n int) {
		if n != app.SendBatchRunners+1 {
			return
		}
		res, err := other.Handle(t.Context(), keyed)
		if err != nil {
			t.Errorf("the other instance's send: %v", err)
		}
		theirs = res.Message.ID
	}

	got := sendBatched(t, f, h, g, keyed, f.keyedSend("+14155550302", ""))

	if got[0].err != nil || !got[0].res.Replayed || got[0].res.Message.ID != theirs {
		t.Fatalf("the send whose key was claimed: %+v (%v), want a replay of message %s", got[0].res, got[0].err, theirs)
	}
	if got[1].err != nil {
		t.Fatalf("the other send of the batch: %v", got[1].err)
	}
	if n := g.transactions(); n != app.SendBatchRunners+2 {
		t.Fatalf("%d transactions, want the held sends', the batch's, and its second run's", n)
	}
	// Stored so far: the two held sends, the other instance's and the
	// batch's second send, 4 of the 5 allowed.
	if _, err := h.Handle(t.Context(), f.keyedSend("+14155550303", "")); err != nil {
		t.Fatalf("the fifth send of the day: %v (the dropped send was counted)", err)
	}
	if _, err := h.Handle(t.Context(), f.keyedSend("+14155550304", "")); !errors.Is(err, &domain.Error{Code: domain.CodeDailySendCapReached}) {
		t.Fatalf("the sixth send of the day: %v, want daily_send_cap_reached", err)
	}
}

// TestSendLeavesTheQueueWhenCancelled: a send whose caller gives up while
// it waits for a batch is never stored.
func TestSendLeavesTheQueueWhenCancelled(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	g := newGate(f.st)
	h := f.batchSender(g, app.Config{})
	var wg sync.WaitGroup
	for i := range app.SendBatchRunners {
		wg.Go(func() { _, _ = h.Handle(t.Context(), f.keyedSend(fmt.Sprintf("+1415555090%d", i), "")) })
		<-g.held
	}
	ctx, cancel := context.WithCancel(t.Context())
	errc := make(chan error, 1)
	go func() {
		_, err := h.Handle(ctx, f.keyedSend(phone, ""))
		errc <- err
	}()
	waitFor(t, "the send to queue", func() bool { return h.QueuedSends() == 1 })
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled send: %v, want context.Canceled", err)
	}
	close(g.release)
	wg.Wait()
	if h.QueuedSends() != 0 {
		t.Fatal("the cancelled send is still queued")
	}
	if contacts, _, entries := f.stored(t, f.principal.Workspace, phone); contacts != 0 || entries != 0 {
		t.Fatalf("a cancelled send left %d contacts and %d entries", contacts, entries)
	}
}

// TestSendSeesACampaignChangedAfterItWasRemembered: sends read their
// campaign from memory, yet a campaign paused elsewhere (another instance,
// the dashboard) refuses the very next send, and sends resume once it is
// active again.
func TestSendSeesACampaignChangedAfterItWasRemembered(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	campaigns := &portsmock.CampaignRepositoryMock{GetCampaignFunc: f.st.GetCampaign}
	h := app.NewSendCampaignMessageHandler(app.SendCampaignDeps{Tx: f.st, Campaigns: campaigns, Contacts: f.st,
		Messages: f.st, Idempotency: f.st, SendCounts: f.st, Clock: f.clock, IDs: f.ids, Obs: usecase.NewObserver(nil)})
	for i := range 3 {
		if _, err := h.Handle(ctx, f.keyedSend(fmt.Sprintf("+1415555040%d", i), "")); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(campaigns.GetCampaignCalls()); n != 1 {
		t.Fatalf("three sends read the campaign outside their transactions %d times, want once", n)
	}

	status := func(to domain.CampaignStatus) {
		t.Helper()
		if _, err := app.NewChangeCampaignStatusHandler(f.st, f.st, f.def, f.clock, nil).Handle(ctx, app.ChangeCampaignStatus{
			Workspace: string(f.principal.Workspace), CampaignID: string(f.campaign.ID), To: to}); err != nil {
			t.Fatal(err)
		}
		f.clock.Advance(time.Second)
	}
	status(domain.CampaignPaused)
	_, err := h.Handle(ctx, f.keyedSend("+14155550410", ""))
	if !errors.Is(err, domain.ErrCampaignNotActive) {
		t.Fatalf("a send after the campaign was paused: %v, want campaign_not_active", err)
	}
	if contacts, _, _ := f.stored(t, f.principal.Workspace, "+14155550410"); contacts != 0 {
		t.Fatal("the refused send stored its contact")
	}
	status(domain.CampaignActive)
	if _, err := h.Handle(ctx, f.keyedSend("+14155550411", "")); err != nil {
		t.Fatalf("a send after the campaign was activated again: %v", err)
	}
}
