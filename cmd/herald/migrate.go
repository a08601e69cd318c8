package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/spf13/cobra"

	"github.com/heraldhq/herald/adapters/sqlstore"
)

// migrateAction is one of herald migrate's actions on the opened database.
// It prints to w, one JSON value when asJSON is set.
type migrateAction func(ctx context.Context, w io.Writer, asJSON bool, db *sqlx.DB, d sqlstore.Dialect) error

// newMigrateCmd is herald migrate: alone it applies every pending
// migration (up); its subcommands apply, undo or report them.
func newMigrateCmd(e *env) *cobra.Command {
	cmd := e.migrateCmd(&cobra.Command{
		Use:   "migrate",
		Short: "Database migrations: up (the default), down, status, version",
		Long: "Applies, undoes or lists the migrations this binary embeds, on the database (HERALD_DATABASE_URL).\n" +
			"Alone, herald migrate applies every pending migration, as herald migrate up does. The server\n" +
			"migrates an embedded SQLite database itself; on PostgreSQL it refuses a schema that is behind, and\n" +
			"on either engine one that a newer build migrated.",
		Args:                       unknownCommandArgs,
		SuggestionsMinimumDistance: 2,
	}, migrateUp)
	cmd.AddCommand(
		e.migrateCmd(&cobra.Command{
			Use:   "up",
			Short: "Apply every pending migration (the default)",
			Long: "Applies every pending migration, each in its own transaction: a migration that fails leaves the\n" +
				"schema at the version before it. Migrators started together apply each migration once.",
		}, migrateUp),
		e.migrateCmd(&cobra.Command{
			Use:   "down",
			Short: "Undo the latest migration",
			Long: "Undoes the latest migration the database has, one per call. Data the migration added goes with\n" +
				"it. A migration that cannot be undone is refused, named, and stays applied (exit 1); herald\n" +
				"migrate status says which can be undone.",
		}, migrateDown),
		e.migrateCmd(&cobra.Command{
			Use:   "status",
			Short: "List the migrations: when each was applied, and whether down can undo it",
			Long: "Lists this build's migrations, and any the database has from a newer build: when each was\n" +
				"applied (UTC) or \"pending\", and whether herald migrate down can undo it. Only reads.",
		}, migrateStatus),
		e.migrateCmd(&cobra.Command{
			Use:   "version",
			Short: "Print the schema version and this build's latest",
			Long:  "Prints the version the database's schema is at and the latest this build knows. Only reads.",
		}, migrateVersion),
	)
	return cmd
}

// migrateCmd gives cmd its flags (--json, --database-url) and runs do on
// the configured database; cmd takes no argument unless it says otherwise.
func (e *env) migrateCmd(cmd *cobra.Command, do migrateAction) *cobra.Command {
	var out output
	if cmd.Args == nil {
		cmd.Args = noArgs
	}
	cmd.RunE = e.action(func(*cobra.Command, []string) error {
		cfg, err := e.config()
		if err != nil {
			return err
		}
		db, d, err := sqlstore.Open(e.ctx, sqlstore.Config{DatabaseURL: cfg.DatabaseURL, MaxOpenConns: cfg.DatabaseMaxOpenConns})
		if err != nil {
			return err
		}
		defer db.Close()
		return do(e.ctx, e.stdout, out.json, db, d)
	})
	out.register(cmd, "")
	e.settingFlags(cmd)
	return cmd
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
		return printJSON(w, migrationStep{From: from, To: to})
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
		return printJSON(w, migrationStep{From: from, To: to})
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
		return printJSON(w, out)
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
		return printJSON(w, map[string]int{"current": current, "latest": latest})
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
