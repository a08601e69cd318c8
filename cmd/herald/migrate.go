package main

import (
	"fmt"

	"github.com/heraldhq/herald/adapters/sqlstore"
)

// migrate applies the embedded migrations to the configured database.
func migrate(e env, args []string) error {
	c, err := parseCommand(e, "migrate", args, "", nil)
	if err != nil {
		return err
	}
	db, d, err := sqlstore.Open(e.ctx, sqlstore.Config{DatabaseURL: c.cfg.DatabaseURL, MaxOpenConns: c.cfg.DatabaseMaxOpenConns})
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
	if *c.json {
		return c.printJSON(e.stdout, map[string]int{"from": from, "to": to})
	}
	if from == to {
		fmt.Fprintf(e.stdout, "database schema is up to date at version %d\n", to)
	} else {
		fmt.Fprintf(e.stdout, "database schema migrated from version %d to %d\n", from, to)
	}
	return nil
}
