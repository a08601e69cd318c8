package sqlstore

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
)

// The migrations of each engine, migrations/<dialect>/NNNN_description.sql,
// applied in order. Files are append-only once released.
//
//go:embed migrations
var migrationFiles embed.FS

type migration struct {
	version int
	name    string
	sql     string
}

// loadMigrations reads d's migrations and checks they are numbered 1…n
// without gaps.
func loadMigrations(d Dialect) ([]migration, error) {
	dir := path.Join("migrations", d.Name())
	entries, err := fs.ReadDir(migrationFiles, dir)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: read migrations: %w", err)
	}
	var ms []migration
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".sql") {
			continue
		}
		num, _, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v < 1 {
			return nil, fmt.Errorf("sqlstore: migration %s is not named NNNN_description.sql", e.Name())
		}
		b, err := fs.ReadFile(migrationFiles, path.Join(dir, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("sqlstore: read migration %s: %w", e.Name(), err)
		}
		ms = append(ms, migration{version: v, name: strings.TrimSuffix(e.Name(), ".sql"), sql: string(b)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	for i, m := range ms {
		if m.version != i+1 {
			return nil, fmt.Errorf("sqlstore: migration %s: expected version %d", m.name, i+1)
		}
	}
	return ms, nil
}

// Migrate brings db's schema up to date: each pending migration runs in its
// own transaction together with its row in schema_migrations, so a failed
// migration leaves the schema at the previous version. Running it again, or
// from several processes at once, applies each migration exactly once.
func Migrate(ctx context.Context, db *sqlx.DB, d Dialect) error {
	ms, err := loadMigrations(d)
	if err != nil {
		return err
	}
	for _, m := range ms {
		if err := applyMigration(ctx, db, d, m); err != nil {
			return err
		}
	}
	return nil
}

func applyMigration(ctx context.Context, db *sqlx.DB, d Dialect, m migration) (err error) {
	op := "migrate " + m.name
	tx, err := db.BeginTxx(ctx, nil)
	if err != nil {
		return translate(d, op, err, nil)
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	if err := d.lockMigrations(ctx, tx); err != nil {
		return translate(d, op, err, nil)
	}
	if _, err := tx.ExecContext(ctx, d.schemaMigrationsDDL()); err != nil {
		return translate(d, op, err, nil)
	}
	const qApplied = `SELECT count(*) FROM schema_migrations WHERE version = :version`
	query, args, err := tx.BindNamed(qApplied, map[string]any{"version": m.version})
	if err != nil {
		return err
	}
	var n int
	if err := tx.GetContext(ctx, &n, query, args...); err != nil {
		return translate(d, op, err, nil)
	}
	if n > 0 { // applied already, by an earlier run or a concurrent migrator
		return translate(d, op, tx.Rollback(), nil)
	}
	if _, err := tx.ExecContext(ctx, m.sql); err != nil {
		return translate(d, op, err, nil)
	}
	const qRecord = `INSERT INTO schema_migrations (version, name, applied_at) VALUES (:version, :name, :applied_at)`
	if _, err := tx.NamedExecContext(ctx, qRecord, map[string]any{
		"version": m.version, "name": m.name, "applied_at": newDBTime(time.Now()),
	}); err != nil {
		return translate(d, op, err, nil)
	}
	if err := tx.Commit(); err != nil {
		return translate(d, op, err, nil)
	}
	return nil
}

// Version reports the schema version db is at and the latest this build
// knows. current < latest means Migrate has work to do; current > latest
// means the database was migrated by a newer build.
func Version(ctx context.Context, db *sqlx.DB) (current, latest int, err error) {
	var d Dialect
	switch db.DriverName() {
	case SQLite().driverName():
		d = SQLite()
	case Postgres().driverName():
		d = Postgres()
	default:
		return 0, 0, fmt.Errorf("sqlstore: unknown driver %q", db.DriverName())
	}
	ms, err := loadMigrations(d)
	if err != nil {
		return 0, 0, err
	}
	latest = len(ms)
	var exists int
	if err := db.GetContext(ctx, &exists, d.schemaMigrationsExists()); err != nil {
		return 0, latest, translate(d, "read schema version", err, nil)
	}
	if exists == 0 {
		return 0, latest, nil
	}
	if err := db.GetContext(ctx, &current, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`); err != nil {
		return 0, latest, translate(d, "read schema version", err, nil)
	}
	return current, latest, nil
}
