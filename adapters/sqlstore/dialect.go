package sqlstore

import (
	"context"
	"fmt"
	"strings"

	"github.com/jmoiron/sqlx"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/database"
)

// Dialect is what differs between the SQL engines, and only that: the driver,
// the migrations, their lock and their bookkeeping, row locking (SQLite's
// write transactions already hold the database's single write lock;
// PostgreSQL locks rows), the claim's lock clause, the sequencer's lock,
// looking contacts up by a list of numbers, lists of ids, comparing ids with
// the columns that refer to them, time arithmetic (SQLite stores times as Unix
// microseconds), how rows written together are sent, and how driver errors
// are recognised. Everything else is one SQL text for both
// engines. Get one from SQLite, Postgres or DialectFor.
type Dialect interface {
	// Name is "sqlite" or "postgres"; it also names the migrations directory.
	Name() string

	driverName() string
	// lockRows ends a SELECT whose rows a read-modify-write will update.
	lockRows() string
	// claimLock ends the SELECT of due messages in ClaimMessages, so that
	// concurrent claimers never take the same message.
	claimLock() string
	// claimPlan is a statement ClaimMessages runs in its transaction before
	// the SELECT of due messages, or "".
	claimPlan() string
	// contactsByNumber is a query for the columns of the workspace's
	// contacts of a mode with the number keys (sorted), in key order,
	// locking them (PostgreSQL) in that order, with its arguments in "?"
	// form (a driver's option for the query may come first).
	contactsByNumber(columns, ws, mode string, keys []string) (string, []any, error)
	// indexPlan is a statement the outbox's own transactions (claims,
	// attempts, sequencing, purges, redeliveries) run first so that their
	// statements read through indexes whatever the statistics say, or "".
	indexPlan() string
	// shareRows ends a SELECT whose rows of table alias decide what the
	// transaction writes (an endpoint's status, for its deliveries), so
	// that a concurrent update or delete of those rows is waited for and
	// seen, never raced; readers that share them do not wait for each
	// other.
	shareRows(alias string) string
	// sequencerLock is a statement SequenceEvents runs first in its
	// transaction so that sequencers take turns, or "".
	sequencerLock() string
	// portfolioTurn is a statement that takes the turn of the portfolio
	// bound to :portfolio until the transaction ends, shared or alone, or
	// "" where writers take turns anyway.
	portfolioTurn(shared bool) string
	// inList is a condition that column is one of the strings in the JSON
	// array bound to the named parameter param (ids given as one value),
	// which the column's index serves however few rows the planner thinks
	// the table has.
	inList(column, param string) string
	// asID is a column that refers to an id (contact_id, message_id) in
	// the ids' own collation, and asRef an id column (contacts.id) in the
	// collation of the columns that refer to it: PostgreSQL keeps ids in
	// "C", for byte order, and references in the database's collation,
	// and compares two columns of different collations without the index
	// of either. SQLite has one collation.
	asID(column string) string
	asRef(column string) string
	// unixMicros is an SQL expression for the time column as an integer
	// number of microseconds since the Unix epoch.
	unixMicros(column string) string
	// classify recognises the engine's unique violations and signs of an
	// unreachable or overloaded database.
	classify(err error) errKind
	// commitRunners is how many group-commit transactions may run at once;
	// 0 is no group commit: every transaction runs alone, as many at once as
	// the connection pool allows.
	commitRunners() int
	// planEachRun is what goes first in a statement's arguments so that
	// it is planned at every run, for the values given and the tables as
	// they are then, never kept as a generic plan made once (pgx's unnamed
	// statement, with the column types it has described once); nil where
	// every run is planned so anyway (SQLite).
	planEachRun() []any
	// remote says the engine is a server, each statement a round trip, and
	// its driver prepares and caches statements per connection itself
	// (pgx). Rows written together then go in one statement with a VALUES
	// list per row, and statements are sent by text, never prepared through
	// the pool: preparing there needs a free connection, which concurrent
	// transactions may all be holding. In process (SQLite), statements are
	// prepared once per connection by the store, and rows written together
	// run the prepared one-row statement per row (parsing a long statement
	// each time cost more than it saved).
	remote() bool
	// gooseDialect names the engine to goose, which runs the migrations.
	gooseDialect() database.Dialect
	// migrationLock is the goose option that lets one migrator at a time
	// apply or undo migrations on db, across processes.
	migrationLock(ctx context.Context, db *sqlx.DB) (goose.ProviderOption, error)
	// lockMigrations takes the same lock inside tx, until it ends.
	lockMigrations(ctx context.Context, tx *sqlx.Tx) error
	// holdMigrationLock takes, before a transaction begins, the part of
	// the lock that cannot be taken inside it, and returns its release.
	holdMigrationLock(ctx context.Context, db *sqlx.DB) (release func() error, err error)
	// tableExists is a query returning one row with 1 if the table named
	// :name exists and 0 if not.
	tableExists() string
	// appliedMigrations lists goose's record of applied migrations: the
	// version (version_id) and when it was applied (applied_at), in a form
	// dbTime scans.
	appliedMigrations() string
	// adoptLegacyVersions copies the versions recorded by the runner before
	// goose (schema_migrations) into goose's table, with their times.
	adoptLegacyVersions() string
	// verify checks a freshly opened pool: reachable, and configured as the
	// package expects.
	verify(ctx context.Context, db *sqlx.DB) error
}

// DialectFor picks the dialect from a database URL: "sqlite:PATH" or
// "postgres://…" (also "postgresql://…").
func DialectFor(databaseURL string) (Dialect, error) {
	d, _, err := parseDatabaseURL(databaseURL)
	return d, err
}

// parseDatabaseURL returns the dialect and what its driver opens: the SQLite
// file path or the PostgreSQL URL.
func parseDatabaseURL(u string) (Dialect, string, error) {
	switch {
	case strings.HasPrefix(u, "postgres://"), strings.HasPrefix(u, "postgresql://"):
		return Postgres(), u, nil
	case strings.HasPrefix(u, "sqlite:"):
		path := strings.TrimPrefix(u, "sqlite:")
		// Accept the URL-looking "sqlite://PATH" too: "sqlite:///abs" is
		// /abs and "sqlite://rel" is rel.
		path = strings.TrimPrefix(path, "//")
		switch {
		case path == "":
			return nil, "", fmt.Errorf("sqlstore: database URL %q names no file", u)
		case path == ":memory:" || strings.HasPrefix(path, "file:"):
			return nil, "", fmt.Errorf("sqlstore: database URL %q: only a file path may follow \"sqlite:\"", u)
		case strings.ContainsRune(path, '?'):
			return nil, "", fmt.Errorf("sqlstore: database URL %q: the file path must not contain a question mark", u)
		}
		return SQLite(), path, nil
	}
	return nil, "", fmt.Errorf("sqlstore: database URL must start with sqlite: or postgres://, got %q", redactURL(u))
}

// redactURL keeps a password out of error messages.
func redactURL(u string) string {
	if i := strings.Index(u, "@"); i >= 0 {
		if j := strings.Index(u, "://"); j >= 0 && j < i {
			return u[:j+3] + "…@" + u[i+1:]
		}
	}
	return u
}
