package sqlstore

import (
	"context"
	"fmt"
	"net/url"
	"sync"
	"time"

	"github.com/jmoiron/sqlx"
	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

// bindSQLite tells sqlx that the pure-Go driver "sqlite" takes '?'
// placeholders. sqlx v1.4.0 lists only "sqlite3"; unknown drivers fall back to
// '?' anyway, but the binding should not rest on a fallback.
var bindSQLite = sync.OnceFunc(func() { sqlx.BindDriver("sqlite", sqlx.QUESTION) })

// Open opens the database cfg.DatabaseURL names, checks that it can be
// reached and is configured as expected, and returns the pool with its
// dialect. It does not migrate; see Migrate.
func Open(ctx context.Context, cfg Config) (*sqlx.DB, Dialect, error) {
	db, d, err := openPool(cfg)
	if err != nil {
		return nil, nil, err
	}
	if err := verify(ctx, db, d); err != nil {
		_ = db.Close()
		return nil, nil, err
	}
	return db, d, nil
}

// OpenSQLite opens the SQLite file at path with cfg's pool settings; see Open.
func OpenSQLite(ctx context.Context, path string, cfg Config) (*sqlx.DB, error) {
	cfg.DatabaseURL = "sqlite:" + path
	db, _, err := Open(ctx, cfg)
	return db, err
}

// openPool builds the pool without connecting: connections are made on
// first use. A SQLite file that does not exist yet is created, readable by
// its owner only.
func openPool(cfg Config) (*sqlx.DB, Dialect, error) {
	d, target, err := parseDatabaseURL(cfg.DatabaseURL)
	if err != nil {
		return nil, nil, err
	}
	switch d.Name() {
	case "sqlite":
		if err := createSQLiteFile(target); err != nil {
			return nil, nil, err
		}
		bindSQLite()
		db, err := sqlx.Open(d.driverName(), sqliteDSN(target, cfg.busyTimeout()))
		if err != nil {
			return nil, nil, fmt.Errorf("sqlstore: open sqlite %s: %w", target, err)
		}
		n := cfg.maxOpenConns(DefaultSQLiteMaxOpenConns)
		db.SetMaxOpenConns(n)
		db.SetMaxIdleConns(n) // keep connections: each new one re-runs the pragmas
		return db, d, nil
	default:
		db, err := sqlx.Open(d.driverName(), withConnectTimeout(target))
		if err != nil {
			return nil, nil, fmt.Errorf("sqlstore: open postgres: %w", err)
		}
		n := cfg.maxOpenConns(DefaultPostgresMaxOpenConns)
		db.SetMaxOpenConns(n)
		db.SetMaxIdleConns(n)
		db.SetConnMaxIdleTime(5 * time.Minute)
		db.SetConnMaxLifetime(time.Hour)
		return db, d, nil
	}
}

// sqliteDSN is path with the driver parameters every connection needs:
//   - _txlock=immediate: every transaction is BEGIN IMMEDIATE (read-only ones
//     excepted), taking the write lock before its first read;
//   - _time_integer_format=unix_micro: time.Time binds as INTEGER Unix
//     microseconds, the storage form of every time column;
//   - busy_timeout first, so the pragmas after it wait for a lock instead of
//     failing; then WAL, synchronous=FULL and foreign keys;
//   - temp_store=MEMORY: savepoint journals (one per member of a group
//     commit) stay in memory; in a temporary file they cost a write system
//     call per changed page.
func sqliteDSN(path string, busy time.Duration) string {
	q := url.Values{}
	q.Set("_txlock", "immediate")
	q.Set("_time_integer_format", "unix_micro")
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busy.Milliseconds()))
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(FULL)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "temp_store(MEMORY)")
	return path + "?" + q.Encode()
}

func verify(ctx context.Context, db *sqlx.DB, d Dialect) error {
	if err := d.verify(ctx, db); err != nil {
		return translate(d, "open "+d.Name()+" database", err, nil)
	}
	return nil
}

// withConnectTimeout bounds how long opening a PostgreSQL connection may
// take (5 s) unless the URL says otherwise, so an unreachable server makes
// requests fail fast rather than hang.
func withConnectTimeout(target string) string {
	u, err := url.Parse(target)
	if err != nil {
		return target
	}
	q := u.Query()
	if q.Get("connect_timeout") == "" {
		q.Set("connect_timeout", "5")
		u.RawQuery = q.Encode()
	}
	return u.String()
}
