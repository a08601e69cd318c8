package sqlstore

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver
	"github.com/jmoiron/sqlx"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/database"
	"github.com/pressly/goose/v3/lock"
)

// Postgres is the dialect of a shared PostgreSQL database.
func Postgres() Dialect { return postgresDialect{} }

type postgresDialect struct{}

func (postgresDialect) Name() string       { return "postgres" }
func (postgresDialect) driverName() string { return "pgx" }

func (postgresDialect) lockRows() string { return " FOR UPDATE" }

// Concurrent claimers on several instances skip each other's rows.
func (postgresDialect) claimLock() string { return " FOR UPDATE SKIP LOCKED" }

// The outbox's tables grow by thousands of rows a minute, and a session
// keeps the plans it made while they were nearly empty: a claim planned
// then read every due delivery and every event to take 64, and an attempt's
// record every delivery (TestDeliveryClaimReadsWhatItTakesPostgres). Every
// statement of these transactions has an index that serves it in the
// order it asks for; with sequential scans and sorts ruled out for the
// transaction, PostgreSQL plans that index. A plan so ruled out costs
// more than JIT compilation's threshold, which then took 1.5 s to compile
// the sequencer's statement: JIT is off too. (set_config with is_local is
// SET LOCAL as an expression.)
func (postgresDialect) indexPlan() string {
	return "SELECT set_config('enable_seqscan', 'off', true), set_config('enable_sort', 'off', true), set_config('jit', 'off', true)"
}

// A concurrent update or delete of the row (an endpoint disabled or
// deleted) waits for the transaction, or the transaction for it, and then
// sees the row as it left it.
func (postgresDialect) shareRows(alias string) string { return " FOR SHARE OF " + alias }

// sequencerLockKey is an arbitrary constant naming the events sequencer's
// lock, a PostgreSQL advisory lock, next to the migration lock's.
const sequencerLockKey = 7_370_201_505

// Held until the sequencer's transaction ends: the next sequencer starts
// after it committed, and sees the seq it gave.
func (postgresDialect) sequencerLock() string {
	return "SELECT pg_advisory_xact_lock(" + strconv.Itoa(sequencerLockKey) + ")"
}

// portfolioTurnClass is an arbitrary constant naming the messaging limit's
// turns among PostgreSQL's two-key advisory locks; the portfolio's hash
// is the second key (two portfolios that share it share a turn).
const portfolioTurnClass = 7_370_203

// A transaction-level advisory lock: no row is written to take it.
func (postgresDialect) portfolioTurn(shared bool) string {
	f := "pg_advisory_xact_lock"
	if shared {
		f += "_shared"
	}
	return "SELECT " + f + "(" + strconv.Itoa(portfolioTurnClass) + ", hashtext(:portfolio))"
}

// The list becomes an array once (an InitPlan), which the index is
// probed with. As a subquery joined to the table (IN (SELECT …)), the
// planner took the list for 100 rows and read a small table whole to hash
// it, for every statement, until the table grew past a few thousand rows.
func (postgresDialect) inList(column, param string) string {
	return column + " = ANY(ARRAY(SELECT jsonb_array_elements_text(CAST(:" + param + " AS jsonb))))"
}

// The claim walks messages_due in its order and stops at its LIMIT. Without
// statistics on messages (a new installation, or a queue that has grown
// since the last ANALYZE), the planner estimates that a handful of rows are
// due and plans to read the whole table and sort it: measured under load, a
// claim of 64 read and sorted 6,000 queued messages, in 20 to 67 ms, and
// grew with the queue. With sorting ruled out for the claim's transaction,
// the only plan left is the index's order.
func (postgresDialect) claimPlan() string { return "SET LOCAL enable_sort = off" }

// The number keys come as one array, and each is looked up by a subquery
// of its own whose LIMIT keeps the planner from merging it into a join: the
// subquery matches every column of contacts_number, which the planner
// takes for the keys given even without statistics, and the rows are
// locked in the array's order.
//
// The query is planned at every run (planEachRun): a generic plan made
// while contacts was nearly empty, when every index costs the same,
// scanned contacts_workspace and filtered each number for as long as the
// session lasted. Planning takes 0.1 to 0.3 ms (EXPLAIN ANALYZE), once per
// batch.
func (d postgresDialect) contactsByNumber(columns, ws, mode string, keys []string) (string, []any, error) {
	q := `SELECT c.* FROM unnest(CAST(? AS text[])) WITH ORDINALITY AS p (number_key, n)
CROSS JOIN LATERAL (SELECT ` + columns + ` FROM contacts WHERE number_key = p.number_key AND workspace_id = ? AND mode = ?
LIMIT 1 FOR UPDATE) AS c
ORDER BY p.n`
	return q, append(d.planEachRun(), keys, ws, mode), nil
}

// planEachRun is pgx's unnamed statement: planned at every run, with the
// column types it has described once.
func (postgresDialect) planEachRun() []any { return []any{pgx.QueryExecModeCacheDescribe} }

func (postgresDialect) asID(column string) string  { return column + ` COLLATE "C"` }
func (postgresDialect) asRef(column string) string { return column + ` COLLATE "default"` }

func (postgresDialect) unixMicros(column string) string {
	return "CAST(extract(epoch FROM " + column + ") * 1000000 AS bigint)"
}

func (postgresDialect) classify(err error) errKind {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case pe.Code == "23505": // unique_violation
			return kindUnique
		case strings.HasPrefix(pe.Code, "08"), // connection exception
			strings.HasPrefix(pe.Code, "53"),                           // insufficient resources
			pe.Code == "57P01", pe.Code == "57P02", pe.Code == "57P03", // shutting down, cannot connect now
			pe.Code == "57014",                     // query_canceled (statement timeout)
			pe.Code == "40001", pe.Code == "40P01": // serialization failure, deadlock: nothing was written, retry
			return kindUnavailable
		}
		return kindOther
	}
	var ce *pgconn.ConnectError
	// SafeToRetry: the request never left (a pooled connection the server
	// had closed, for one), so nothing was written.
	if errors.As(err, &ce) || pgconn.Timeout(err) || pgconn.SafeToRetry(err) {
		return kindUnavailable
	}
	return kindOther
}

// No group commit: PostgreSQL already shares WAL flushes between concurrent
// commits, and sends are batched before they reach the store (decision
// 0011). Grouping unrelated transactions made each hold more row locks, in
// orders no use case chose, and groups deadlocked with each other (the
// dispatcher's lease renewals against status updates, decision 0010).
func (postgresDialect) commitRunners() int { return 0 }

func (postgresDialect) remote() bool { return true }

// migrationLockKey is an arbitrary constant naming Herald's migration lock,
// a PostgreSQL advisory lock. Builds before goose took it for each migration
// too, so they and this build never migrate at the same time.
const migrationLockKey = 7_370_201_504

func (postgresDialect) gooseDialect() database.Dialect { return database.DialectPostgres }

// migrationLock is goose's session locker: the advisory lock, held by the
// session that migrates. A migrator that finds it taken tries again every
// second, for up to five minutes.
func (postgresDialect) migrationLock(context.Context, *sqlx.DB) (goose.ProviderOption, error) {
	l, err := lock.NewPostgresSessionLocker(lock.WithLockID(migrationLockKey), lock.WithLockTimeout(1, 300))
	if err != nil {
		return nil, err
	}
	return goose.WithSessionLocker(l), nil
}

func (postgresDialect) lockMigrations(ctx context.Context, tx *sqlx.Tx) error {
	_, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, migrationLockKey)
	return err
}

// The advisory lock is taken inside the transaction (lockMigrations).
func (postgresDialect) holdMigrationLock(context.Context, *sqlx.DB) (func() error, error) {
	return func() error { return nil }, nil
}

func (postgresDialect) tableExists() string {
	return `SELECT count(*) FROM pg_catalog.pg_tables WHERE schemaname = current_schema() AND tablename = :name`
}

// goose writes tstamp, a timestamp without time zone, as now() in the
// session's time zone.
func (postgresDialect) appliedMigrations() string {
	return `SELECT version_id, CAST(tstamp AS timestamptz) AS applied_at FROM goose_db_version WHERE version_id > 0`
}

func (postgresDialect) adoptLegacyVersions() string {
	return `INSERT INTO goose_db_version (version_id, is_applied, tstamp)
SELECT version, true, CAST(applied_at AS timestamp) FROM schema_migrations
WHERE version NOT IN (SELECT version_id FROM goose_db_version)
ORDER BY version`
}

func (postgresDialect) verify(ctx context.Context, db *sqlx.DB) error {
	return db.PingContext(ctx)
}
