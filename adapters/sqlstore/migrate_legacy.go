package sqlstore

import (
	"context"
	"errors"

	"github.com/jmoiron/sqlx"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/database"
)

// legacyTable is the bookkeeping table of Herald's migration runner before
// goose: one row per applied migration (version, name, applied_at), written
// in the migration's transaction. The migrations themselves are the same
// files, then without goose's annotations.
const legacyTable = "schema_migrations"

// legacyApplied reads legacyTable as appliedMigrations reads goose's.
const legacyApplied = `SELECT version AS version_id, applied_at FROM schema_migrations`

// prepareVersionTable creates goose's table, goose_db_version, before goose
// runs, and takes over a database migrated before goose: in one transaction
// under the migration lock it records every version legacyTable lists in
// goose's table, with the time it was applied (in goose's form: whole
// seconds on SQLite), and drops legacyTable, so goose then applies only the
// migrations after them. The schema and the data are left as they are. A build before goose that
// later opens the database finds no version and refuses to serve it.
//
// Creating goose's table here, rather than letting goose create it, also
// spares concurrent first migrators goose's retries while they race to
// create it.
func prepareVersionTable(ctx context.Context, db *sqlx.DB, d Dialect) error {
	const op = "prepare the migrations table"
	ready, err := versionTableReady(ctx, db, d)
	if err != nil || ready {
		return translate(d, op, err, nil)
	}
	return translate(d, op, inMigrationTx(ctx, db, d, func(tx *sqlx.Tx) error {
		// Again under the lock: a concurrent migrator may have done it.
		if ready, err := versionTableReady(ctx, tx, d); err != nil || ready {
			return err
		}
		store, err := database.NewStore(d.gooseDialect(), goose.DefaultTablename)
		if err != nil {
			return err
		}
		exists, err := tableExists(ctx, tx, d, goose.DefaultTablename)
		if err != nil {
			return err
		}
		if !exists {
			if err := store.CreateVersionTable(ctx, tx); err != nil {
				return err
			}
			// goose's record of the empty schema, which it expects first.
			if err := store.Insert(ctx, tx, database.InsertRequest{Version: 0}); err != nil {
				return err
			}
		}
		legacy, err := tableExists(ctx, tx, d, legacyTable)
		if err != nil || !legacy {
			return err
		}
		if _, err := tx.ExecContext(ctx, d.adoptLegacyVersions()); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `DROP TABLE `+legacyTable)
		return err
	}), nil)
}

// versionTableReady reports whether goose's table exists and the table of
// the runner before goose does not.
func versionTableReady(ctx context.Context, ext sqlx.ExtContext, d Dialect) (bool, error) {
	exists, err := tableExists(ctx, ext, d, goose.DefaultTablename)
	if err != nil || !exists {
		return false, err
	}
	legacy, err := tableExists(ctx, ext, d, legacyTable)
	return !legacy, err
}

// inMigrationTx runs fn in a transaction holding the migration lock.
func inMigrationTx(ctx context.Context, db *sqlx.DB, d Dialect, fn func(tx *sqlx.Tx) error) (err error) {
	release, err := d.holdMigrationLock(ctx, db)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, release()) }()
	tx, err := db.BeginTxx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	if err := d.lockMigrations(ctx, tx); err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}
