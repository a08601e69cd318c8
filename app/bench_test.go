package app_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heraldhq/herald/adapters/sqlstore"
	"github.com/heraldhq/herald/adapters/system"
	"github.com/heraldhq/herald/adapters/whatsapp"
	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/app/delivery"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/test/cpustat"
	"github.com/heraldhq/herald/test/fakemeta"
	"github.com/heraldhq/herald/test/testenv"
)

// sqliteStore opens a fresh migrated SQLite store.
func sqliteStore(b *testing.B) *sqlstore.Store {
	b.Helper()
	ctx := context.Background()
	db, d, err := sqlstore.Open(ctx, sqlstore.Config{DatabaseURL: "sqlite:" + filepath.Join(b.TempDir(), "bench.db")})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	if err := sqlstore.Migrate(ctx, db, d); err != nil {
		b.Fatal(err)
	}
	return sqlstore.New(db, d)
}

// tickingClock moves a minute per reading, so every lookup misses a cache
// with a shorter TTL.
type tickingClock struct{ now time.Time }

func (c *tickingClock) Now() time.Time { c.now = c.now.Add(time.Minute); return c.now }

func benchKey(b *testing.B, st interface {
	ports.WorkspaceRepository
	ports.KeyRepository
}) domain.Token {
	b.Helper()
	ids, clock := system.NewIDs(), system.Clock{}
	k, err := app.NewCreateKeyHandler(st, st, app.NewEnsureDefaultWorkspaceHandler(st, clock, ids), clock, ids).
		Handle(context.Background(), app.CreateKey{Name: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	return k.Token
}

// BenchmarkAuthenticateKey: cached is the hot path of every request;
// uncached adds the SQLite lookup by identifier.
func BenchmarkAuthenticateKey(b *testing.B) {
	st := sqliteStore(b)
	tok := benchKey(b, st).Plaintext()
	ctx := context.Background()
	b.Run("cached", func(b *testing.B) {
		auth := app.NewAuthenticateKeyHandler(st, system.Clock{}, app.Config{})
		b.ReportAllocs()
		for b.Loop() {
			if _, err := auth.Handle(ctx, tok); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("uncached-sqlite", func(b *testing.B) {
		auth := app.NewAuthenticateKeyHandler(st, &tickingClock{}, app.Config{KeyCacheTTL: time.Second})
		b.ReportAllocs()
		for b.Loop() {
			if _, err := auth.Handle(ctx, tok); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkWebhookStatuses measures Meta's status webhooks on SQLite against
// the send they follow. "send" accepts one message (one durable
// transaction); "send+3-webhooks" also receives its sent, delivered and read
// webhooks as Meta signs them (signature, storage, and one transaction each
// to apply). The difference over three is one webhook's cost, as a ratio to
// a send measured in the same run.
func BenchmarkWebhookStatuses(b *testing.B) {
	ctx := context.Background()
	const secret = "bench-secret"
	setup := func(b *testing.B) (*app.SendCampaignMessageHandler, *delivery.ReceiveWebhookHandler, domain.Principal, string) {
		st := sqliteStore(b)
		h, p, campaign := benchSender(b, st, app.Config{})
		ids, clock := system.NewIDs(), system.Clock{}
		hooks := whatsapp.NewWebhooks(whatsapp.WebhookConfig{AppSecrets: []string{secret}, PhoneNumberIDs: []string{"phone"}})
		receive := delivery.NewReceiveWebhookHandler(hooks, st,
			delivery.NewApplyWebhookEventHandler(hooks, hooks, st, st, clock, ids, nil, delivery.Config{}, nil), clock, ids, nil)
		return h, receive, p, campaign
	}
	send := func(b *testing.B, h *app.SendCampaignMessageHandler, p domain.Principal, campaign string, i int) domain.MessageID {
		res, err := h.Handle(ctx, app.SendCampaignMessage{Principal: p, CampaignID: campaign,
			PhoneNumber: "+1415555" + strconv.Itoa(1000+i%9000), Variables: []string{"Ana"}})
		if err != nil {
			b.Fatal(err)
		}
		return res.Message.ID
	}
	b.Run("send", func(b *testing.B) {
		h, _, p, campaign := setup(b)
		i := 0
		for b.Loop() {
			send(b, h, p, campaign, i)
			i++
		}
	})
	b.Run("send+3-webhooks", func(b *testing.B) {
		h, receive, p, campaign := setup(b)
		i := 0
		at := time.Now()
		for b.Loop() {
			id := send(b, h, p, campaign, i)
			wamid := "wamid.BENCH" + strconv.Itoa(i)
			for j, status := range []string{"sent", "delivered", "read"} {
				body := fakemeta.StatusPayload("waba", "phone", fakemeta.StatusUpdate{WAMID: wamid, Status: status,
					BizOpaque: string(id), RecipientID: "14155551000", At: at.Add(time.Duration(j) * time.Second), Pricing: status == "sent"})
				res, err := receive.Handle(ctx, delivery.ReceiveWebhook{Body: body, Signature: fakemeta.Sign(secret, body)})
				if err != nil || !res.Applied || res.Report.Statuses != 1 {
					b.Fatalf("webhook: %+v, %v", res, err)
				}
			}
			i++
		}
	})
}

// benchSender is a send-campaign handler over st with a test key's
// principal and an active one-variable campaign.
func benchSender(b *testing.B, st *sqlstore.Store, cfg app.Config) (*app.SendCampaignMessageHandler, domain.Principal, string) {
	b.Helper()
	ctx := context.Background()
	ids, clock := system.NewIDs(), system.Clock{}
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
	return app.NewSendCampaignMessageHandler(app.SendCampaignDeps{Tx: st, Campaigns: st, Contacts: st, Messages: st,
		Idempotency: st, SendCounts: st, Clock: clock, IDs: ids, Config: cfg}), p, string(c.ID)
}

// BenchmarkSendGuards is a send on SQLite (synchronous=FULL, one caller)
// without guards, with a fresh Idempotency-Key, with the daily cap
// counted, and a replay of a used key (no transaction at all).
func BenchmarkSendGuards(b *testing.B) {
	ctx := context.Background()
	run := func(b *testing.B, cfg app.Config, key func(i int) domain.IdempotencyKey) {
		h, p, campaign := benchSender(b, sqliteStore(b), cfg)
		i := 0
		for b.Loop() {
			_, err := h.Handle(ctx, app.SendCampaignMessage{Principal: p, CampaignID: campaign,
				PhoneNumber: "+1415555" + strconv.Itoa(1000+i%9000), Variables: []string{"Ana"}, IdempotencyKey: key(i)})
			if err != nil {
				b.Fatal(err)
			}
			i++
		}
	}
	none := func(int) domain.IdempotencyKey { return "" }
	b.Run("plain", func(b *testing.B) { run(b, app.Config{}, none) })
	b.Run("idempotency-key", func(b *testing.B) {
		run(b, app.Config{}, func(i int) domain.IdempotencyKey { return domain.IdempotencyKey("k-" + strconv.Itoa(i)) })
	})
	b.Run("daily-cap", func(b *testing.B) { run(b, app.Config{DailySendCap: 1 << 30}, none) })
	b.Run("replay", func(b *testing.B) {
		h, p, campaign := benchSender(b, sqliteStore(b), app.Config{})
		cmd := app.SendCampaignMessage{Principal: p, CampaignID: campaign, PhoneNumber: "+14155551000",
			Variables: []string{"Ana"}, IdempotencyKey: "k"}
		if _, err := h.Handle(ctx, cmd); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if res, err := h.Handle(ctx, cmd); err != nil || !res.Replayed {
				b.Fatalf("replay: %+v, %v", res, err)
			}
		}
	})
}

// reportCPU reads the CPU time used so far and returns a func that reports,
// beside the wall time per operation, the CPU time each operation took in
// this process and, with postgres, in the PostgreSQL server's processes. On
// a shared machine the CPU an operation takes says more about its cost than
// how long it waited. The readings (from /proc) are outside the timer.
func reportCPU(b *testing.B, postgres bool) func() {
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

// BenchmarkSendConcurrent is send-campaign from 64 concurrent callers, as
// an HTTP server under load calls it, on SQLite (synchronous=FULL) and on
// PostgreSQL when HERALD_TEST_POSTGRES_URL is set. Concurrent sends share
// durable commits (group commit); ns/op is wall time per accepted send, and
// cpu-ns/op (and postgres-cpu-ns/op) the CPU it took (reportCPU).
func BenchmarkSendConcurrent(b *testing.B) {
	stores := benchStores()
	for _, name := range []string{"sqlite", "postgres"} {
		open, ok := stores[name]
		if !ok {
			continue
		}
		b.Run(name, func(b *testing.B) {
			h, p, campaign := benchSender(b, open(b), app.Config{})
			var n atomic.Int64
			b.SetParallelism(64 / runtime.GOMAXPROCS(0))
			defer reportCPU(b, name == "postgres")()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					i := n.Add(1)
					_, err := h.Handle(context.Background(), app.SendCampaignMessage{Principal: p, CampaignID: campaign,
						PhoneNumber: "+1415555" + strconv.Itoa(1000+int(i%9000)), Variables: []string{"Ana"}})
					if err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}

// benchStores opens a fresh migrated store per engine: SQLite, and
// PostgreSQL when HERALD_TEST_POSTGRES_URL is set.
func benchStores() map[string]func(b *testing.B) *sqlstore.Store {
	stores := map[string]func(b *testing.B) *sqlstore.Store{"sqlite": sqliteStore}
	if os.Getenv("HERALD_TEST_POSTGRES_URL") != "" {
		stores["postgres"] = func(b *testing.B) *sqlstore.Store {
			db, d, err := sqlstore.Open(context.Background(), sqlstore.Config{DatabaseURL: testenv.PostgresDatabase(b)})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { db.Close() })
			if err := sqlstore.Migrate(context.Background(), db, d); err != nil {
				b.Fatal(err)
			}
			return sqlstore.New(db, d)
		}
	}
	return stores
}

// BenchmarkWebhookStatusesConcurrent is Meta's status webhooks from 64
// concurrent callers, one status per call as Meta posts them, on SQLite
// (synchronous=FULL) and on PostgreSQL when HERALD_TEST_POSTGRES_URL is
// set. The messages are accepted beforehand, one for every three calls;
// an operation is one call (signature, storage and applying), and
// cpu-ns/op (and postgres-cpu-ns/op) the CPU it took (reportCPU).
func BenchmarkWebhookStatusesConcurrent(b *testing.B) {
	const secret = "bench-secret"
	stores := benchStores()
	for _, name := range []string{"sqlite", "postgres"} {
		open, ok := stores[name]
		if !ok {
			continue
		}
		b.Run(name, func(b *testing.B) {
			ctx := context.Background()
			st := open(b)
			h, p, campaign := benchSender(b, st, app.Config{})
			ids, clock := system.NewIDs(), system.Clock{}
			hooks := whatsapp.NewWebhooks(whatsapp.WebhookConfig{AppSecrets: []string{secret}, PhoneNumberIDs: []string{"phone"}})
			receive := delivery.NewReceiveWebhookHandler(hooks, st,
				delivery.NewApplyWebhookEventHandler(hooks, hooks, st, st, clock, ids, nil, delivery.Config{}, nil), clock, ids, nil)
			msgs := make([]domain.MessageID, (b.N+2)/3)
			for i := range msgs {
				res, err := h.Handle(ctx, app.SendCampaignMessage{Principal: p, CampaignID: campaign,
					PhoneNumber: "+1415555" + strconv.Itoa(1000+i%9000), Variables: []string{"Ana"}})
				if err != nil {
					b.Fatal(err)
				}
				msgs[i] = res.Message.ID
			}
			at := time.Now()
			var n atomic.Int64
			b.SetParallelism(64 / runtime.GOMAXPROCS(0))
			b.ResetTimer()
			defer reportCPU(b, name == "postgres")()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					i := int(n.Add(1) - 1)
					status := []string{"sent", "delivered", "read"}[i%3]
					body := fakemeta.StatusPayload("waba", "phone", fakemeta.StatusUpdate{WAMID: "wamid.BENCH" + strconv.Itoa(i/3),
						Status: status, BizOpaque: string(msgs[i/3]), RecipientID: "14155551000",
						At: at.Add(time.Duration(i%3) * time.Second), Pricing: status == "sent"})
					res, err := receive.Handle(ctx, delivery.ReceiveWebhook{Body: body, Signature: fakemeta.Sign(secret, body)})
					if err != nil || !res.Applied {
						b.Errorf("webhook: %+v, %v", res, err)
						return
					}
				}
			})
		})
	}
}
