package sqlstore

import (
	"context"
	"fmt"

	"github.com/jmoiron/sqlx"
	"go.uber.org/fx"

	"github.com/heraldhq/herald/ports"
)

// SQLiteModule provides the embedded SQLite store: the pool (*sqlx.DB, closed
// on stop), its Dialect, and one *Store as every repository port, the
// transactor and the pinger. The database is checked and migrated at start,
// so the embedded default just works; start-up fails on a schema newer than
// this build. It needs a Config, supplied by cmd.
var SQLiteModule = fx.Module("sqlstore",
	fx.Provide(newSQLiteDB),
	provideStore,
)

// PostgresModule provides the PostgreSQL store like SQLiteModule, but does
// not migrate: start-up fails while the schema is behind this build, until
// `herald migrate` has run, and on a schema newer than this build.
var PostgresModule = fx.Module("sqlstore",
	fx.Provide(newPostgresDB),
	provideStore,
)

// provideStore provides the one *Store as each of ports.StorePorts.
var provideStore = fx.Provide(fx.Annotate(New, asStorePorts()...))

// asStorePorts annotates a constructor's result as every store port, one
// fx.As each (fx.As(a, b) in one call would mean something else).
func asStorePorts() []fx.Annotation {
	var as []fx.Annotation
	for _, p := range ports.StorePorts() {
		as = append(as, fx.As(p))
	}
	return as
}

func newSQLiteDB(lc fx.Lifecycle, cfg Config) (*sqlx.DB, Dialect, error) {
	db, d, err := openFor(lc, cfg, "sqlite")
	if err != nil {
		return nil, nil, err
	}
	lc.Append(fx.StartHook(func(ctx context.Context) error {
		if err := verify(ctx, db, d); err != nil {
			return err
		}
		return Migrate(ctx, db, d)
	}))
	return db, d, nil
}

func newPostgresDB(lc fx.Lifecycle, cfg Config) (*sqlx.DB, Dialect, error) {
	db, d, err := openFor(lc, cfg, "postgres")
	if err != nil {
		return nil, nil, err
	}
	lc.Append(fx.StartHook(func(ctx context.Context) error {
		if err := verify(ctx, db, d); err != nil {
			return err
		}
		return CheckVersion(ctx, db, d)
	}))
	return db, d, nil
}

// openFor builds the pool for cfg, which must name the engine the module is
// for, and closes it when the app stops.
func openFor(lc fx.Lifecycle, cfg Config, engine string) (*sqlx.DB, Dialect, error) {
	db, d, err := openPool(cfg)
	if err != nil {
		return nil, nil, err
	}
	if d.Name() != engine {
		_ = db.Close()
		return nil, nil, fmt.Errorf("sqlstore: the %s module was given a %s database URL", engine, d.Name())
	}
	lc.Append(fx.StopHook(db.Close))
	return db, d, nil
}
