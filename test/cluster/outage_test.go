package cluster

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"

	"github.com/heraldhq/herald/adapters/httpapi"
	"github.com/heraldhq/herald/adapters/sqlstore"
	"github.com/heraldhq/herald/adapters/system"
	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/app/delivery"
	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/test/testenv"
)

// recordingSender notes every message it sends and wakes waiters.
type recordingSender struct {
	mu   sync.Mutex
	sent map[domain.MessageID]bool
	more chan struct{}
}

func (s *recordingSender) Send(ctx context.Context, m ports.OutboundMessage) (ports.SendResult, error) {
	s.mu.Lock()
	s.sent[m.ID] = true
	s.mu.Unlock()
	select {
	case s.more <- struct{}{}:
	default:
	}
	return ports.SendResult{ProviderID: "wamid." + string(m.ID)}, nil
}

func (s *recordingSender) missing(ids []string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, id := range ids {
		if !s.sent[domain.MessageID(id)] {
			n++
		}
	}
	return n
}

// TestDatabaseOutage cuts every connection to PostgreSQL in the middle of a
// stream of sends: requests answer only 202 or 503, readiness reports the
// outage, the server recovers by itself, and every 202 is delivered.
func TestDatabaseOutage(t *testing.T) {
	t.Parallel()
	direct := testenv.PostgresDatabase(t)
	ctx := context.Background()
	u, err := url.Parse(direct)
	if err != nil {
		t.Fatal(err)
	}
	px := newProxy(t, u.Host)
	u.Host = px.addr()
	viaProxy := u.String()

	setupDB, d, err := sqlstore.Open(ctx, sqlstore.Config{DatabaseURL: direct})
	if err != nil {
		t.Fatal(err)
	}
	defer setupDB.Close()
	if err := sqlstore.Migrate(ctx, setupDB, d); err != nil {
		t.Fatal(err)
	}
	st := openStore(t, viaProxy)
	clock, ids := system.Clock{}, system.NewIDs()
	key, camp := seed(t, st)
	obs := usecase.NewObserver(nil)
	cfg := delivery.Config{DispatchPoll: 20 * time.Millisecond, LeaseDuration: 2 * time.Second}
	wake := delivery.NewWakeup()
	sender := &recordingSender{sent: map[domain.MessageID]bool{}, more: make(chan struct{}, 1)}
	dispatcher := delivery.NewDispatcher(st, st, st, st, delivery.Senders{Live: sender, Sandbox: sender}, clock, ids, nil, wake, cfg, obs)
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { dispatcher.Run(runCtx); close(done) }()
	defer func() { stop(); <-done }()

	srv := httptest.NewServer(httpapi.NewHandler(httpapi.Deps{
		Auth: app.NewAuthenticateKeyHandler(st, clock, app.Config{}),
		SendCampaign: app.NewSendCampaignMessageHandler(app.SendCampaignDeps{Tx: st, Campaigns: st, Contacts: st,
			Messages: st, Idempotency: st, SendCounts: st, Clock: clock, IDs: ids, Wake: wake, Obs: obs, LiveSending: true}),
		Store: st,
	}, httpapi.Config{RequestTimeout: 5 * time.Second, RateLimit: 1e6, RateBurst: 1e6}, zaptest.NewLogger(t, zaptest.Level(zap.ErrorLevel))))
	defer srv.Close()

	var (
		mu       sync.Mutex
		accepted []string
		statuses = map[int]int{}
	)
	sendBatch := func(n int) {
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := w; i < n; i += 4 {
					body := fmt.Sprintf(`{"phoneNumber":"+1415555%04d","campaignId":%q,"variables":["Ana"]}`, i, camp.ID)
					req, _ := http.NewRequest("POST", srv.URL+"/v1/messages/send-campaign", strings.NewReader(body))
					req.Header.Set("X-API-KEY", key.Token.Plaintext())
					req.Header.Set("Content-Type", "application/json")
					res, err := http.DefaultClient.Do(req)
					if err != nil {
						t.Errorf("request: %v", err)
						return
					}
					b, _ := io.ReadAll(res.Body)
					res.Body.Close()
					mu.Lock()
					statuses[res.StatusCode]++
					if res.StatusCode == http.StatusAccepted {
						var id string
						fmt.Sscanf(string(b), `{"id":%q`, &id)
						accepted = append(accepted, id)
					}
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
	}
	ready := func() int {
		res, err := http.Get(srv.URL + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}

	sendBatch(100)
	px.cut()
	start := time.Now()
	sendBatch(100)
	if elapsed := time.Since(start); elapsed > 30*time.Second {
		t.Errorf("100 requests during the outage took %s: requests must fail fast", elapsed)
	}
	if code := ready(); code != http.StatusServiceUnavailable {
		t.Errorf("/readyz during the outage: %d, want 503", code)
	}
	px.restore()
	sendBatch(100)
	if code := ready(); code != http.StatusOK {
		t.Errorf("/readyz after the outage: %d, want 200", code)
	}

	mu.Lock()
	for code, n := range statuses {
		if code != http.StatusAccepted && code != http.StatusServiceUnavailable {
			t.Errorf("%d requests answered %d; only 202 and 503 are allowed", n, code)
		}
	}
	if statuses[http.StatusServiceUnavailable] == 0 || statuses[http.StatusAccepted] < 200 {
		t.Errorf("statuses %v: want 503s during the outage and 202s before and after", statuses)
	}
	ids202 := append([]string(nil), accepted...)
	mu.Unlock()

	deadline := time.After(60 * time.Second)
	for sender.missing(ids202) > 0 {
		select {
		case <-sender.more:
		case <-deadline:
			t.Fatalf("%d of %d accepted messages were not delivered within 60s of the outage", sender.missing(ids202), len(ids202))
		}
	}
	// Nothing half-written: every stored message has its thread entry and
	// its contact's last-message time.
	var messages, entries, untouched int
	if err := setupDB.GetContext(ctx, &messages, `SELECT count(*) FROM messages`); err != nil {
		t.Fatal(err)
	}
	if err := setupDB.GetContext(ctx, &entries, `SELECT count(*) FROM conversation_entries WHERE direction = 'outbound'`); err != nil {
		t.Fatal(err)
	}
	if err := setupDB.GetContext(ctx, &untouched, `SELECT count(*) FROM messages m JOIN contacts c ON c.id = m.contact_id WHERE c.last_message_at IS NULL`); err != nil {
		t.Fatal(err)
	}
	if messages != entries || untouched != 0 || messages < len(ids202) {
		t.Errorf("after the outage: %d messages, %d thread entries, %d contacts without a last message, %d accepted", messages, entries, untouched, len(ids202))
	}
	t.Logf("statuses %v; all %d accepted messages delivered", statuses, len(ids202))
}
