package sqlstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/jmoiron/sqlx"
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

func (sqliteDialect) remote() bool { return false }

// SQLite migrators are serialised by BEGIN IMMEDIATE.
func (sqliteDialect) lockMigrations(context.Context, *sqlx.Tx) error { return nil }

func (sqliteDialect) schemaMigrationsDDL() string {
	return `CREATE TABLE IF NOT EXISTS schema_migrations (
    version    INTEGER NOT NULL PRIMARY KEY,
    name       TEXT    NOT NULL,
    applied_at INTEGER NOT NULL
) STRICT`
}

func (sqliteDialect) schemaMigrationsExists() string {
	return `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'`
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
