package sqlstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/jmoiron/sqlx"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/database"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// SQLite is the dialect of the embedded default database.
func SQLite() Dialect { return sqliteDialect{} }

type sqliteDialect struct{}

func (sqliteDialect) Name() string       { return "sqlite" }
func (sqliteDialect) driverName() string { return "sqlite" }

// Every SQLite transaction begins IMMEDIATE, holding the single write lock
// before its first read: there is nothing more to lock.
func (sqliteDialect) lockRows() string  { return "" }
func (sqliteDialect) claimLock() string { return "" }

// SQLite has one writer: nothing to share, nothing to wait for.
func (sqliteDialect) shareRows(string) string   { return "" }
func (sqliteDialect) indexPlan() string         { return "" }
func (sqliteDialect) sequencerLock() string     { return "" }
func (sqliteDialect) portfolioTurn(bool) string { return "" }

func (sqliteDialect) inList(column, param string) string {
	return column + " IN (SELECT value FROM json_each(:" + param + "))"
}

// SQLite's planner walks messages_due for the claim's ORDER BY already.
func (sqliteDialect) claimPlan() string { return "" }

// SQLite's planner probes the unique (number_key, workspace_id, mode)
// index once per listed key.
func (sqliteDialect) contactsByNumber(columns, ws, mode string, keys []string) (string, []any, error) {
	return sqlx.In(`SELECT `+columns+` FROM contacts WHERE number_key IN (?) AND workspace_id = ? AND mode = ?
ORDER BY number_key`, keys, ws, mode)
}

// Times are stored as INTEGER Unix microseconds already.
func (sqliteDialect) unixMicros(column string) string { return column }
func (sqliteDialect) asID(column string) string       { return column }
func (sqliteDialect) asRef(column string) string      { return column }

func (sqliteDialect) classify(err error) errKind {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return kindOther
	}
	switch se.Code() {
	case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
		return kindUnique
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_BUSY, // "database is locked" beyond the busy timeout
		sqlite3.SQLITE_LOCKED,
		sqlite3.SQLITE_CANTOPEN,
		sqlite3.SQLITE_IOERR,
		sqlite3.SQLITE_FULL,
		sqlite3.SQLITE_INTERRUPT: // the context ended mid-statement
		return kindUnavailable
	}
	return kindOther
}

// SQLite has one writer: a second group could only wait for the first.
func (sqliteDialect) commitRunners() int { return 1 }

func (sqliteDialect) planEachRun() []any { return nil }
func (sqliteDialect) remote() bool       { return false }

func (sqliteDialect) gooseDialect() database.Dialect { return database.DialectSQLite3 }

// migrationLock is the write lock of the lock file beside the database
// (migrate_lock.go): goose has no lock for SQLite.
func (sqliteDialect) migrationLock(ctx context.Context, db *sqlx.DB) (goose.ProviderOption, error) {
	l, err := newSQLiteMigrationLock(ctx, db)
	if err != nil {
		return nil, err
	}
	return goose.WithLocker(l), nil
}

// Inside a transaction, BEGIN IMMEDIATE already holds the database's write
// lock, which every migration's transaction takes too.
func (sqliteDialect) lockMigrations(context.Context, *sqlx.Tx) error { return nil }

// The lock file's write lock is taken before BEGIN IMMEDIATE: a migrator
// that waited for the database's write lock instead would give up after
// the connection's busy timeout (5 s) while another applies its migrations
// one transaction after another.
func (sqliteDialect) holdMigrationLock(ctx context.Context, db *sqlx.DB) (func() error, error) {
	l, err := newSQLiteMigrationLock(ctx, db)
	if err != nil {
		return nil, err
	}
	if err := l.Lock(ctx, nil); err != nil {
		return nil, err
	}
	return func() error { return l.Unlock(context.WithoutCancel(ctx), nil) }, nil
}

func (sqliteDialect) tableExists() string {
	return `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = :name`
}

// goose writes tstamp as datetime('now'): text, UTC, whole seconds.
func (sqliteDialect) appliedMigrations() string {
	return `SELECT version_id, CAST(strftime('%s', tstamp) AS INTEGER) * 1000000 AS applied_at FROM goose_db_version WHERE version_id > 0`
}

func (sqliteDialect) adoptLegacyVersions() string {
	return `INSERT INTO goose_db_version (version_id, is_applied, tstamp)
SELECT version, 1, datetime(applied_at / 1000000, 'unixepoch') FROM schema_migrations
WHERE version NOT IN (SELECT version_id FROM goose_db_version)
ORDER BY version`
}

// verify checks that the pool reaches the file and that the pragmas took:
// some file systems silently refuse WAL.
func (sqliteDialect) verify(ctx context.Context, db *sqlx.DB) error {
	var mode string
	if err := db.GetContext(ctx, &mode, `PRAGMA journal_mode`); err != nil {
		return err
	}
	if mode != "wal" {
		return fmt.Errorf("journal_mode is %q, want wal", mode)
	}
	var fk int
	if err := db.GetContext(ctx, &fk, `PRAGMA foreign_keys`); err != nil {
		return err
	}
	if fk != 1 {
		return errors.New("foreign_keys is off")
	}
	return nil
}
