package cluster

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/heraldhq/herald/adapters/sqlstore"
	"github.com/heraldhq/herald/adapters/system"
	"github.com/heraldhq/herald/adapters/webhookout"
	"github.com/heraldhq/herald/app/events"
	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/test/hookreceiver"
	"github.com/heraldhq/herald/test/testenv"
)

// TestTwoWorkersDeliverEachAttemptOnce: two delivery workers, each with
// its own connection pool (two instances), deliver from one PostgreSQL
// outbox to two endpoints; every event reaches each endpoint exactly once,
// verified by a receiver written from the Standard Webhooks
// specification, and a message's events arrive in the order they
// happened.
func TestTwoWorkersDeliverEachAttemptOnce(t *testing.T) {
	t.Parallel()
	const messages, perMessage = 200, 3
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
	key, _ := seed(t, setup)
	ws := key.Key.Workspace
	recv := hookreceiver.New(t)
	policy := domain.WebhookPolicy{AllowHTTP: true, AllowedHosts: []string{"127.0.0.1"}}
	var secrets []string
	for _, path := range []string{"/a", "/b"} {
		key, err := domain.NewWebhookSecretKey(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		e, err := domain.NewWebhookEndpoint(domain.WebhookEndpointID(system.NewIDs().NewID(domain.PrefixWebhookEndpoint)), ws,
			domain.ModeLive, domain.EndpointSpec{URL: recv.URL + path, Events: domain.AllEvents()}, key, policy, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if err := setup.CreateEndpoint(ctx, e); err != nil {
			t.Fatal(err)
		}
		secrets = append(secrets, e.Secrets[0].Plaintext())
	}
	recv.SetSecrets(t, secrets...)
	types := []domain.EventType{domain.EventMessageSent, domain.EventMessageDelivered, domain.EventMessageRead}
	order := map[string]int{} // event id → its place among its message's events
	for step := range perMessage {
		for m := range messages {
			data := fmt.Sprintf(`{"id":"msg_%d","step":%d}`, m, step)
			e, err := domain.NewEvent(domain.EventID(system.NewIDs().NewID(domain.PrefixEvent)), ws, domain.ModeLive,
				types[step], fmt.Sprintf("msg_%d", m), []byte(data), time.Now())
			if err != nil {
				t.Fatal(err)
			}
			if err := setup.AppendEvents(ctx, e); err != nil {
				t.Fatal(err)
			}
			order[string(e.ID)] = step
		}
	}

	runCtx, stop := context.WithCancel(ctx)
	var running sync.WaitGroup
	for range 2 {
		st := openStore(t, url)
		poster := webhookout.New(webhookout.Config{AllowHTTP: true, AllowedHosts: []string{"127.0.0.1"}})
		w := events.NewWorker(st, st, poster, system.Clock{}, system.NewIDs(), nil,
			events.Config{Concurrency: 16, Poll: 20 * time.Millisecond}, usecase.NewObserver(nil))
		running.Add(1)
		go func() { defer running.Done(); w.Run(runCtx) }()
	}
	want := 2 * messages * perMessage
	got := recv.WaitFor(t, want, 2*time.Minute)
	stop()
	running.Wait()

	seen := map[string]int{}
	last := map[string]int{} // path and message → the step last received
	for _, dl := range recv.Deliveries() {
		if !dl.Verified {
			t.Fatalf("delivery %s to %s failed verification: %s", dl.ID, dl.Path, dl.Problem)
		}
		seen[dl.Path+" "+dl.ID]++
		step := order[dl.ID]
		var subject struct {
			Data struct{ ID string } `json:"data"`
		}
		if err := json.Unmarshal(dl.Body, &subject); err != nil {
			t.Fatal(err)
		}
		k := dl.Path + " " + subject.Data.ID
		if prev, ok := last[k]; ok && prev != step-1 || !ok && step != 0 {
			t.Fatalf("%s: step %d arrived after step %d (ok %v): out of order", k, step, prev, ok)
		}
		last[k] = step
	}
	if len(got) < want || len(seen) != want {
		t.Fatalf("%d distinct deliveries, want %d", len(seen), want)
	}
	for k, n := range seen {
		if n != 1 {
			t.Errorf("%s delivered %d times, want once", k, n)
		}
	}
}
