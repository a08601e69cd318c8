package sqlstore_test

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/heraldhq/herald/adapters/sqlstore"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/ports/porttest"
	"github.com/heraldhq/herald/test/cpustat"
	"github.com/heraldhq/herald/test/testenv"
)

// The outbox's costs, for the code that writes events in every state
// change and the worker that delivers them: appending one event (with its
// fan-out) as a status update does, with no endpoint and with two
// subscribed endpoints, and claiming a delivery and recording its attempt,
// on SQLite (synchronous=FULL) and on PostgreSQL when
// HERALD_TEST_POSTGRES_URL is set. Beside the wall time per operation they
// report the CPU it took in this process (cpu-ns/op) and in PostgreSQL's
// (postgres-cpu-ns/op).

// benchEngines runs bench on a fresh migrated store of each engine.
func benchEngines(b *testing.B, bench func(b *testing.B, s *sqlstore.Store, postgres bool)) {
	engines := []string{"sqlite"}
	if os.Getenv(testenv.PostgresURLVar) != "" {
		engines = append(engines, "postgres")
	}
	for _, name := range engines {
		b.Run(name, func(b *testing.B) {
			url := "sqlite:" + b.TempDir() + "/bench.db"
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
			bench(b, sqlstore.New(db, d), name == "postgres")
		})
	}
}

// benchWorkspace stores a workspace with n enabled endpoints subscribed to
// every event type.
func benchWorkspace(b *testing.B, s *sqlstore.Store, n int) domain.WorkspaceID {
	b.Helper()
	ws := porttest.NewWorkspace(b)
	if err := s.CreateWorkspace(context.Background(), ws); err != nil {
		b.Fatal(err)
	}
	for range n {
		if err := s.CreateEndpoint(context.Background(), porttest.NewEndpoint(b, ws.ID, domain.ModeLive, domain.AllEvents())); err != nil {
			b.Fatal(err)
		}
	}
	return ws.ID
}

// cpuMeter reports, when stopped, the CPU each operation took (outside the
// timer).
func cpuMeter(b *testing.B, postgres bool) func() {
	b.StopTimer()
	self, server := cpustat.Self(), cpustat.Postgres()
	b.StartTimer()
	return func() {
		b.StopTimer()
		b.ReportMetric(float64(cpustat.Self()-self)/float64(b.N), "cpu-ns/op")
		if postgres {
			b.ReportMetric(float64(cpustat.Postgres()-server)/float64(b.N), "postgres-cpu-ns/op")
		}
	}
}

// BenchmarkAppendEvents appends one message event per operation, in its
// own transaction, as one status update writes it: with 0 endpoints the
// fan-out finds none, with 2 it writes two deliveries.
func BenchmarkAppendEvents(b *testing.B) {
	benchEngines(b, func(b *testing.B, s *sqlstore.Store, postgres bool) {
		for _, endpoints := range []int{0, 2} {
			b.Run(fmt.Sprintf("endpoints=%d", endpoints), func(b *testing.B) {
				ws := benchWorkspace(b, s, endpoints)
				now := time.Now()
				events := make([]domain.Event, b.N)
				for i := range events {
					events[i] = porttest.NewEvent(b, ws, domain.ModeLive, domain.EventMessageDelivered, porttest.NewID(domain.PrefixMessage), now)
				}
				b.ResetTimer()
				defer cpuMeter(b, postgres)()
				for i := range b.N {
					if err := s.AppendEvents(context.Background(), events[i]); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	})
}

// BenchmarkClaimAndRecord claims due deliveries 64 at a time and records a
// successful attempt of each, one operation per delivery: serially, and
// with the batch's 64 attempts recorded at once, as a worker that posts
// them concurrently does.
func BenchmarkClaimAndRecord(b *testing.B) {
	benchEngines(b, func(b *testing.B, s *sqlstore.Store, postgres bool) {
		for _, concurrent := range []bool{false, true} {
			b.Run(map[bool]string{false: "serial", true: "concurrent"}[concurrent], func(b *testing.B) {
				ctx := context.Background()
				ws := benchWorkspace(b, s, 1)
				at := time.Now().Add(-time.Hour)
				for i := 0; i < b.N; i += 100 {
					batch := make([]domain.Event, min(100, b.N-i))
					for j := range batch {
						batch[j] = porttest.NewEvent(b, ws, domain.ModeLive, domain.EventMessageSent, porttest.NewID(domain.PrefixMessage), at)
					}
					if err := s.AppendEvents(ctx, batch...); err != nil {
						b.Fatal(err)
					}
				}
				b.ResetTimer()
				defer cpuMeter(b, postgres)()
				for done := 0; done < b.N; {
					now := time.Now()
					cs, err := s.ClaimDeliveries(ctx, ports.DeliveryClaim{Owner: "bench", Now: now, LeaseUntil: now.Add(time.Minute), Limit: 64})
					if err != nil || len(cs) == 0 {
						b.Fatalf("ClaimDeliveries = %d deliveries, %v; %d of %d done", len(cs), err, done, b.N)
					}
					record := func(c ports.ClaimedDelivery) {
						_, err := s.RecordAttempt(ctx, ports.AttemptRecord{Owner: "bench", Attempt: c.Attempt,
							DeliveryAttempt: domain.DeliveryAttempt{Event: c.Event.ID, Endpoint: c.Endpoint.ID, At: now,
								Status: 200, Duration: time.Millisecond, ResponseHead: []byte(`{"ok":true}`)},
							State: domain.DeliverySucceeded}, func(e *domain.WebhookEndpoint) error {
							e.RecordAttempt(200, now, 5*24*time.Hour)
							return nil
						})
						if err != nil {
							b.Error(err)
						}
					}
					if concurrent {
						var wg sync.WaitGroup
						for _, c := range cs {
							wg.Go(func() { record(c) })
						}
						wg.Wait()
					} else {
						for _, c := range cs {
							record(c)
						}
					}
					done += len(cs)
				}
			})
		}
	})
}
