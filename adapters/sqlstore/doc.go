// Package sqlstore implements Herald's repository ports, its message queue
// and its transactor with sqlx, on SQLite (the embedded default, through the
// pure-Go driver modernc.org/sqlite) and on PostgreSQL (through pgx's
// database/sql driver).
//
// One *Store serves every repository port. Its methods run on an
// sqlx.ExtContext that is either the pool or, inside WithinTx, one *sqlx.Tx,
// so the same SQL runs alone or as part of a unit of work. The SQL is written
// once, with named parameters; the few statements that differ between the
// engines sit behind the narrow Dialect.
//
// Storage decisions:
//
//   - Times: INTEGER Unix microseconds (UTC) on SQLite, timestamptz on
//     PostgreSQL. Both keep exactly the microsecond precision the domain
//     truncates to, and both sort and compare correctly in SQL. Row structs
//     hold them as dbTime, whose Scan accepts either form; on SQLite the driver
//     binds time.Time values as microseconds because Open sets
//     _time_integer_format=unix_micro, and the tables are STRICT, so a time
//     bound in any other form fails loudly instead of being stored as text.
//     Times inside JSON (a message's status history) are RFC 3339 with
//     nanoseconds, in UTC.
//   - JSON columns: template placeholders, message variables, status history,
//     contact attributes and tags are JSON (TEXT on SQLite, jsonb on
//     PostgreSQL), written from private structs with explicit json tags so the
//     stored shape does not follow Go field names. A nil slice or map is
//     stored as JSON null and an empty one as [] or {}, so values round-trip
//     exactly. Optional objects (a message's pricing, an entry's media) are
//     SQL NULL when absent.
//   - Timeline: a message's sent_at, delivered_at, read_at and failed_at are
//     when it first reached each status (domain.Message.ReachedAt), derived
//     from its history on every write; they are never read back into the
//     message, only counted by CountStatusTimeline, whose intervals start
//     at whole multiples of the interval since the Unix epoch.
//   - Webhook events: the raw body as BLOB / bytea, unique by its SHA-256.
//   - Duplicates a caller expects (a redelivered webhook body, inbound
//     message or parked status) are inserted with ON CONFLICT DO NOTHING
//     and detected by the rows affected, so they never abort a PostgreSQL
//     transaction; other unique violations remain errors.
//   - API keys: only the SHA-256 of the token is stored (BLOB / bytea), next to
//     the public identifier, which has a unique index.
//   - Enumerations (statuses, modes, header formats, directions) are their
//     domain strings; an empty string is the zero value.
//   - Every query of a workspace-owned object filters by workspace_id, so
//     another workspace's object is not found by construction.
//   - Lists are newest first by id (ids are time-sortable); the cursor is the
//     last id of a page that may have more, empty on the last page; the limit
//     defaults to 50 and is capped at 100.
//
// SQLite connections: WAL journal, synchronous=FULL, foreign_keys=ON and a
// busy timeout (5 s by default) on every connection; every transaction begins
// with BEGIN IMMEDIATE (_txlock=immediate), so a read-modify-write takes the
// write lock before it reads and two writers never deadlock on a lock upgrade.
// Plain reads run outside transactions and proceed concurrently in WAL mode.
// The pool is capped at 8 connections by default, enough for concurrent
// readers. Writers wait for one in-process writer slot before they begin, in
// arrival order, instead of polling the database lock through SQLite's busy
// handler (whose back-off sleeps reach 100 ms); the busy timeout remains for
// writers in other processes, such as the CLI. SQLite has a single writer, so the message
// queue is claimed by one transaction at a time; PostgreSQL claims with
// FOR UPDATE SKIP LOCKED.
//
// On SQLite, transactions share commits (group_commit.go): one that arrives
// while another runs is queued, and the one runner commits the queue, up to
// 64, in one database transaction, each member in its own savepoint and every
// member answered after the one COMMIT; statements are prepared once per
// connection and reused (Store.stmt). On PostgreSQL every transaction runs
// alone, statements go by text for pgx to prepare and cache per connection,
// and rows written together go in one multi-row statement (execRows).
// Decisions 0010 and 0011 have the measurements.
//
// Migrations: migrations/{postgres,sqlite}/NNNN_description.sql, embedded,
// run by pressly/goose v3 (its Provider, its table goose_db_version, its
// advisory-lock session locker on PostgreSQL; a lock file beside the
// database on SQLite), each in its own transaction. migrate.go states the
// form a migration file must have; migrate_legacy.go takes over databases
// migrated before goose. Decision 0017 has the reasons.
//
// Errors are translated once, in errors.go: no rows becomes the entity's
// not-found error, a unique violation domain.ErrConflict, and an unreachable,
// locked or timed-out database ports.ErrUnavailable.
package sqlstore
