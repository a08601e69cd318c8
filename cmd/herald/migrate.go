package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/heraldhq/herald/adapters/sqlstore"
)

// newMigrateCmd is herald migrate: alone it applies every pending
// migration (up).
func newMigrateCmd(e *env) *cobra.Command {
	var out output
	cmd := &cobra.Command{
		Use:   "migrate",
		Short: "Apply database migrations",
		Long: "Applies the migrations this binary embeds to the database (HERALD_DATABASE_URL). The server\n" +
			"migrates an embedded SQLite database itself; on PostgreSQL it refuses a schema that is behind.",
		Args: noArgs,
	}
	cmd.RunE = e.action(func(*cobra.Command, []string) error { return migrateUp(e, out) })
	out.register(cmd, "")
	e.settingFlags(cmd)
	return cmd
}

// migrateUp applies the embedded migrations to the configured database.
func migrateUp(e *env, out output) error {
	cfg, err := e.config()
	if err != nil {
		return err
	}
	db, d, err := sqlstore.Open(e.ctx, sqlstore.Config{DatabaseURL: cfg.DatabaseURL, MaxOpenConns: cfg.DatabaseMaxOpenConns})
	if err != nil {
		return err
	}
	defer db.Close()
	from, _, err := sqlstore.Version(e.ctx, db)
	if err != nil {
		return err
	}
	if err := sqlstore.Migrate(e.ctx, db, d); err != nil {
		return err
	}
	to, _, err := sqlstore.Version(e.ctx, db)
	if err != nil {
		return err
	}
	if out.json {
		return printJSON(e.stdout, map[string]int{"from": from, "to": to})
	}
	if from == to {
		fmt.Fprintf(e.stdout, "database schema is up to date at version %d\n", to)
	} else {
		fmt.Fprintf(e.stdout, "database schema migrated from version %d to %d\n", from, to)
	}
	return nil
}
