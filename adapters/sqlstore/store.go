package sqlstore

import (
	"context"
	"database/sql"

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
}

var (
	_ ports.WorkspaceRepository    = (*Store)(nil)
	_ ports.KeyRepository          = (*Store)(nil)
	_ ports.CampaignRepository     = (*Store)(nil)
	_ ports.TemplateRepository     = (*Store)(nil)
	_ ports.ContactRepository      = (*Store)(nil)
	_ ports.MessageRepository      = (*Store)(nil)
	_ ports.MessageQueue           = (*Store)(nil)
	_ ports.ConversationRepository = (*Store)(nil)
	_ ports.WebhookEventRepository = (*Store)(nil)
	_ ports.IdempotencyRepository  = (*Store)(nil)
	_ ports.SendCountRepository    = (*Store)(nil)
	_ ports.Transactor             = (*Store)(nil)
	_ ports.Pinger                 = (*Store)(nil)
)

// New returns a store over db, a pool opened by Open (or OpenSQLite) for the
// dialect d, and migrated.
func New(db *sqlx.DB, d Dialect) *Store {
	s := &Store{db: db, ext: db, d: d}
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
	query, args, err := s.ext.BindNamed(q, arg)
	if err != nil {
		return err
	}
	return sqlx.GetContext(ctx, s.ext, dest, query, args...)
}

// selectAll runs the named query q with arg and scans every row into dest,
// a pointer to a slice.
func (s *Store) selectAll(ctx context.Context, dest any, q string, arg any) error {
	query, args, err := s.ext.BindNamed(q, arg)
	if err != nil {
		return err
	}
	return sqlx.SelectContext(ctx, s.ext, dest, query, args...)
}

// exec runs the named statement q with arg.
func (s *Store) exec(ctx context.Context, q string, arg any) (sql.Result, error) {
	unlock, err := s.lockWriter(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	return sqlx.NamedExecContext(ctx, s.ext, q, arg)
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
