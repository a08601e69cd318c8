package events_test

import (
	"context"
	"crypto/rand"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heraldhq/herald/adapters/httpapi"
	"github.com/heraldhq/herald/adapters/sqlstore"
	"github.com/heraldhq/herald/adapters/system"
	"github.com/heraldhq/herald/adapters/webhookout"
	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/app/delivery"
	"github.com/heraldhq/herald/app/events"
	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/ports/porttest"
	"github.com/heraldhq/herald/test/cpustat"
	"github.com/heraldhq/herald/test/hookreceiver"
	"github.com/heraldhq/herald/test/testenv"
)

// Delivery to a loopback receiver (test/hookreceiver, which verifies every
// signature) through the real poster (adapters/webhookout), on SQLite
// (synchronous=FULL) and on PostgreSQL when HERALD_TEST_POSTGRES_URL is
// set: how many events a second one worker delivers, and how long an event
// takes from its commit to its first attempt's arrival when events come
// at 500 a second.

func benchStores(b *testing.B, bench func(b *testing.B, st *sqlstore.Store)) {
	engines := []string{"sqlite"}
	if os.Getenv(testenv.PostgresURLVar) != "" {
		engines = append(engines, "postgres")
	}
	for _, name := range engines {
		b.Run(name, func(b *testing.B) {
			url := "sqlite:" + filepath.Join(b.TempDir(), "bench.db")
			if name == "postgres" {
				url = testenv.PostgresDatabase(b)
			}
			db, d, err := sqlstore.Open(context.Background(), sqlstore.Config{DatabaseURL: url})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = db.Close() })
			if err := sqlstore.Migrate(context.Background(), db, d); err != nil {
				b.Fatal(err)
			}
			bench(b, sqlstore.New(db, d))
		})
	}
}

// benchEndpoint stores a workspace with one endpoint posting to a lean
// loopback receiver, and returns them.
func benchEndpoint(b *testing.B, st *sqlstore.Store) (domain.WorkspaceID, *hookreceiver.Receiver) {
	b.Helper()
	ctx := context.Background()
	w := porttest.NewWorkspace(b)
	if err := st.CreateWorkspace(ctx, w); err != nil {
		b.Fatal(err)
	}
	recv := hookreceiver.New(b)
	recv.Lean()
	key, err := domain.NewWebhookSecretKey(rand.Reader)
	if err != nil {
		b.Fatal(err)
	}
	e, err := domain.NewWebhookEndpoint(domain.WebhookEndpointID(porttest.NewID(domain.PrefixWebhookEndpoint)), w.ID, domain.ModeLive,
		domain.EndpointSpec{URL: recv.URL + "/hook", Events: domain.AllEvents()}, key,
		domain.WebhookPolicy{AllowHTTP: true, AllowedHosts: []string{"127.0.0.1"}}, time.Now())
	if err != nil {
		b.Fatal(err)
	}
	if err := st.CreateEndpoint(ctx, e); err != nil {
		b.Fatal(err)
	}
	recv.SetSecrets(b, e.Secrets[0].Plaintext())
	return w.ID, recv
}

func benchWorker(st *sqlstore.Store, wake *events.Wakeup) *events.Worker {
	poster := webhookout.New(webhookout.Config{AllowHTTP: true, AllowedHosts: []string{"127.0.0.1"}})
	return events.NewWorker(st, st, poster, system.Clock{}, system.NewIDs(), wake, events.Config{}, usecase.NewObserver(nil))
}

func benchEvent(b *testing.B, ws domain.WorkspaceID, i int) domain.Event {
	e, err := domain.NewEvent(domain.EventID(porttest.NewID(domain.PrefixEvent)), ws, domain.ModeLive, domain.EventMessageDelivered,
		"msg_"+strconv.Itoa(i), []byte(`{"id":"msg_`+strconv.Itoa(i)+`","status":"delivered","mode":"live"}`), time.Now())
	if err != nil {
		b.Fatal(err)
	}
	return e
}

// countTo returns a channel closed once the receiver has accepted n
// verified deliveries (the fallback answers only those).
func countTo(recv *hookreceiver.Receiver, n int) <-chan struct{} {
	done := make(chan struct{})
	got := 0
	recv.SetFallback(func(hookreceiver.Delivery) hookreceiver.Answer { // called under the receiver's lock
		got++
		if got == n {
			close(done)
		}
		return hookreceiver.Answer{}
	})
	return done
}

// BenchmarkDeliver: b.N events, committed beforehand, delivered by one
// worker (64 attempts at once) to one endpoint; events/s is the rate, and
// cpu-ns/op (this process: worker and receiver) and postgres-cpu-ns/op
// the CPU each delivery took.
func BenchmarkDeliver(b *testing.B) {
	benchStores(b, func(b *testing.B, st *sqlstore.Store) {
		ws, recv := benchEndpoint(b, st)
		ctx := context.Background()
		for i := 0; i < b.N; i += 100 {
			batch := make([]domain.Event, 0, 100)
			for j := i; j < min(i+100, b.N); j++ {
				batch = append(batch, benchEvent(b, ws, j))
			}
			if err := st.WithinTx(ctx, func(ctx context.Context, r ports.Repos) error {
				return r.Events.AppendEvents(ctx, batch...)
			}); err != nil {
				b.Fatal(err)
			}
		}
		w := benchWorker(st, nil)
		all := countTo(recv, b.N)
		runCtx, stop := context.WithCancel(ctx)
		done := make(chan struct{})
		b.ResetTimer()
		start, self, pg := time.Now(), cpustat.Self(), cpustat.Postgres()
		go func() { w.Run(runCtx); close(done) }()
		select {
		case <-all:
		case <-time.After(5 * time.Minute):
			b.Fatalf("%d of %d deliveries after 5 minutes", recv.Stats().Answered2xx, b.N)
		}
		elapsed := time.Since(start)
		b.StopTimer()
		b.ReportMetric(float64(cpustat.Self()-self)/float64(b.N), "cpu-ns/op")
		if strings.Contains(b.Name(), "postgres") {
			b.ReportMetric(float64(cpustat.Postgres()-pg)/float64(b.N), "postgres-cpu-ns/op")
		}
		stop()
		<-done
		b.ReportMetric(float64(b.N)/elapsed.Seconds(), "events/s")
	})
}

// BenchmarkFirstAttempt: events committed at 500 a second, each in its own
// transaction that wakes the worker on commit; from commit to the first
// attempt's arrival at the receiver, p50 and p99.
func BenchmarkFirstAttempt(b *testing.B) {
	benchStores(b, func(b *testing.B, st *sqlstore.Store) {
		ws, recv := benchEndpoint(b, st)
		ctx := context.Background()
		wake := events.NewWakeup()
		tx := events.WakeOnCommit(st, wake)
		w := benchWorker(st, wake)
		runCtx, stop := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { w.Run(runCtx); close(done) }()
		var mu sync.Mutex
		committed := make(map[string]time.Time, b.N)
		arrived := make(map[string]time.Time, b.N)
		recvDone := make(chan struct{})
		var once sync.Once
		recv.SetFallback(func(d hookreceiver.Delivery) hookreceiver.Answer {
			mu.Lock()
			if _, ok := arrived[d.ID]; !ok {
				arrived[d.ID] = time.Now()
			}
			if len(arrived) == b.N {
				once.Do(func() { close(recvDone) })
			}
			mu.Unlock()
			return hookreceiver.Answer{}
		})
		tick := time.NewTicker(2 * time.Millisecond) // 500 a second
		defer tick.Stop()
		b.ResetTimer()
		var sending sync.WaitGroup
		for i := range b.N {
			<-tick.C
			sending.Add(1)
			go func() { // each change commits on its own, as concurrent requests do
				defer sending.Done()
				e := benchEvent(b, ws, i)
				if err := tx.WithinTx(ctx, func(ctx context.Context, r ports.Repos) error {
					return r.Events.AppendEvents(ctx, e)
				}); err != nil {
					b.Error(err)
					return
				}
				t := time.Now()
				mu.Lock()
				committed[string(e.ID)] = t
				mu.Unlock()
			}()
		}
		sending.Wait()
		select {
		case <-recvDone:
		case <-time.After(2 * time.Minute):
			b.Fatalf("%d of %d events arrived", len(arrived), b.N)
		}
		b.StopTimer()
		stop()
		<-done
		mu.Lock()
		defer mu.Unlock()
		lat := make([]time.Duration, 0, b.N)
		for id, c := range committed {
			lat = append(lat, max(0, arrived[id].Sub(c)))
		}
		slices.Sort(lat)
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
		b.ReportMetric(float64(lat[len(lat)-1].Microseconds())/1000, "max-ms")
	})
}

// BenchmarkCampaignEvents: a message's life on SQLite — send-campaign
// accepts it, then its sent, delivered and read statuses are recorded (as
// the sandbox and Meta's webhooks record them), each writing its event —
// from 32 concurrent callers, with no endpoint and with two endpoints
// subscribed to every event, whose deliveries a worker posts to loopback
// receivers meanwhile; the run ends when every delivery has arrived. The
// two rates, in one run, are the cost of telling two endpoints.
func BenchmarkCampaignEvents(b *testing.B) {
	for _, endpoints := range []int{0, 2} {
		b.Run("endpoints="+strconv.Itoa(endpoints), func(b *testing.B) {
			ctx := context.Background()
			db, d, err := sqlstore.Open(ctx, sqlstore.Config{DatabaseURL: "sqlite:" + filepath.Join(b.TempDir(), "bench.db")})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = db.Close() })
			if err := sqlstore.Migrate(ctx, db, d); err != nil {
				b.Fatal(err)
			}
			st := sqlstore.New(db, d)
			ids, clock := system.NewIDs(), system.Clock{}
			emit := usecase.NewEvents(ids, httpapi.NewEventRenderer())
			wake := events.NewWakeup()
			tx := events.WakeOnCommit(st, wake)
			def := app.NewEnsureDefaultWorkspaceHandler(st, clock, ids)
			k, err := app.NewCreateKeyHandler(st, st, def, clock, ids).Handle(ctx, app.CreateKey{Name: "bench"})
			if err != nil {
				b.Fatal(err)
			}
			c, err := app.NewCreateCampaignHandler(st, st, st, nil, def, clock, ids).Handle(ctx, app.CreateCampaign{Name: "W",
				TemplateName: "welcome", Language: "en_US", Body: "Hi {{1}}", Activate: true})
			if err != nil {
				b.Fatal(err)
			}
			p := domain.Principal{Workspace: k.Key.Workspace, Key: k.Key.ID, Mode: k.Key.Mode}
			send := app.NewSendCampaignMessageHandler(app.SendCampaignDeps{Tx: tx, Campaigns: st, Contacts: st, Messages: st,
				Idempotency: st, SendCounts: st, Clock: clock, IDs: ids})
			record := delivery.NewRecordStatusEventHandler(tx, clock, emit, nil)
			var arrived []<-chan struct{}
			for range endpoints {
				recv := hookreceiver.New(b)
				recv.Lean()
				key, err := domain.NewWebhookSecretKey(rand.Reader)
				if err != nil {
					b.Fatal(err)
				}
				e, err := domain.NewWebhookEndpoint(domain.WebhookEndpointID(ids.NewID(domain.PrefixWebhookEndpoint)), p.Workspace,
					p.Mode, domain.EndpointSpec{URL: recv.URL + "/hook", Events: domain.AllEvents()}, key,
					domain.WebhookPolicy{AllowHTTP: true, AllowedHosts: []string{"127.0.0.1"}}, time.Now())
				if err != nil {
					b.Fatal(err)
				}
				if err := st.CreateEndpoint(ctx, e); err != nil {
					b.Fatal(err)
				}
				recv.SetSecrets(b, e.Secrets[0].Plaintext())
				arrived = append(arrived, countTo(recv, 3*b.N))
			}
			w := benchWorker(st, wake)
			runCtx, stop := context.WithCancel(ctx)
			done := make(chan struct{})
			go func() { w.Run(runCtx); close(done) }()
			var n sync.Mutex
			i := 0
			b.SetParallelism(max(1, 32/runtime.GOMAXPROCS(0)))
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					n.Lock()
					i++
					phone := "+1415555" + strconv.Itoa(1000+i%9000)
					n.Unlock()
					res, err := send.Handle(ctx, app.SendCampaignMessage{Principal: p, CampaignID: string(c.ID),
						PhoneNumber: phone, Variables: []string{"Ana"}})
					if err != nil {
						b.Error(err)
						return
					}
					for _, status := range []domain.MessageStatus{domain.StatusSent, domain.StatusDelivered, domain.StatusRead} {
						if err := record.RecordStatus(ctx, ports.StatusEvent{MessageID: res.Message.ID, Status: status,
							At: time.Now()}); err != nil {
							b.Error(err)
							return
						}
					}
				}
			})
			for _, a := range arrived {
				select {
				case <-a:
				case <-time.After(5 * time.Minute):
					b.Fatal("deliveries still missing after 5 minutes")
				}
			}
			b.StopTimer()
			stop()
			<-done
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
		})
	}
}
