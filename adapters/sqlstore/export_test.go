package sqlstore

import (
	"context"

	"github.com/jmoiron/sqlx"

	"github.com/heraldhq/herald/ports"
)

// MaxBatch is the most transactions one group commits.
const MaxBatch = maxBatch

// CommitRunners is how many groups may run at once on d.
func CommitRunners(d Dialect) int { return d.commitRunners() }

// Waiting reports how many transactions wait in the group-commit queue.
func (s *Store) Waiting() int {
	s.group.mu.Lock()
	defer s.group.mu.Unlock()
	return len(s.group.queue)
}

// TxOf identifies the database transaction r is bound to.
func TxOf(r ports.Repos) any { return r.Contacts.(*Store).tx }

// DeferForeignKeys makes SQLite check r's transaction's foreign keys at
// COMMIT.
func DeferForeignKeys(ctx context.Context, r ports.Repos) error {
	_, err := r.Contacts.(*Store).ext.ExecContext(ctx, `PRAGMA defer_foreign_keys = ON`)
	return err
}

// ContactsByNumberQuery is d's query for the workspace's contacts of mode
// with the number keys, in db's placeholder form.
func ContactsByNumberQuery(db *sqlx.DB, d Dialect, ws, mode string, keys []string) (string, []any, error) {
	q, args, err := d.contactsByNumber(contactColumns, ws, mode, keys)
	return db.Rebind(q), args, err
}

// MigrateTo applies d's pending migrations up to version v.
func MigrateTo(ctx context.Context, db *sqlx.DB, d Dialect, v int) error {
	p, err := prepareMigrations(ctx, db, d)
	if err != nil {
		return err
	}
	_, err = p.UpTo(ctx, int64(v))
	return err
}
