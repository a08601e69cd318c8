package sqlstore_test

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/jmoiron/sqlx"
	"go.uber.org/fx"

	"github.com/heraldhq/herald/adapters/sqlstore"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports/porttest"
	"github.com/heraldhq/herald/test/testenv"
)

// engines runs test on a new, empty database of each engine, with its URL:
// SQLite always, PostgreSQL when HERALD_TEST_POSTGRES_URL names a server.
func engines(t *testing.T, test func(t *testing.T, db *sqlx.DB, d sqlstore.Dialect, url string)) {
	for _, d := range []sqlstore.Dialect{sqlstore.SQLite(), sqlstore.Postgres()} {
		t.Run(d.Name(), func(t *testing.T) {
			t.Parallel()
			url := "sqlite:" + filepath.Join(t.TempDir(), "herald.db")
			if d.Name() == "postgres" {
				url = testenv.PostgresDatabase(t)
			}
			db, _, err := sqlstore.Open(t.Context(), sqlstore.Config{DatabaseURL: url})
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			// Registered after the drop, so it runs before it.
			t.Cleanup(func() { _ = db.Close() })
			test(t, db, d, url)
		})
	}
}

// legacyBookkeepingDDL is the table in which the migration runner before
// goose recorded each migration it applied, as it created it.
var legacyBookkeepingDDL = map[string]string{
	"sqlite": `CREATE TABLE IF NOT EXISTS schema_migrations (
    version    INTEGER NOT NULL PRIMARY KEY,
    name       TEXT    NOT NULL,
    applied_at INTEGER NOT NULL
) STRICT`,
	"postgres": `CREATE TABLE IF NOT EXISTS schema_migrations (
    version    integer     NOT NULL PRIMARY KEY,
    name       text        NOT NULL,
    applied_at timestamptz NOT NULL
)`,
}

// migrateBeforeGoose migrates db to version until as the runner before goose
// did: for each migration, one transaction that creates its bookkeeping
// table if need be, runs the file (all of it: the runner's files had no
// down section) and records the version, its name and the time. It returns
// the times it recorded.
func migrateBeforeGoose(t *testing.T, db *sqlx.DB, d sqlstore.Dialect, until int) map[int]time.Time {
	t.Helper()
	ctx := t.Context()
	files := migrationFiles(t, d)
	applied := map[int]time.Time{}
	for v := 1; v <= until; v++ {
		name := files[v-1]
		b, err := os.ReadFile(filepath.Join("migrations", d.Name(), name+".sql"))
		if err != nil {
			t.Fatal(err)
		}
		// Distinct seconds, in the past, so the test sees them carried over.
		at := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC).Add(time.Duration(v) * time.Hour)
		tx := db.MustBeginTx(ctx, nil)
		for _, q := range []string{legacyBookkeepingDDL[d.Name()], upSection(b)} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				t.Fatalf("apply %s: %v", name, err)
			}
		}
		if _, err := tx.NamedExecContext(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (:version, :name, :applied_at)`,
			map[string]any{"version": v, "name": name, "applied_at": at}); err != nil {
			t.Fatalf("record %s: %v", name, err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		applied[v] = at
	}
	return applied
}

// domainValues compares domain values as the contract suite does: enums by
// their unexported fields, nil and empty alike, times as instants.
var domainValues = gocmp.Options{
	gocmp.AllowUnexported(domain.PhoneNumber{}, domain.KeyMode{}, domain.HeaderFormat{}, domain.SlotKind{}, domain.ButtonKind{},
		domain.CampaignStatus{}, domain.MessageStatus{}, domain.TemplateStatus{}, domain.TemplateCategory{}),
	cmpopts.EquateEmpty(),
	cmpopts.EquateApproxTime(0),
}

// upSection is what the runner before goose ran of a migration file: the
// statements before its down section.
func upSection(file []byte) string {
	up, _, _ := strings.Cut(string(file), "\n-- +goose Down\n")
	return up
}

// migrationFiles lists d's migration names in version order.
func migrationFiles(t *testing.T, d sqlstore.Dialect) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join("migrations", d.Name()))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e.Name(), ".sql"))
	}
	slices.Sort(names)
	return names
}

// Every migration is written for both engines under one name, numbered
// 1…n without gaps, in the form goose runs (migrate.go): an up section, at
// most one down section, every statement in one transaction.
func TestMigrationFiles(t *testing.T) {
	t.Parallel()
	sqlite, postgres := migrationFiles(t, sqlstore.SQLite()), migrationFiles(t, sqlstore.Postgres())
	if diff := gocmp.Diff(sqlite, postgres); diff != "" {
		t.Errorf("the engines' migrations differ (-sqlite +postgres):\n%s", diff)
	}
	name := regexp.MustCompile(`^(\d{4})_[a-z0-9]+(_[a-z0-9]+)*$`)
	for i, n := range sqlite {
		m := name.FindStringSubmatch(n)
		if m == nil || m[1] != fmt.Sprintf("%04d", i+1) {
			t.Errorf("migration %d is named %s.sql, want %04d_description.sql", i+1, n, i+1)
		}
	}
	annotation := regexp.MustCompile(`(?m)^\s*--.*\+goose(.*)$`)
	for _, dir := range []string{"sqlite", "postgres"} {
		err := fs.WalkDir(os.DirFS("migrations"), dir, func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return err
			}
			b, err := os.ReadFile(filepath.Join("migrations", p))
			if err != nil {
				return err
			}
			var got []string
			for _, m := range annotation.FindAllStringSubmatch(string(b), -1) {
				got = append(got, strings.TrimSpace(m[1]))
			}
			if len(got) == 0 || got[0] != "Up" || slices.Index(got[1:], "Up") >= 0 {
				t.Errorf("%s: annotations %q, want one Up first", p, got)
			}
			for _, a := range got[1:] {
				if a != "Down" && a != "StatementBegin" && a != "StatementEnd" {
					t.Errorf("%s: annotation %q: a migration has an Up section, at most one Down section, and runs in a transaction as written", p, a)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// A database migrated before goose, with data written by this build, is
// taken over on the first run: its versions move to goose's table with the
// times they were applied, the old table goes, nothing is applied twice and
// nothing is lost.
func TestMigrateTakesOverADatabaseMigratedBeforeGoose(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, db *sqlx.DB, d sqlstore.Dialect, _ string) {
		ctx := t.Context()
		latest := len(migrationFiles(t, d))
		before := migrateBeforeGoose(t, db, d, latest)
		s := sqlstore.New(db, d)
		ws := porttest.NewWorkspace(t)
		key := porttest.NewKey(t, ws.ID, domain.ModeLive)
		c := porttest.NewCampaign(t, ws.ID)
		ct := porttest.NewContact(t, ws.ID)
		m := porttest.NewMessage(t, c, ct)
		for _, err := range []error{
			s.CreateWorkspace(ctx, ws), s.CreateKey(ctx, key), s.CreateCampaign(ctx, c),
			s.CreateContact(ctx, ct), s.CreateMessages(ctx, m),
		} {
			if err != nil {
				t.Fatal(err)
			}
		}

		// Read before goose takes over, as a server of this build does.
		current, got, err := sqlstore.Version(ctx, db, d)
		if err != nil || current != latest || got != latest {
			t.Fatalf("Version before the first run = %d, %d, %v; want %d, %d", current, got, err, latest, latest)
		}
		if err := sqlstore.CheckVersion(ctx, db, d); err != nil {
			t.Fatalf("CheckVersion before the first run: %v", err)
		}

		for range 2 {
			if err := sqlstore.Migrate(ctx, db, d); err != nil {
				t.Fatalf("Migrate: %v", err)
			}
		}
		states, err := sqlstore.MigrationStatus(ctx, db, d)
		if err != nil {
			t.Fatal(err)
		}
		var want []sqlstore.MigrationState
		for v, name := range migrationFiles(t, d) {
			want = append(want, sqlstore.MigrationState{Version: v + 1, Name: name, AppliedAt: before[v+1], Reversible: reversible(t, d, name)})
		}
		if diff := gocmp.Diff(want, states); diff != "" {
			t.Errorf("MigrationStatus after taking over (-want +got):\n%s", diff)
		}
		var versions []int
		if err := db.SelectContext(ctx, &versions, `SELECT version_id FROM goose_db_version ORDER BY id`); err != nil {
			t.Fatal(err)
		}
		if diff := gocmp.Diff(append([]int{0}, slices.Sorted(maps.Keys(before))...), versions); diff != "" {
			t.Errorf("goose_db_version (-want +got):\n%s", diff)
		}
		var legacy int
		if err := db.GetContext(ctx, &legacy, `SELECT count(*) FROM schema_migrations`); err == nil {
			t.Errorf("schema_migrations still exists, with %d rows", legacy)
		}

		gotKey, err := s.GetKeyByIdentifier(ctx, key.Identifier)
		if err != nil {
			t.Fatal(err)
		}
		if diff := gocmp.Diff(key, gotKey, domainValues); diff != "" {
			t.Errorf("the key after taking over (-want +got):\n%s", diff)
		}
		gotCampaign, err := s.GetCampaign(ctx, ws.ID, c.ID)
		if err != nil {
			t.Fatal(err)
		}
		if diff := gocmp.Diff(c, gotCampaign, domainValues); diff != "" {
			t.Errorf("the campaign after taking over (-want +got):\n%s", diff)
		}
		gotMessage, err := s.GetMessage(ctx, ws.ID, m.ID)
		if err != nil {
			t.Fatal(err)
		}
		if diff := gocmp.Diff(m, gotMessage, domainValues); diff != "" {
			t.Errorf("the message after taking over (-want +got):\n%s", diff)
		}
	})
}

// Each down section leaves the schema exactly as the version before had
// it, and the version applies again; a migration without one is refused
// and stays applied. Rows written at version 1 survive every step.
func TestMigrateDownRestoresEachVersion(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, db *sqlx.DB, d sqlstore.Dialect, _ string) {
		ctx := t.Context()
		files := migrationFiles(t, d)
		before := schemaOf(t, db, d)
		for v := 1; v <= len(files); v++ {
			if err := sqlstore.MigrateTo(ctx, db, d, v); err != nil {
				t.Fatalf("MigrateTo %d: %v", v, err)
			}
			if v == 1 {
				writeVersion1Rows(t, db)
			}
			after := schemaOf(t, db, d)
			err := sqlstore.MigrateDown(ctx, db, d)
			if !reversible(t, d, files[v-1]) {
				if !errors.Is(err, sqlstore.ErrIrreversible) || !strings.Contains(err.Error(), files[v-1]) {
					t.Errorf("MigrateDown at version %d = %v, want ErrIrreversible naming %s", v, err, files[v-1])
				}
				if current, _, err := sqlstore.Version(ctx, db, d); err != nil || current != v {
					t.Errorf("Version after the refused MigrateDown = %d, %v; want %d", current, err, v)
				}
				before = after
				continue
			}
			if err != nil {
				t.Fatalf("MigrateDown from %d: %v", v, err)
			}
			if current, _, err := sqlstore.Version(ctx, db, d); err != nil || current != v-1 {
				t.Fatalf("Version after MigrateDown from %d = %d, %v; want %d", v, current, err, v-1)
			}
			if diff := gocmp.Diff(before, schemaOf(t, db, d)); diff != "" {
				t.Errorf("the schema after undoing %s differs from version %d's (-want +got):\n%s", files[v-1], v-1, diff)
			}
			if err := sqlstore.MigrateTo(ctx, db, d, v); err != nil {
				t.Fatalf("MigrateTo %d again: %v", v, err)
			}
			if diff := gocmp.Diff(after, schemaOf(t, db, d)); diff != "" {
				t.Errorf("the schema after applying %s again differs (-want +got):\n%s", files[v-1], diff)
			}
			before = after
		}
		var messages int
		if err := db.GetContext(ctx, &messages, `SELECT count(*) FROM messages`); err != nil || messages != 1 {
			t.Errorf("messages after every step: %d, %v; want the one written at version 1", messages, err)
		}
	})
}

// writeVersion1Rows writes a workspace, a campaign, a contact and a message
// with the columns of schema version 1.
func writeVersion1Rows(t *testing.T, db *sqlx.DB) {
	t.Helper()
	at := porttest.Now()
	for _, q := range []string{
		`INSERT INTO workspaces (id, name, is_default, created_at) VALUES ('wsp_1', 'one', false, :at)`,
		`INSERT INTO campaigns (id, workspace_id, name, template_name, language, header_format, header_text, body,
    footer, placeholders, status, created_at, updated_at)
VALUES ('cmp_1', 'wsp_1', 'c', 'tpl', 'en_US', 'none', '', 'Hi', '', '[]', 'active', :at, :at)`,
		`INSERT INTO contacts (id, workspace_id, conversation_id, phone_number, name, email, attributes, tags,
    opted_out, created_at, updated_at)
VALUES ('ctc_1', 'wsp_1', 'cnv_1', '+14155551000', '', '', '{}', '[]', false, :at, :at)`,
		`INSERT INTO messages (id, workspace_id, campaign_id, contact_id, key_id, mode, phone_number, template_name,
    language, header_format, variables, media_header_url, rendered_body, status, history, created_at, updated_at)
VALUES ('msg_1', 'wsp_1', 'cmp_1', 'ctc_1', 'key_1', 'test', '+14155551000', 'tpl', 'en_US', 'none', '[]', '', 'Hi',
    'queued', '[]', :at, :at)`,
	} {
		if _, err := db.NamedExecContext(t.Context(), q, map[string]any{"at": at}); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// reversible reports whether d's migration name has a down section.
func reversible(t *testing.T, d sqlstore.Dialect, name string) bool {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("migrations", d.Name(), name+".sql"))
	if err != nil {
		t.Fatal(err)
	}
	return regexp.MustCompile(`(?m)^-- \+goose Down$`).Match(b)
}

// schemaOf describes db's schema, without goose's table, one line per
// column, index, constraint and table option, sorted.
func schemaOf(t *testing.T, db *sqlx.DB, d sqlstore.Dialect) []string {
	t.Helper()
	queries := map[string][]string{
		// SQLite keeps each table's and index's definition as text, rewritten
		// by ALTER TABLE; a renamed table's name is quoted in it.
		"sqlite": {`SELECT type || ' ' || name || ': ' || replace(sql, '"', '') FROM sqlite_master
WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' AND tbl_name <> 'goose_db_version'`},
		// Columns in name order: PostgreSQL appends a column added again.
		"postgres": {
			`SELECT 'column ' || table_name || '.' || column_name || ': ' || data_type || ' ' || is_nullable || ' ' ||
    coalesce(column_default, '') || ' ' || coalesce(collation_name, '')
FROM information_schema.columns WHERE table_schema = current_schema() AND table_name <> 'goose_db_version'`,
			`SELECT 'index ' || indexname || ': ' || indexdef FROM pg_indexes
WHERE schemaname = current_schema() AND tablename <> 'goose_db_version'`,
			`SELECT 'constraint ' || conrelid::regclass::text || '.' || conname || ': ' || pg_get_constraintdef(oid)
FROM pg_constraint WHERE connamespace = current_schema()::regnamespace AND conrelid::regclass::text <> 'goose_db_version'`,
			`SELECT 'table ' || relname || ': ' || coalesce(array_to_string(reloptions, ','), '') FROM pg_class
WHERE relnamespace = current_schema()::regnamespace AND relkind = 'r' AND relname <> 'goose_db_version'`,
		},
	}
	space := regexp.MustCompile(`\s+`)
	punctuation := regexp.MustCompile(`\s*([(),])\s*`)
	var lines []string
	for _, q := range queries[d.Name()] {
		var got []string
		if err := db.SelectContext(t.Context(), &got, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		for _, l := range got {
			lines = append(lines, punctuation.ReplaceAllString(space.ReplaceAllString(l, " "), "$1"))
		}
	}
	slices.Sort(lines)
	return lines
}

// Migrators started together, each with its own pool as separate
// processes have, apply each migration once.
func TestMigrateFromSeveralPools(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, db *sqlx.DB, d sqlstore.Dialect, url string) {
		ctx := t.Context()
		errs := make([]error, 3)
		var wg sync.WaitGroup
		for i := range errs {
			wg.Go(func() {
				other, _, err := sqlstore.Open(ctx, sqlstore.Config{DatabaseURL: url})
				if err != nil {
					errs[i] = err
					return
				}
				defer other.Close()
				errs[i] = sqlstore.Migrate(ctx, other, d)
			})
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				t.Fatalf("Migrate: %v", err)
			}
		}
		var rows []int
		if err := db.SelectContext(ctx, &rows, `SELECT version_id FROM goose_db_version ORDER BY version_id`); err != nil {
			t.Fatal(err)
		}
		want := []int{0}
		for v := range migrationFiles(t, d) {
			want = append(want, v+1)
		}
		if diff := gocmp.Diff(want, rows); diff != "" {
			t.Errorf("goose_db_version (-want +got): each migration should be recorded once\n%s", diff)
		}
	})
}

// On SQLite a migrator that finds another at work waits for the migration
// lock, not for the database's write lock: with a busy timeout far shorter
// than the others' migrations take, every migrator still succeeds.
func TestMigratorsWaitForTheLockNotTheBusyTimeout(t *testing.T) {
	t.Parallel()
	url := "sqlite:" + filepath.Join(t.TempDir(), "herald.db")
	ctx := t.Context()
	// The pools are open before any migrator starts, as a server's are: a
	// pool opened just as another migrator closes its own can find the
	// database locked for longer than the 20 ms (closing SQLite's last
	// connection checkpoints the WAL), a wait no migration lock covers and
	// not what this test is about.
	dbs := make([]*sqlx.DB, 4)
	for i := range dbs {
		db, _, err := sqlstore.Open(ctx, sqlstore.Config{DatabaseURL: url, BusyTimeout: 20 * time.Millisecond})
		if err != nil {
			t.Fatalf("Open %d: %v", i, err)
		}
		defer db.Close()
		dbs[i] = db
	}
	errs := make([]error, len(dbs))
	var wg sync.WaitGroup
	for i, db := range dbs {
		wg.Go(func() { errs[i] = sqlstore.Migrate(ctx, db, sqlstore.SQLite()) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("migrator %d: %v", i, err)
		}
	}
}

// A database a newer build migrated is neither migrated, undone nor served
// by this build, and the refusal names both versions.
func TestSchemaNewerThanTheBuild(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, db *sqlx.DB, d sqlstore.Dialect, url string) {
		ctx := t.Context()
		if err := sqlstore.Migrate(ctx, db, d); err != nil {
			t.Fatal(err)
		}
		latest := len(migrationFiles(t, d))
		newer := latest + 1
		if _, err := db.ExecContext(ctx, db.Rebind(`INSERT INTO goose_db_version (version_id, is_applied) VALUES (?, ?)`), newer, true); err != nil {
			t.Fatal(err)
		}
		current, got, err := sqlstore.Version(ctx, db, d)
		if err != nil || current != newer || got != latest {
			t.Fatalf("Version = %d, %d, %v; want %d, %d", current, got, err, newer, latest)
		}
		states, err := sqlstore.MigrationStatus(ctx, db, d)
		if err != nil {
			t.Fatal(err)
		}
		if last := states[len(states)-1]; last.Version != newer || last.Name != "" || !last.Applied() {
			t.Errorf("MigrationStatus ends with %+v, want version %d applied and unknown to this build", last, newer)
		}
		names := fmt.Sprintf("version %d, this build knows versions up to %d", newer, latest)
		for op, err := range map[string]error{
			"Migrate":      sqlstore.Migrate(ctx, db, d),
			"MigrateDown":  sqlstore.MigrateDown(ctx, db, d),
			"CheckVersion": sqlstore.CheckVersion(ctx, db, d),
			"start":        startModule(t, url, d),
		} {
			if !errors.Is(err, sqlstore.ErrSchemaNewer) || !strings.Contains(err.Error(), names) {
				t.Errorf("%s = %v; want ErrSchemaNewer saying %q", op, err, names)
			}
		}
		if current, _, err := sqlstore.Version(ctx, db, d); err != nil || current != newer {
			t.Errorf("Version after the refusals = %d, %v; want %d", current, err, newer)
		}
	})
}

// startModule starts d's store module on the database url names and
// returns the start error.
func startModule(t *testing.T, url string, d sqlstore.Dialect) error {
	t.Helper()
	module := sqlstore.SQLiteModule
	if d.Name() == "postgres" {
		module = sqlstore.PostgresModule
	}
	app := fx.New(module, fx.Supply(sqlstore.Config{DatabaseURL: url}), fx.NopLogger, fx.Invoke(func(*sqlx.DB) {}))
	err := app.Start(t.Context())
	if err == nil {
		_ = app.Stop(t.Context())
	}
	return err
}

// A database without migrations has nothing to undo.
func TestMigrateDownOnAnEmptyDatabase(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, db *sqlx.DB, d sqlstore.Dialect, _ string) {
		if err := sqlstore.MigrateDown(t.Context(), db, d); err == nil || !strings.Contains(err.Error(), "no migration to undo") {
			t.Errorf("MigrateDown on an empty database = %v, want no migration to undo", err)
		}
	})
}
