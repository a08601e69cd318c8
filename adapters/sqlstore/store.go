package sqlstore

import (
	"context"
	"database/sql"
	"sync"

	"github.com/jmoiron/sqlx"

	"github.com/heraldhq/herald/ports"
)

// Store implements every repository port, the message queue, the transactor
// and the pinger over one database.
type Store struct {
	db  *sqlx.DB
	ext sqlx.ExtContext // db, or tx when the store is bound to a transaction
	tx  *sqlx.Tx
	d   Dialect

	// writer admits one writing transaction at a time on SQLite, which
	// allows only one writer anyway. Queuing writers here, in order, is far
	// cheaper than letting them poll the database lock through SQLite's
	// busy handler, whose back-off sleeps reach 100 ms. Nil on PostgreSQL.
	writer chan struct{}

	// group queues transactions for group commit (group_commit.go).
	group *committer
	stmts *stmtCache
}

// Store is every store port (ports.Store lists them).
var _ ports.Store = (*Store)(nil)

// New returns a store over db, a pool opened by Open (or OpenSQLite) for the
// dialect d, and migrated.
func New(db *sqlx.DB, d Dialect) *Store {
	s := &Store{db: db, ext: db, d: d, group: newCommitter(d.commitRunners()),
		stmts: &stmtCache{m: map[string]*sqlx.NamedStmt{}}}
	if d.Name() == "sqlite" {
		s.writer = make(chan struct{}, 1)
	}
	return s
}

// lockWriter waits for the writer slot (SQLite only) and returns its release.
func (s *Store) lockWriter(ctx context.Context) (func(), error) {
	if s.writer == nil || s.tx != nil {
		return func() {}, nil
	}
	select {
	case s.writer <- struct{}{}:
		return func() { <-s.writer }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Ping reports whether the database answers.
func (s *Store) Ping(ctx context.Context) error {
	return s.fail("ping", s.db.PingContext(ctx), nil)
}

// get runs the named query q with arg and scans its one row into dest.
func (s *Store) get(ctx context.Context, dest any, q string, arg any) error {
	if s.d.remote() {
		bound, args, err := s.bind(q, arg)
		if err != nil {
			return err
		}
		return sqlx.GetContext(ctx, s.ext, dest, bound, args...)
	}
	st, err := s.stmt(ctx, q)
	if err != nil {
		return err
	}
	return st.GetContext(ctx, dest, arg)
}

// selectAll runs the named query q with arg and scans every row into dest,
// a pointer to a slice.
func (s *Store) selectAll(ctx context.Context, dest any, q string, arg any) error {
	if s.d.remote() {
		bound, args, err := s.bind(q, arg)
		if err != nil {
			return err
		}
		return sqlx.SelectContext(ctx, s.ext, dest, bound, args...)
	}
	st, err := s.stmt(ctx, q)
	if err != nil {
		return err
	}
	return st.SelectContext(ctx, dest, arg)
}

// exec runs the named statement q with arg.
func (s *Store) exec(ctx context.Context, q string, arg any) (sql.Result, error) {
	unlock, err := s.lockWriter(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if s.d.remote() {
		bound, args, err := s.bind(q, arg)
		if err != nil {
			return nil, err
		}
		return s.ext.ExecContext(ctx, bound, args...)
	}
	st, err := s.stmt(ctx, q)
	if err != nil {
		return nil, err
	}
	return st.ExecContext(ctx, arg)
}

// selectPlanned is selectAll for a statement planned at every run
// (Dialect.planEachRun): one whose best plan depends on how many rows it
// names and on how large the tables have grown since the connection first
// ran it.
func (s *Store) selectPlanned(ctx context.Context, dest any, q string, arg any) error {
	if !s.d.remote() {
		return s.selectAll(ctx, dest, q, arg)
	}
	bound, args, err := s.bind(q, arg)
	if err != nil {
		return err
	}
	return sqlx.SelectContext(ctx, s.ext, dest, bound, append(s.d.planEachRun(), args...)...)
}

// execPlanned is exec for a statement planned at every run (see
// selectPlanned).
func (s *Store) execPlanned(ctx context.Context, q string, arg any) (sql.Result, error) {
	if !s.d.remote() {
		return s.exec(ctx, q, arg)
	}
	bound, args, err := s.bind(q, arg)
	if err != nil {
		return nil, err
	}
	return s.ext.ExecContext(ctx, bound, append(s.d.planEachRun(), args...)...)
}

// bind turns the named statement q with arg (a struct, a map, or a slice of
// either for a multi-row INSERT) into the engine's positional form.
func (s *Store) bind(q string, arg any) (string, []any, error) {
	return s.stmts.named.bindNamed(q, arg, s.db.Mapper, s.ext.Rebind)
}

// execRows runs the named INSERT q for each of rows, a non-empty slice, and
// reports how many rows it changed; when it fails, no row is stored. Where
// the dialect says so, q's VALUES list is repeated per row so that the rows
// cost one statement and one round trip; otherwise q runs prepared once per
// row, in one transaction.
func execRows[R any](ctx context.Context, s *Store, q string, rows []R) (int64, error) {
	if !s.d.remote() {
		var n int64
		err := s.inTx(ctx, func(ctx context.Context, ts *Store) error {
			for _, row := range rows {
				res, err := ts.exec(ctx, q, row)
				if err != nil {
					return err
				}
				k, err := res.RowsAffected()
				if err != nil {
					return err
				}
				n += k
			}
			return nil
		})
		return n, err
	}
	res, err := s.exec(ctx, q, rows)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// execOne runs the named statement q with arg and reports whether it changed
// a row.
func (s *Store) execOne(ctx context.Context, q string, arg any) (bool, error) {
	res, err := s.exec(ctx, q, arg)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// stmt returns q prepared, bound to s's transaction when it has one; SQLite
// only, as on PostgreSQL pgx prepares and caches statements per connection
// itself. Every statement is prepared once per pooled connection and then
// reused: parsing SQL was a quarter of SQLite's time per send. The SQL texts are constants
// (with the dialect's few variants), so the cache stays small.
func (s *Store) stmt(ctx context.Context, q string) (*sqlx.NamedStmt, error) {
	s.stmts.mu.RLock()
	st := s.stmts.m[q]
	s.stmts.mu.RUnlock()
	if st == nil {
		s.stmts.mu.Lock()
		if st = s.stmts.m[q]; st == nil {
			var err error
			if st, err = s.db.PrepareNamedContext(ctx, q); err != nil {
				s.stmts.mu.Unlock()
				return nil, err
			}
			s.stmts.m[q] = st
		}
		s.stmts.mu.Unlock()
	}
	if s.tx != nil {
		return s.tx.NamedStmtContext(ctx, st), nil
	}
	return st, nil
}

// stmtCache holds the prepared statements of a store and of the copies
// bound to its transactions.
type stmtCache struct {
	mu    sync.RWMutex
	m     map[string]*sqlx.NamedStmt
	named namedCache // PostgreSQL's compiled named statements (named.go)
}
