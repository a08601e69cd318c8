package sqlstore_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jmoiron/sqlx"
	"go.uber.org/fx"
	"go.uber.org/fx/fxtest"

	"github.com/heraldhq/herald/adapters/sqlstore"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/ports/porttest"
)

// newSQLite opens and migrates a fresh SQLite file under t.TempDir().
func newSQLite(t *testing.T, cfg sqlstore.Config) (*sqlx.DB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "herald.db")
	cfg.DatabaseURL = "sqlite:" + path
	db, d, err := sqlstore.Open(t.Context(), cfg)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if err := sqlstore.Migrate(t.Context(), db, d); err != nil {
		t.Fatalf("Migrate: %v", err)
	}
	return db, path
}

func newSQLiteStore(t *testing.T) (*sqlx.DB, *sqlstore.Store) {
	t.Helper()
	db, _ := newSQLite(t, sqlstore.Config{})
	return db, sqlstore.New(db, sqlstore.SQLite())
}

func TestStoreSQLite(t *testing.T) {
	t.Parallel()
	porttest.RunStore(t, func(t *testing.T) porttest.Store {
		_, s := newSQLiteStore(t)
		return s
	})
}

func TestMigrateIsIdempotent(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	db, _, err := sqlstore.Open(ctx, sqlstore.Config{DatabaseURL: "sqlite:" + filepath.Join(t.TempDir(), "m.db")})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = db.Close() })

	current, latest, err := sqlstore.Version(ctx, db, sqlstore.SQLite())
	if err != nil {
		t.Fatalf("Version before migrating: %v", err)
	}
	if current != 0 || latest < 1 {
		t.Fatalf("Version before migrating = %d, %d; want 0 and at least 1", current, latest)
	}
	for i := range 2 {
		if err := sqlstore.Migrate(ctx, db, sqlstore.SQLite()); err != nil {
			t.Fatalf("Migrate #%d: %v", i+1, err)
		}
		current, latest, err = sqlstore.Version(ctx, db, sqlstore.SQLite())
		if err != nil {
			t.Fatalf("Version: %v", err)
		}
		if current != latest {
			t.Fatalf("after Migrate #%d: version %d, latest %d", i+1, current, latest)
		}
	}
	var rows int
	if err := db.GetContext(ctx, &rows, `SELECT count(*) FROM goose_db_version WHERE version_id > 0`); err != nil {
		t.Fatal(err)
	}
	if rows != latest {
		t.Fatalf("goose_db_version has %d rows, want %d (one per migration)", rows, latest)
	}
}

// Concurrent migrators apply each migration once.
func TestMigrateConcurrently(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	db, _, err := sqlstore.Open(ctx, sqlstore.Config{DatabaseURL: "sqlite:" + filepath.Join(t.TempDir(), "m.db")})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = db.Close() })
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() { errs[i] = sqlstore.Migrate(ctx, db, sqlstore.SQLite()) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatalf("Migrate: %v", err)
		}
	}
	current, latest, err := sqlstore.Version(ctx, db, sqlstore.SQLite())
	if err != nil || current != latest {
		t.Fatalf("Version = %d, %d, %v; want current == latest", current, latest, err)
	}
}

// Every pooled connection runs in WAL mode with synchronous=FULL, foreign
// keys on and the configured busy timeout.
func TestSQLitePragmas(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	db, _ := newSQLite(t, sqlstore.Config{BusyTimeout: 1234 * time.Millisecond})
	type pragmas struct {
		JournalMode string
		Synchronous int
		ForeignKeys int
		BusyTimeout int
	}
	want := pragmas{JournalMode: "wal", Synchronous: 2, ForeignKeys: 1, BusyTimeout: 1234}
	// Hold several connections at once so the pool has to open distinct ones.
	var conns []*sqlx.Conn
	for range 3 {
		c, err := db.Connx(ctx)
		if err != nil {
			t.Fatalf("Connx: %v", err)
		}
		conns = append(conns, c)
	}
	for i, c := range conns {
		var got pragmas
		for _, p := range []struct {
			q    string
			dest any
		}{
			{`PRAGMA journal_mode`, &got.JournalMode},
			{`PRAGMA synchronous`, &got.Synchronous},
			{`PRAGMA foreign_keys`, &got.ForeignKeys},
			{`PRAGMA busy_timeout`, &got.BusyTimeout},
		} {
			if err := c.GetContext(ctx, p.dest, p.q); err != nil {
				t.Fatalf("conn %d: %s: %v", i, p.q, err)
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("conn %d pragmas (-want +got):\n%s", i, diff)
		}
	}
	for _, c := range conns {
		_ = c.Close()
	}
}

// Times are stored as INTEGER Unix microseconds.
func TestSQLiteTimeStorage(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	db, s := newSQLiteStore(t)
	at := time.Date(2025, 3, 4, 5, 6, 7, 123456000, time.UTC)
	w, err := domain.NewWorkspace(domain.WorkspaceID(porttest.NewID(domain.PrefixWorkspace)), "Times", at)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CreateWorkspace(ctx, w); err != nil {
		t.Fatalf("CreateWorkspace: %v", err)
	}
	var row struct {
		Type  string `db:"t"`
		Value int64  `db:"v"`
	}
	if err := db.GetContext(ctx, &row, `SELECT typeof(created_at) AS t, created_at AS v FROM workspaces WHERE id = ?`, w.ID); err != nil {
		t.Fatal(err)
	}
	if row.Type != "integer" || row.Value != at.UnixMicro() {
		t.Fatalf("created_at stored as %s %d, want integer %d", row.Type, row.Value, at.UnixMicro())
	}
	got, err := s.GetWorkspace(ctx, w.ID)
	if err != nil {
		t.Fatalf("GetWorkspace: %v", err)
	}
	if !got.CreatedAt.Equal(at) || got.CreatedAt.Location() != time.UTC {
		t.Fatalf("created_at read back as %v, want %v in UTC", got.CreatedAt, at)
	}
}

// Only the token's hash is stored: neither the token nor its secret part is
// anywhere in the database file.
func TestKeyTokenNotStored(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	db, path := newSQLite(t, sqlstore.Config{})
	s := sqlstore.New(db, sqlstore.SQLite())
	w := porttest.NewWorkspace(t)
	if err := s.CreateWorkspace(ctx, w); err != nil {
		t.Fatalf("CreateWorkspace: %v", err)
	}
	tok, err := domain.NewToken(domain.ModeLive, rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	k, err := domain.NewAPIKey(domain.KeyID(porttest.NewID(domain.PrefixKey)), w.ID, "secret test", tok, porttest.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CreateKey(ctx, k); err != nil {
		t.Fatalf("CreateKey: %v", err)
	}
	if _, err := db.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatalf("checkpoint: %v", err)
	}
	var file []byte
	for _, p := range []string{path, path + "-wal"} {
		b, err := os.ReadFile(p)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		file = append(file, b...)
	}
	plain := tok.Plaintext()
	secret := plain[len(plain)-38:]
	if !bytes.Contains(file, []byte(tok.Identifier())) {
		t.Fatal("the key's identifier is not in the file: the test reads the wrong file")
	}
	hash := tok.Hash()
	if !bytes.Contains(file, hash[:]) {
		t.Fatal("the key's hash is not in the file")
	}
	for what, s := range map[string]string{"token": plain, "secret part": secret, "secret without checksum": secret[:32]} {
		if bytes.Contains(file, []byte(s)) {
			t.Errorf("the %s is stored in the database file", what)
		}
	}
}

func TestWithinTxRollsBack(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	_, s := newSQLiteStore(t)

	w := porttest.NewWorkspace(t)
	boom := errors.New("boom")
	err := s.WithinTx(ctx, func(ctx context.Context, r ports.Repos) error {
		if err := r.Workspaces.CreateWorkspace(ctx, w); err != nil {
			return err
		}
		if _, err := r.Workspaces.GetWorkspace(ctx, w.ID); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("WithinTx = %v, want boom", err)
	}
	if _, err := s.GetWorkspace(ctx, w.ID); !errors.Is(err, domain.ErrWorkspaceNotFound) {
		t.Fatalf("GetWorkspace after an error = %v, want not found", err)
	}

	w2 := porttest.NewWorkspace(t)
	func() {
		defer func() {
			if p := recover(); p != "panic in fn" {
				t.Fatalf("recovered %v, want fn's panic", p)
			}
		}()
		_ = s.WithinTx(ctx, func(ctx context.Context, r ports.Repos) error {
			if err := r.Workspaces.CreateWorkspace(ctx, w2); err != nil {
				t.Errorf("CreateWorkspace: %v", err)
			}
			panic("panic in fn")
		})
	}()
	if _, err := s.GetWorkspace(ctx, w2.ID); !errors.Is(err, domain.ErrWorkspaceNotFound) {
		t.Fatalf("GetWorkspace after a panic = %v, want not found", err)
	}
	// The rolled-back transactions released the write lock and their
	// connections: the store still writes.
	if err := s.CreateWorkspace(ctx, w2); err != nil {
		t.Fatalf("CreateWorkspace after rollbacks: %v", err)
	}
}

// A writer that cannot get the lock within the busy timeout, or whose
// context ends, gets ports.ErrUnavailable.
func TestUnavailable(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	db, _ := newSQLite(t, sqlstore.Config{BusyTimeout: 50 * time.Millisecond})
	s := sqlstore.New(db, sqlstore.SQLite())

	holder, err := db.BeginTxx(ctx, nil) // BEGIN IMMEDIATE: holds the write lock
	if err != nil {
		t.Fatalf("BeginTxx: %v", err)
	}
	err = s.CreateWorkspace(ctx, porttest.NewWorkspace(t))
	if !errors.Is(err, ports.ErrUnavailable) {
		t.Fatalf("CreateWorkspace while locked = %v, want ErrUnavailable", err)
	}
	_, err = s.UpdateCampaign(ctx, "wsp_x", "cmp_x", func(*domain.Campaign) error { return nil })
	if !errors.Is(err, ports.ErrUnavailable) {
		t.Fatalf("UpdateCampaign while locked = %v, want ErrUnavailable", err)
	}
	// Reads go on in WAL mode.
	if _, err := s.GetWorkspace(ctx, "wsp_x"); !errors.Is(err, domain.ErrWorkspaceNotFound) {
		t.Fatalf("GetWorkspace while locked = %v, want not found", err)
	}
	_ = holder.Rollback()

	expired, cancel := context.WithDeadline(ctx, time.Now().Add(-time.Second))
	defer cancel()
	if _, err := s.GetWorkspace(expired, "wsp_x"); !errors.Is(err, ports.ErrUnavailable) {
		t.Fatalf("GetWorkspace with an expired context = %v, want ErrUnavailable", err)
	}
	if err := s.Ping(expired); !errors.Is(err, ports.ErrUnavailable) {
		t.Fatalf("Ping with an expired context = %v, want ErrUnavailable", err)
	}
}

func TestDialectFor(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		url  string
		want string // dialect name, "" for an error
	}{
		{"sqlite:herald.db", "sqlite"},
		{"sqlite:/var/lib/herald/herald.db", "sqlite"},
		{"sqlite:///var/lib/herald/herald.db", "sqlite"},
		{"postgres://herald@localhost/herald", "postgres"},
		{"postgresql://herald:pw@db:5432/herald?sslmode=disable", "postgres"},
		{"sqlite:", ""},
		{"sqlite::memory:", ""},
		{"sqlite:file:x.db", ""},
		{"sqlite:x.db?mode=ro", ""},
		{"mysql://x", ""},
		{"herald.db", ""},
		{"", ""},
	} {
		d, err := sqlstore.DialectFor(tc.url)
		got := ""
		if err == nil {
			got = d.Name()
		}
		if got != tc.want {
			t.Errorf("DialectFor(%q) = %q, %v; want %q", tc.url, got, err, tc.want)
		}
	}
}

func TestOpenRejectsUnreachableFile(t *testing.T) {
	t.Parallel()
	_, _, err := sqlstore.Open(t.Context(), sqlstore.Config{DatabaseURL: "sqlite:" + filepath.Join(t.TempDir(), "missing", "dir", "x.db")})
	if !errors.Is(err, ports.ErrUnavailable) {
		t.Fatalf("Open in a missing directory = %v, want ErrUnavailable", err)
	}
}

// The module starts (migrating the file), serves every port from one store,
// and stops.
func TestSQLiteModule(t *testing.T) {
	t.Parallel()
	cfg := sqlstore.Config{DatabaseURL: "sqlite:" + filepath.Join(t.TempDir(), "fx.db")}
	var (
		pinger     ports.Pinger
		tx         ports.Transactor
		workspaces ports.WorkspaceRepository
		keys       ports.KeyRepository
		campaigns  ports.CampaignRepository
		templates  ports.TemplateRepository
		contacts   ports.ContactRepository
		messages   ports.MessageRepository
		queue      ports.MessageQueue
		convs      ports.ConversationRepository
		webhooks   ports.WebhookEventRepository
		operators  ports.OperatorRepository
		events     ports.EventWriter
		outbox     ports.EventRepository
		endpoints  ports.EndpointRepository
		deliveries ports.DeliveryQueue
		db         *sqlx.DB
	)
	opts := fx.Options(sqlstore.SQLiteModule, fx.Supply(cfg), fx.NopLogger,
		fx.Populate(&pinger, &tx, &workspaces, &keys, &campaigns, &templates, &contacts, &messages, &queue, &convs, &webhooks, &operators,
			&events, &outbox, &endpoints, &deliveries, &db))
	if err := fx.ValidateApp(opts); err != nil {
		t.Fatalf("ValidateApp: %v", err)
	}
	app := fxtest.New(t, opts)
	app.RequireStart()
	if err := pinger.Ping(t.Context()); err != nil {
		t.Fatalf("Ping: %v", err)
	}
	current, latest, err := sqlstore.Version(t.Context(), db, sqlstore.SQLite())
	if err != nil || current != latest {
		t.Fatalf("Version after start = %d, %d, %v; want migrated", current, latest, err)
	}
	for _, p := range []any{tx, workspaces, keys, campaigns, templates, contacts, messages, queue, convs, webhooks, operators,
		events, outbox, endpoints, deliveries} {
		if p != pinger {
			t.Fatalf("%T is not the same store as the pinger", p)
		}
	}
	app.RequireStop()
	if err := db.PingContext(t.Context()); err == nil {
		t.Fatal("the pool is still open after stop")
	}
}
