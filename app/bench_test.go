package app_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/heraldhq/herald/adapters/sqlstore"
	"github.com/heraldhq/herald/adapters/system"
	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
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
