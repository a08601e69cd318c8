package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/heraldhq/herald/adapters/sqlstore"
)

const migrateUsage = `Usage: herald migrate [up|down|status|version] [flags]

  up       apply every pending migration (the default)
  down     undo the latest migration
  status   list the migrations: when each was applied (or "pending"), and
           whether down can undo it
  version  print the schema version and this build's latest`

// migrateActions are herald migrate's subcommands. Each prints to w, one
// JSON value when asJSON is set, and knows nothing of flag parsing.
var migrateActions = map[string]func(ctx context.Context, w io.Writer, asJSON bool, db *sqlx.DB, d sqlstore.Dialect) error{
	"up":      migrateUp,
	"down":    migrateDown,
	"status":  migrateStatus,
	"version": migrateVersion,
}

// migrate applies, undoes or reports the embedded migrations on the
// configured database.
func migrate(e env, args []string) error {
	c, err := newCommand(e, "migrate", nil)
	if err != nil {
		return err
	}
	c.json = c.fs.Bool("json", false, "print one JSON value on stdout")
	c.about = migrateUsage
	if err := c.parse(args); err != nil {
		return err
	}
	action := "up"
	switch len(c.args) {
	case 0:
	case 1:
		action = c.args[0]
	default:
		return fmt.Errorf("%w: herald migrate takes one of up, down, status or version, got %q", errUsage, c.args)
	}
	do, ok := migrateActions[action]
	if !ok {
		return fmt.Errorf("%w: herald migrate %s: want up, down, status or version", errUsage, action)
	}
	db, d, err := sqlstore.Open(e.ctx, sqlstore.Config{DatabaseURL: c.cfg.DatabaseURL, MaxOpenConns: c.cfg.DatabaseMaxOpenConns})
	if err != nil {
		return err
	}
	defer db.Close()
	return do(e.ctx, e.stdout, *c.json, db, d)
}

// writeMigrateJSON prints v as one JSON value.
func writeMigrateJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// migrationStep is what up and down print with --json.
type migrationStep struct {
	From int `json:"from"`
	To   int `json:"to"`
}

func migrateUp(ctx context.Context, w io.Writer, asJSON bool, db *sqlx.DB, d sqlstore.Dialect) error {
	from, _, err := sqlstore.Version(ctx, db, d)
	if err != nil {
		return err
	}
	if err := sqlstore.Migrate(ctx, db, d); err != nil {
		return err
	}
	to, _, err := sqlstore.Version(ctx, db, d)
	if err != nil {
		return err
	}
	if asJSON {
		return writeMigrateJSON(w, migrationStep{From: from, To: to})
	}
	if from == to {
		fmt.Fprintf(w, "database schema is up to date at version %d\n", to)
	} else {
		fmt.Fprintf(w, "database schema migrated from version %d to %d\n", from, to)
	}
	return nil
}

func migrateDown(ctx context.Context, w io.Writer, asJSON bool, db *sqlx.DB, d sqlstore.Dialect) error {
	from, _, err := sqlstore.Version(ctx, db, d)
	if err != nil {
		return err
	}
	if err := sqlstore.MigrateDown(ctx, db, d); err != nil {
		return err
	}
	to, _, err := sqlstore.Version(ctx, db, d)
	if err != nil {
		return err
	}
	if asJSON {
		return writeMigrateJSON(w, migrationStep{From: from, To: to})
	}
	fmt.Fprintf(w, "database schema migrated down from version %d to %d\n", from, to)
	return nil
}

// migrationJSON is one migration in herald migrate status --json.
type migrationJSON struct {
	Version int `json:"version"`
	// Name is null for a migration this build does not know.
	Name *string `json:"name"`
	// AppliedAt is null while the migration is pending.
	AppliedAt *time.Time `json:"appliedAt"`
	// Reversible says herald migrate down can undo it.
	Reversible bool `json:"reversible"`
}

func migrateStatus(ctx context.Context, w io.Writer, asJSON bool, db *sqlx.DB, d sqlstore.Dialect) error {
	states, err := sqlstore.MigrationStatus(ctx, db, d)
	if err != nil {
		return err
	}
	if asJSON {
		out := make([]migrationJSON, len(states))
		for i, m := range states {
			out[i].Version, out[i].Reversible = m.Version, m.Reversible
			if m.Name != "" {
				out[i].Name = &m.Name
			}
			if m.Applied() {
				out[i].AppliedAt = &m.AppliedAt
			}
		}
		return writeMigrateJSON(w, out)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "VERSION\tNAME\tAPPLIED\tREVERSIBLE")
	for _, m := range states {
		name, applied, reversible := m.Name, "pending", "no"
		if name == "" {
			name = "(unknown to this build)"
		}
		if m.Applied() {
			applied = m.AppliedAt.UTC().Format(time.DateTime)
		}
		if m.Reversible {
			reversible = "yes"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\n", m.Version, name, applied, reversible)
	}
	return tw.Flush()
}

func migrateVersion(ctx context.Context, w io.Writer, asJSON bool, db *sqlx.DB, d sqlstore.Dialect) error {
	current, latest, err := sqlstore.Version(ctx, db, d)
	if err != nil {
		return err
	}
	if asJSON {
		return writeMigrateJSON(w, map[string]int{"current": current, "latest": latest})
	}
	switch {
	case current < latest:
		fmt.Fprintf(w, "database schema is at version %d; this build's latest is %d: run herald migrate\n", current, latest)
	case current > latest:
		fmt.Fprintf(w, "database schema is at version %d, newer than this build's latest, %d\n", current, latest)
	default:
		fmt.Fprintf(w, "database schema is at version %d, this build's latest\n", current)
	}
	return nil
}
