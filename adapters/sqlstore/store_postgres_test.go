package sqlstore_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
	"go.uber.org/fx"
	"go.uber.org/fx/fxtest"

	"github.com/heraldhq/herald/adapters/sqlstore"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/ports/porttest"
)

const postgresURLVar = "HERALD_TEST_POSTGRES_URL"

// newPostgres creates a randomly named database on the server that
// HERALD_TEST_POSTGRES_URL names, opens it (migrated when migrate is set)
// and drops it when the test ends. Without the variable the test is skipped,
// except under CI (CI=true), where it fails.
func newPostgres(t *testing.T, migrate bool) *sqlx.DB {
	t.Helper()
	admin := os.Getenv(postgresURLVar)
	if admin == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not set: under CI the PostgreSQL store tests must run", postgresURLVar)
		}
		t.Skipf("set %s to run the PostgreSQL store tests", postgresURLVar)
	}
	ctx := t.Context()
	adminDB, _, err := sqlstore.Open(ctx, sqlstore.Config{DatabaseURL: admin, MaxOpenConns: 1})
	if err != nil {
		t.Fatalf("open %s: %v", postgresURLVar, err)
	}
	t.Cleanup(func() { _ = adminDB.Close() })

	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "herald_test_" + hex.EncodeToString(b[:])
	if _, err := adminDB.ExecContext(ctx, `CREATE DATABASE `+name); err != nil {
		t.Fatalf("create database: %v", err)
	}
	t.Cleanup(func() {
		// t.Context() is already done when cleanups run.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := adminDB.ExecContext(ctx, `DROP DATABASE IF EXISTS `+name+` WITH (FORCE)`); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
	})

	u, err := url.Parse(admin)
	if err != nil {
		t.Fatalf("parse %s: %v", postgresURLVar, err)
	}
	u.Path = "/" + name
	db, d, err := sqlstore.Open(ctx, sqlstore.Config{DatabaseURL: u.String()})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	// Registered after the drop, so it runs before it.
	t.Cleanup(func() { _ = db.Close() })
	if migrate {
		if err := sqlstore.Migrate(ctx, db, d); err != nil {
			t.Fatalf("Migrate: %v", err)
		}
	}
	return db
}

func TestStorePostgres(t *testing.T) {
	t.Parallel()
	porttest.RunStore(t, func(t *testing.T) porttest.Store {
		return sqlstore.New(newPostgres(t, true), sqlstore.Postgres())
	})
}

// Migrations apply once, however often and however concurrently Migrate
// runs.
func TestMigratePostgres(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	db := newPostgres(t, false)
	current, latest, err := sqlstore.Version(ctx, db)
	if err != nil || current != 0 || latest < 1 {
		t.Fatalf("Version before migrating = %d, %d, %v; want 0, at least 1", current, latest, err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() { errs[i] = sqlstore.Migrate(ctx, db, sqlstore.Postgres()) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatalf("Migrate: %v", err)
		}
	}
	if err := sqlstore.Migrate(ctx, db, sqlstore.Postgres()); err != nil {
		t.Fatalf("Migrate again: %v", err)
	}
	current, latest, err = sqlstore.Version(ctx, db)
	if err != nil || current != latest {
		t.Fatalf("Version = %d, %d, %v; want current == latest", current, latest, err)
	}
}

// PostgresModule refuses to start on a schema that is behind, and starts
// once it is migrated.
func TestPostgresModule(t *testing.T) {
	t.Parallel()
	db := newPostgres(t, false)
	var u string
	if err := db.GetContext(t.Context(), &u, `SELECT current_database()`); err != nil {
		t.Fatal(err)
	}
	base, err := url.Parse(os.Getenv(postgresURLVar))
	if err != nil {
		t.Fatal(err)
	}
	base.Path = "/" + u
	cfg := sqlstore.Config{DatabaseURL: base.String()}
	var pinger ports.Pinger
	opts := fx.Options(sqlstore.PostgresModule, fx.Supply(cfg), fx.NopLogger, fx.Populate(&pinger))
	if err := fx.ValidateApp(opts); err != nil {
		t.Fatalf("ValidateApp: %v", err)
	}
	behind := fx.New(opts)
	if err := behind.Start(t.Context()); err == nil || !strings.Contains(err.Error(), "herald migrate") {
		t.Fatalf("Start on an unmigrated database = %v, want a request to migrate", err)
	}
	if err := sqlstore.Migrate(t.Context(), db, sqlstore.Postgres()); err != nil {
		t.Fatalf("Migrate: %v", err)
	}
	app := fxtest.New(t, opts)
	app.RequireStart()
	if err := pinger.Ping(t.Context()); err != nil {
		t.Fatalf("Ping: %v", err)
	}
	app.RequireStop()
}
