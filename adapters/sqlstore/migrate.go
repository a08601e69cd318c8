package sqlstore

import (
	"bufio"
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/pressly/goose/v3"
)

// The migrations of each engine, run by goose (github.com/pressly/goose/v3)
// through its Provider, each in its own transaction together with its row in
// goose's table, goose_db_version. One migrator at a time applies or undoes
// migrations: on PostgreSQL goose's session locker holds an advisory lock;
// on SQLite the write lock of a lock file beside the database does
// (migrate_lock.go). A database migrated before goose is taken over on the
// first run (migrate_legacy.go).
//
// # The migration files
//
// To convert a file written for the runner before goose (the statements
// alone): insert the line "-- +goose Up" after its opening comments, before
// its first statement; then add a "-- +goose Down" section if the change can
// be undone, or else say in the opening comments why it cannot. The rest of
// this note is the form in full.
//
// Every change to the schema is one file in migrations/postgres and one in
// migrations/sqlite, with the same name. A file must have this form, or goose
// refuses it or runs it wrongly:
//
//   - Name: NNNN_description.sql. NNNN is the version, four digits: the
//     versions are 1, 2, 3, … without gaps, and the next file takes the
//     highest version in either directory plus one. The description is lower
//     case words joined by "_", the same in both directories.
//   - It may open with comment lines ("-- …") saying what it changes and
//     why. Only annotations may contain the text "+goose".
//   - Then the line "-- +goose Up", and after it the statements that apply
//     the change. goose splits statements at a ";" that ends a line; a
//     statement with semicolons inside (a PL/pgSQL body, a trigger) goes
//     between the lines "-- +goose StatementBegin" and
//     "-- +goose StatementEnd". Comments between statements are welcome.
//   - Then, if the change can be undone, the line "-- +goose Down", and after
//     it the statements that undo it, in reverse order, leaving the schema
//     exactly as the previous version had it (a test compares the schemas).
//     Data the change rewrote (a backfill, a normalisation) stays as it is
//     unless it can be restored; a comment under "-- +goose Down" says so.
//     A file without a "-- +goose Down" line cannot be undone: MigrateDown
//     refuses it and names it. Undoing 0001_init would drop every table, so
//     it has none; nor have 0009_modes and 0010_whatsapp_identities, whose
//     opening comments say why.
//   - No "-- +goose NO TRANSACTION" and no "-- +goose ENVSUB ON": every
//     migration runs in one transaction, as written.
//
// Files are append-only once released: a release's databases have run their
// Up sections, so a later change is a new file.
//
//go:embed migrations
var migrationFiles embed.FS

// MigrationState is one migration and whether the database has it.
type MigrationState struct {
	Version int
	// Name is the file's name without ".sql" ("0001_init"); empty for a
	// migration the database has and this build does not know (a newer
	// build applied it).
	Name string
	// AppliedAt is when it was applied, in UTC (to the second on SQLite,
	// where goose stores whole seconds); zero while pending.
	AppliedAt time.Time
	// Reversible says the file has a down section, so MigrateDown can undo
	// it; false for a migration this build does not know.
	Reversible bool
}

// Applied reports whether the database has the migration.
func (m MigrationState) Applied() bool { return !m.AppliedAt.IsZero() }

// ErrSchemaNewer marks a database migrated by a newer build than this one:
// this build neither serves it nor migrates it.
var ErrSchemaNewer = errors.New("the database schema is newer than this build")

// ErrIrreversible marks a migration that cannot be undone.
var ErrIrreversible = errors.New("the migration cannot be undone")

// Migrate brings db's schema up to this build's latest version: each
// pending migration runs in its own transaction together with its version
// row, so a failed migration leaves the schema at the previous version.
// Running it again, or from several processes at once, applies each
// migration exactly once. It refuses a database at a version newer than
// this build's latest (ErrSchemaNewer).
func Migrate(ctx context.Context, db *sqlx.DB, d Dialect) error {
	p, err := prepareMigrations(ctx, db, d)
	if err != nil {
		return err
	}
	if _, err := p.Up(ctx); err != nil {
		return migrationError(d, "migrate", err)
	}
	return nil
}

// MigrateDown undoes the latest migration the database has, in one
// transaction together with the removal of its version row. It refuses a
// migration without a down section (ErrIrreversible), a database with none
// applied, and a database newer than this build (ErrSchemaNewer).
func MigrateDown(ctx context.Context, db *sqlx.DB, d Dialect) error {
	p, err := prepareMigrations(ctx, db, d)
	if err != nil {
		return err
	}
	states, err := MigrationStatus(ctx, db, d)
	if err != nil {
		return err
	}
	var latest *MigrationState
	for i := range states {
		if states[i].Applied() {
			latest = &states[i]
		}
	}
	switch {
	case latest == nil:
		return errors.New("sqlstore: the database has no migration to undo")
	case !latest.Reversible:
		return fmt.Errorf("sqlstore: %w: %s has no down section (-- +goose Down)", ErrIrreversible, latest.Name)
	}
	if _, err := p.Down(ctx); err != nil {
		return migrationError(d, "undo migration", err)
	}
	return nil
}

// MigrationStatus lists this build's migrations in version order, each with
// when db applied it, followed by the migrations db has that this build
// does not know. It only reads.
func MigrationStatus(ctx context.Context, db *sqlx.DB, d Dialect) ([]MigrationState, error) {
	states, err := knownMigrations(d)
	if err != nil {
		return nil, err
	}
	applied, err := appliedMigrations(ctx, db, d)
	if err != nil {
		return nil, err
	}
	for i, m := range states {
		if at, ok := applied[m.Version]; ok {
			states[i].AppliedAt = at
			delete(applied, m.Version)
		}
	}
	unknown := make([]MigrationState, 0, len(applied))
	for v, at := range applied {
		unknown = append(unknown, MigrationState{Version: v, AppliedAt: at})
	}
	slices.SortFunc(unknown, func(a, b MigrationState) int { return a.Version - b.Version })
	return append(states, unknown...), nil
}

// Version reports the schema version db is at (the highest it has applied;
// 0 for an empty database) and the latest this build knows. current <
// latest means Migrate has work to do; current > latest means a newer build
// migrated the database. It only reads.
func Version(ctx context.Context, db *sqlx.DB, d Dialect) (current, latest int, err error) {
	states, err := MigrationStatus(ctx, db, d)
	if err != nil {
		return 0, 0, err
	}
	for _, m := range states {
		if m.Name != "" {
			latest = max(latest, m.Version)
		}
		if m.Applied() {
			current = max(current, m.Version)
		}
	}
	return current, latest, nil
}

// CheckVersion returns nil when db's schema is at this build's latest
// version, and otherwise an error naming both versions: behind (run herald
// migrate) or ahead (ErrSchemaNewer).
func CheckVersion(ctx context.Context, db *sqlx.DB, d Dialect) error {
	current, latest, err := Version(ctx, db, d)
	if err != nil {
		return err
	}
	return versionMismatch(current, latest)
}

func versionMismatch(current, latest int) error {
	switch {
	case current < latest:
		return fmt.Errorf("sqlstore: the database schema is at version %d, this build needs %d: run herald migrate", current, latest)
	case current > latest:
		return fmt.Errorf("sqlstore: %w: the database is at version %d, this build knows versions up to %d: "+
			"run the build that migrated it, or undo its migrations with that build's herald migrate down", ErrSchemaNewer, current, latest)
	}
	return nil
}

// prepareMigrations readies db for goose (adopting a database migrated
// before goose), refuses a database newer than this build, and returns the
// provider that migrates it.
func prepareMigrations(ctx context.Context, db *sqlx.DB, d Dialect) (*goose.Provider, error) {
	if err := prepareVersionTable(ctx, db, d); err != nil {
		return nil, err
	}
	current, latest, err := Version(ctx, db, d)
	if err != nil {
		return nil, err
	}
	if current > latest {
		return nil, versionMismatch(current, latest)
	}
	lock, err := d.migrationLock(ctx, db)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: migration lock: %w", err)
	}
	fsys, err := migrationsOf(d)
	if err != nil {
		return nil, err
	}
	p, err := goose.NewProvider(d.gooseDialect(), db.DB, fsys, lock, goose.WithDisableGlobalRegistry(true))
	if err != nil {
		return nil, fmt.Errorf("sqlstore: migrations: %w", err)
	}
	return p, nil
}

// migrationsOf is d's migrations directory.
func migrationsOf(d Dialect) (fs.FS, error) {
	fsys, err := fs.Sub(migrationFiles, path.Join("migrations", d.Name()))
	if err != nil {
		return nil, fmt.Errorf("sqlstore: migrations: %w", err)
	}
	return fsys, nil
}

// knownMigrations lists d's migration files in version order, none applied.
func knownMigrations(d Dialect) ([]MigrationState, error) {
	fsys, err := migrationsOf(d)
	if err != nil {
		return nil, err
	}
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, fmt.Errorf("sqlstore: read migrations: %w", err)
	}
	var ms []MigrationState
	for _, e := range entries {
		if e.IsDir() || path.Ext(e.Name()) != ".sql" {
			continue
		}
		v, err := goose.NumericComponent(e.Name())
		if err != nil {
			return nil, fmt.Errorf("sqlstore: migration %s is not named NNNN_description.sql: %w", e.Name(), err)
		}
		b, err := fs.ReadFile(fsys, e.Name())
		if err != nil {
			return nil, fmt.Errorf("sqlstore: read migration %s: %w", e.Name(), err)
		}
		ms = append(ms, MigrationState{Version: int(v), Name: strings.TrimSuffix(e.Name(), ".sql"), Reversible: hasDown(b)})
	}
	slices.SortFunc(ms, func(a, b MigrationState) int { return a.Version - b.Version })
	return ms, nil
}

// hasDown reports whether a migration file has a down section.
func hasDown(file []byte) bool {
	s := bufio.NewScanner(bytes.NewReader(file))
	for s.Scan() {
		if isAnnotation(s.Text(), "Down") {
			return true
		}
	}
	return false
}

// isAnnotation reports whether line is the goose annotation "-- +goose a".
func isAnnotation(line, a string) bool {
	rest, ok := strings.CutPrefix(strings.TrimSpace(line), "--")
	return ok && strings.TrimSpace(rest) == "+goose "+a
}

// appliedMigrations reads when db applied each migration it has: from
// goose's table, or from the table of the runner before goose while goose
// has not taken the database over yet.
func appliedMigrations(ctx context.Context, db *sqlx.DB, d Dialect) (map[int]time.Time, error) {
	const op = "read the schema version"
	q := d.appliedMigrations()
	takenOver, err := tableExists(ctx, db, d, goose.DefaultTablename)
	if err != nil {
		return nil, translate(d, op, err, nil)
	}
	if !takenOver {
		legacy, err := tableExists(ctx, db, d, legacyTable)
		if err != nil {
			return nil, translate(d, op, err, nil)
		}
		if !legacy {
			return map[int]time.Time{}, nil
		}
		q = legacyApplied
	}
	var rows []struct {
		Version   int    `db:"version_id"`
		AppliedAt dbTime `db:"applied_at"`
	}
	if err := db.SelectContext(ctx, &rows, q); err != nil {
		return nil, translate(d, op, err, nil)
	}
	applied := make(map[int]time.Time, len(rows))
	for _, r := range rows {
		applied[r.Version] = r.AppliedAt.time()
	}
	return applied, nil
}

// tableExists reports whether the table exists in db's schema.
func tableExists(ctx context.Context, ext sqlx.ExtContext, d Dialect, table string) (bool, error) {
	q, args, err := sqlx.Named(d.tableExists(), map[string]any{"name": table})
	if err != nil {
		return false, err
	}
	var n int
	if err := sqlx.GetContext(ctx, ext, &n, ext.Rebind(q), args...); err != nil {
		return false, err
	}
	return n > 0, nil
}

// migrationError names the migration goose failed on, if any, and
// translates the database's error.
func migrationError(d Dialect, op string, err error) error {
	var pe *goose.PartialError
	if errors.As(err, &pe) && pe.Failed != nil && pe.Failed.Source != nil {
		return translate(d, op+" "+path.Base(pe.Failed.Source.Path), pe.Err, nil)
	}
	return translate(d, op, err, nil)
}
