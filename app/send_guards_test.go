package app_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/ports/portsmock"
)

func (f *fixture) keyedSend(phone string, key domain.IdempotencyKey) app.SendCampaignMessage {
	return app.SendCampaignMessage{Principal: f.principal, PhoneNumber: phone, CampaignID: string(f.campaign.ID),
		Variables: []string{"Ana", "1234"}, IdempotencyKey: key}
}

// TestIdempotencyAcrossInstances: two instances (two handlers over one
// store) race with one key. The in-process guard cannot see the other
// instance; the claim in the transaction makes exactly one message, and the
// loser replays it.
func TestIdempotencyAcrossInstances(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	// Both instances read "no record" before either commits: the first
	// lookup of each waits until both have looked.
	var looked sync.WaitGroup
	looked.Add(2)
	gate := &portsmock.IdempotencyRepositoryMock{
		FindIdempotencyRecordFunc: func(ctx context.Context, ws domain.WorkspaceID, mode domain.KeyMode, key domain.IdempotencyKey) (domain.IdempotencyRecord, bool, error) {
			rec, found, err := f.st.FindIdempotencyRecord(ctx, ws, mode, key)
			if !found {
				looked.Done()
				looked.Wait()
			}
			return rec, found, err
		},
	}
	instance := func() *app.SendCampaignMessageHandler {
		return app.NewSendCampaignMessageHandler(app.SendCampaignDeps{Tx: f.st, Campaigns: f.st, Contacts: f.st,
			Messages: f.st, Idempotency: gate, SendCounts: f.st, Clock: f.clock, IDs: f.ids, LiveSending: true})
	}
	results := make([]app.SendCampaignMessageResult, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i, h := range []*app.SendCampaignMessageHandler{instance(), instance()} {
		wg.Go(func() { results[i], errs[i] = h.Handle(t.Context(), f.keyedSend("+14155550100", "k-1")) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("instance %d: %v", i, err)
		}
	}
	if results[0].Message.ID != results[1].Message.ID || results[0].Replayed == results[1].Replayed {
		t.Fatalf("want one message, accepted once and replayed once: %s replayed=%v, %s replayed=%v",
			results[0].Message.ID, results[0].Replayed, results[1].Message.ID, results[1].Replayed)
	}
	counts, err := f.st.CountMessagesByStatus(t.Context(), f.principal.Workspace, f.campaign.ID, domain.KeyMode{})
	if err != nil || counts[domain.StatusQueued] != 1 {
		t.Fatalf("stored messages: %v, %v; want 1 queued", counts, err)
	}
}

// TestIdempotencyScopedByMode: a live key's send that reuses a test key's
// Idempotency-Key and request is a send of its own, not a replay of the
// test message (which never left the sandbox); each mode then replays its
// own message. While one mode's send is in flight, the other's is not held
// up.
func TestIdempotencyScopedByMode(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	h := f.sender(f.st, nil)
	live := f.keyedSend("+14155550100", "order-7")
	live.Principal.Mode = domain.ModeLive
	test := f.keyedSend("+14155550100", "order-7")
	first, err := h.Handle(t.Context(), test)
	if err != nil || first.Replayed || first.Message.Mode != domain.ModeTest {
		t.Fatalf("test send: %+v, %v", first, err)
	}
	second, err := h.Handle(t.Context(), live)
	if err != nil || second.Replayed || second.Message.ID == first.Message.ID || second.Message.Mode != domain.ModeLive {
		t.Fatalf("live send with the test send's key and request: %+v, %v; want a new live message", second, err)
	}
	for _, c := range []struct {
		cmd  app.SendCampaignMessage
		want domain.MessageID
	}{{test, first.Message.ID}, {live, second.Message.ID}} {
		again, err := h.Handle(t.Context(), c.cmd)
		if err != nil || !again.Replayed || again.Message.ID != c.want {
			t.Errorf("%s retry: %+v, %v; want a replay of %s", c.cmd.Principal.Mode, again, err, c.want)
		}
	}
	other := f.keyedSend("+14155550101", "order-7")
	other.Principal.Mode = domain.ModeLive
	if _, err := h.Handle(t.Context(), other); !errors.Is(err, &domain.Error{Code: domain.CodeIdempotencyKeyReused}) {
		t.Errorf("the live key with another request: %v, want idempotency_key_reused", err)
	}

	// A test send holds "order-8" in flight; a live send with it goes
	// through, and a second test send is told to retry.
	entered, release := make(chan struct{}), make(chan struct{})
	gate := &portsmock.IdempotencyRepositoryMock{
		FindIdempotencyRecordFunc: func(ctx context.Context, ws domain.WorkspaceID, mode domain.KeyMode, key domain.IdempotencyKey) (domain.IdempotencyRecord, bool, error) {
			if mode == domain.ModeTest {
				close(entered)
				<-release
			}
			return f.st.FindIdempotencyRecord(ctx, ws, mode, key)
		},
		ClaimIdempotencyKeyFunc: f.st.ClaimIdempotencyKey,
	}
	g := app.NewSendCampaignMessageHandler(app.SendCampaignDeps{Tx: f.st, Campaigns: f.st, Contacts: f.st,
		Messages: f.st, Idempotency: gate, SendCounts: f.st, Clock: f.clock, IDs: f.ids, LiveSending: true})
	test.IdempotencyKey, live.IdempotencyKey = "order-8", "order-8"
	done := make(chan error, 1)
	go func() { _, err := g.Handle(t.Context(), test); done <- err }()
	<-entered
	if res, err := g.Handle(t.Context(), live); err != nil || res.Replayed {
		t.Errorf("live send while the test send with its key is in flight: %+v, %v; want sent", res, err)
	}
	if _, err := g.Handle(t.Context(), test); !errors.Is(err, domain.ErrIdempotencyInFlight) {
		t.Errorf("second test send while the first is in flight: %v, want idempotency_in_flight", err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Errorf("the test send: %v", err)
	}
}

// TestIdempotencyRetention: a key is replayed for 24 hours, then it names a
// new send; the purge forgets it.
func TestIdempotencyRetention(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	h := f.sender(f.st, nil)
	first, err := h.Handle(t.Context(), f.keyedSend("+14155550100", "k-1"))
	if err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(domain.IdempotencyRetention)
	again, err := h.Handle(t.Context(), f.keyedSend("+14155550100", "k-1"))
	if err != nil || !again.Replayed || again.Message.ID != first.Message.ID {
		t.Fatalf("24 h after: %+v, %v; want a replay of %s", again, err, first.Message.ID)
	}
	f.clock.Advance(time.Microsecond)
	later, err := h.Handle(t.Context(), f.keyedSend("+14155550101", "k-1"))
	if err != nil || later.Replayed || later.Message.ID == first.Message.ID {
		t.Fatalf("after 24 h the key is new: %+v, %v", later, err)
	}

	if _, err := h.Handle(t.Context(), f.keyedSend("+14155550102", "k-2")); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(domain.IdempotencyRetention + time.Microsecond)
	if err := h.PurgeExpired(t.Context()); err != nil {
		t.Fatal(err)
	}
	for _, key := range []domain.IdempotencyKey{"k-1", "k-2"} {
		if _, found, _ := f.st.FindIdempotencyRecord(t.Context(), f.principal.Workspace, f.principal.Mode, key); found {
			t.Errorf("%s survived the purge 24 h after its send", key)
		}
	}
}

// TestIdempotencyNothingStoredOnFailure: when the send's transaction fails,
// the key is not claimed, and a retry with the same key sends.
func TestIdempotencyNothingStoredOnFailure(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	broken := &portsmock.TransactorMock{WithinTxFunc: func(ctx context.Context, fn func(context.Context, ports.Repos) error) error {
		return f.st.WithinTx(ctx, func(ctx context.Context, r ports.Repos) error {
			if err := fn(ctx, r); err != nil {
				return err
			}
			return ports.ErrUnavailable // the commit fails after every write
		})
	}}
	_, err := f.sender(broken, nil).Handle(t.Context(), f.keyedSend("+14155550100", "k-1"))
	if !errors.Is(err, ports.ErrUnavailable) {
		t.Fatalf("send through a failing commit: %v", err)
	}
	res, err := f.sender(f.st, nil).Handle(t.Context(), f.keyedSend("+14155550100", "k-1"))
	if err != nil || res.Replayed {
		t.Fatalf("retry after the failed commit: %+v, %v; want a new send", res, err)
	}
}

// TestDailySendCapCountsPerMode: the cap counts live and test sends apart,
// and a new UTC day starts from zero.
func TestDailySendCapCountsPerMode(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	h := app.NewSendCampaignMessageHandler(app.SendCampaignDeps{Tx: f.st, Campaigns: f.st, Contacts: f.st,
		Messages: f.st, Idempotency: f.st, SendCounts: f.st, Clock: f.clock, IDs: f.ids,
		Config: app.Config{DailySendCap: 1}, LiveSending: true})
	send := func(mode domain.KeyMode, phone string) error {
		p := f.principal
		p.Mode = mode
		cmd := f.keyedSend(phone, "")
		cmd.Principal = p
		_, err := h.Handle(t.Context(), cmd)
		return err
	}
	if err := send(domain.ModeTest, "+14155550100"); err != nil {
		t.Fatal(err)
	}
	err := send(domain.ModeTest, "+14155550101")
	var re *domain.RetryableError
	if !errors.As(err, &re) || !errors.Is(err, &domain.Error{Code: domain.CodeDailySendCapReached}) {
		t.Fatalf("second test send under a cap of 1: %v", err)
	}
	// t0 is 10:00 UTC: sends resume in 14 hours.
	if re.After != 14*time.Hour {
		t.Fatalf("retry after %s, want 14h (midnight UTC)", re.After)
	}
	if err := send(domain.ModeLive, "+14155550101"); err != nil {
		t.Fatalf("a live send counted against the test cap: %v", err)
	}
	f.clock.Advance(14 * time.Hour)
	if err := send(domain.ModeTest, "+14155550102"); err != nil {
		t.Fatalf("a new day: %v", err)
	}
}
