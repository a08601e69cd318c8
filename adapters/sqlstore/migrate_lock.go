package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/pressly/goose/v3/lock"
)

// migrationLockWait is how long a SQLite migrator waits for another to
// finish before it gives up.
const migrationLockWait = 5 * time.Minute

// sqliteMigrationLock lets one migrator at a time run on a SQLite
// database, in this process or another: it is the write lock of a lock file
// beside the database (its path followed by "-migrate-lock"), an empty
// SQLite database that is never written. It cannot be the database's own
// write lock, which each migration's transaction takes in turn. SQLite's
// busy handler does the waiting, up to migrationLockWait; the operating
// system releases the lock if the process dies.
type sqliteMigrationLock struct {
	path string
	db   *sql.DB
	tx   *sql.Tx
}

var _ lock.Locker = (*sqliteMigrationLock)(nil)

// newSQLiteMigrationLock returns the lock for the database db opens.
func newSQLiteMigrationLock(ctx context.Context, db *sqlx.DB) (*sqliteMigrationLock, error) {
	var file string
	if err := db.GetContext(ctx, &file, `SELECT file FROM pragma_database_list WHERE name = 'main'`); err != nil {
		return nil, translate(SQLite(), "find the database file", err, nil)
	}
	if file == "" {
		return nil, errors.New("sqlstore: the SQLite database has no file to lock migrations beside")
	}
	return &sqliteMigrationLock{path: file + "-migrate-lock"}, nil
}

// Lock waits for the lock file's write lock and holds it.
func (l *sqliteMigrationLock) Lock(ctx context.Context, _ *sql.DB) error {
	if err := createSQLiteFile(l.path); err != nil {
		return err
	}
	q := url.Values{}
	q.Set("_txlock", "immediate")
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", migrationLockWait.Milliseconds()))
	db, err := sql.Open(SQLite().driverName(), l.path+"?"+q.Encode())
	if err != nil {
		return fmt.Errorf("sqlstore: open the migration lock %s: %w", l.path, err)
	}
	db.SetMaxOpenConns(1)
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		_ = db.Close()
		return translate(SQLite(), "take the migration lock "+l.path, err, nil)
	}
	l.db, l.tx = db, tx
	return nil
}

// Unlock releases the lock.
func (l *sqliteMigrationLock) Unlock(context.Context, *sql.DB) error {
	if l.db == nil {
		return nil
	}
	err := errors.Join(l.tx.Rollback(), l.db.Close())
	l.db, l.tx = nil, nil
	if err != nil {
		return fmt.Errorf("sqlstore: release the migration lock %s: %w", l.path, err)
	}
	return nil
}
