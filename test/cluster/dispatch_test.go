package cluster

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/heraldhq/herald/adapters/sqlstore"
	"github.com/heraldhq/herald/adapters/system"
	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/app/delivery"
	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/test/testenv"
)

// countingSender records how often each message is sent, and closes all
// once every one of want messages has been sent at least once.
type countingSender struct {
	mu    sync.Mutex
	sends map[domain.MessageID]int
	want  int
	all   chan struct{}
}

func (s *countingSender) Send(ctx context.Context, m ports.OutboundMessage) (ports.SendResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sends[m.ID]++
	if len(s.sends) == s.want && s.sends[m.ID] == 1 {
		close(s.all)
	}
	return ports.SendResult{ProviderID: "wamid." + string(m.ID)}, nil
}

func openStore(t *testing.T, url string) *sqlstore.Store {
	t.Helper()
	db, d, err := sqlstore.Open(context.Background(), sqlstore.Config{DatabaseURL: url, MaxOpenConns: 8})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return sqlstore.New(db, d)
}

// TestThreeDispatchersSendEachMessageOnce: three dispatchers, each with its
// own connection pool, claim from one PostgreSQL queue with FOR UPDATE SKIP
// LOCKED; 3,000 messages are each sent exactly once.
func TestThreeDispatchersSendEachMessageOnce(t *testing.T) {
	t.Parallel()
	const messages, instances = 3000, 3
	url := testenv.PostgresDatabase(t)
	ctx := context.Background()
	db, d, err := sqlstore.Open(ctx, sqlstore.Config{DatabaseURL: url})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := sqlstore.Migrate(ctx, db, d); err != nil {
		t.Fatal(err)
	}
	setup := sqlstore.New(db, d)
	clock, ids := system.Clock{}, system.NewIDs()
	key, camp := seed(t, setup)
	principal := domain.Principal{Workspace: key.Key.Workspace, Key: key.Key.ID, Mode: domain.ModeLive}
	send := app.NewSendCampaignMessageHandler(app.SendCampaignDeps{Tx: setup, Campaigns: setup, Contacts: setup,
		Messages: setup, Idempotency: setup, SendCounts: setup, Clock: clock, IDs: ids, LiveSending: true})
	var wg sync.WaitGroup
	errs := make(chan error, messages)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < messages; i += 8 {
				_, err := send.Handle(ctx, app.SendCampaignMessage{Principal: principal,
					PhoneNumber: fmt.Sprintf("+1415555%04d", i), CampaignID: string(camp.ID), Variables: []string{"Ana"}})
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("accepting messages: %v", err)
	}

	sender := &countingSender{sends: map[domain.MessageID]int{}, want: messages, all: make(chan struct{})}
	runCtx, stop := context.WithCancel(ctx)
	var running sync.WaitGroup
	for range instances {
		st := openStore(t, url)
		dsp := delivery.NewDispatcher(st, st, st, st, delivery.Senders{Live: sender, Sandbox: sender}, clock, system.NewIDs(), nil, nil,
			delivery.Config{DispatchBatch: 50, DispatchPoll: 10 * time.Millisecond, LeaseDuration: time.Minute}, usecase.NewObserver(nil))
		running.Add(1)
		go func() { defer running.Done(); dsp.Run(runCtx) }()
	}
	select {
	case <-sender.all:
	case <-time.After(2 * time.Minute):
		t.Error("not every message was sent within two minutes")
	}
	stop()
	running.Wait() // each dispatcher finishes and records its sends in flight

	sender.mu.Lock()
	defer sender.mu.Unlock()
	dup := 0
	for id, n := range sender.sends {
		if n != 1 {
			dup++
			t.Errorf("message %s sent %d times", id, n)
		}
	}
	if len(sender.sends) != messages || dup > 0 {
		t.Fatalf("%d of %d messages sent, %d more than once", len(sender.sends), messages, dup)
	}
	var due int
	if err := db.GetContext(ctx, &due, `SELECT count(*) FROM messages WHERE due_at IS NOT NULL OR lease_owner IS NOT NULL`); err != nil {
		t.Fatal(err)
	}
	if due != 0 {
		t.Errorf("%d messages are still due or leased after every send was recorded", due)
	}
}

// seed makes a live key and an active campaign "Hi {{1}}" in the default
// workspace.
func seed(t *testing.T, st *sqlstore.Store) (app.CreatedKey, domain.Campaign) {
	t.Helper()
	ctx := context.Background()
	clock, ids := system.Clock{}, system.NewIDs()
	def := app.NewEnsureDefaultWorkspaceHandler(st, clock, ids)
	key, err := app.NewCreateKeyHandler(st, st, def, clock, ids).Handle(ctx, app.CreateKey{Name: "k", Mode: domain.ModeLive})
	if err != nil {
		t.Fatal(err)
	}
	camp, err := app.NewCreateCampaignHandler(st, st, st, nil, def, clock, ids).Handle(ctx, app.CreateCampaign{
		Name: "c", TemplateName: "welcome", Language: "en", Body: "Hi {{1}}", Activate: true})
	if err != nil {
		t.Fatal(err)
	}
	return key, camp
}
