package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBackupCommand: herald backup needs --to, refuses a database that
// does not exist (creating none) and a copy onto the database itself, and
// sends PostgreSQL to pg_dump.
func TestBackupCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	missing := filepath.Join(dir, "none.db")
	c := &cli{t: t, env: envOf(map[string]string{"HERALD_DATABASE_URL": "sqlite:" + missing})}
	if code, _, errOut := c.run("backup"); code != exitUsage || !strings.Contains(errOut, "--to is required") {
		t.Fatalf("backup without --to: exit %d %q", code, errOut)
	}
	to := filepath.Join(dir, "copy.db")
	if code, _, errOut := c.run("backup", "--to", to); code != exitFailure || !strings.Contains(errOut, "no database to back up") {
		t.Fatalf("backup of a missing database: exit %d %q", code, errOut)
	}
	for _, p := range []string{missing, to} {
		if _, err := os.Stat(p); err == nil {
			t.Fatalf("%s was created", p)
		}
	}
	// The database itself is an existing file like any other.
	db := filepath.Join(dir, "herald.db")
	c = &cli{t: t, env: envOf(map[string]string{"HERALD_DATABASE_URL": "sqlite:" + db})}
	if code, _, errOut := c.run("migrate"); code != exitOK {
		t.Fatalf("migrate: exit %d %s", code, errOut)
	}
	before, _ := os.ReadFile(db)
	if code, _, errOut := c.run("backup", "--to", db); code != exitFailure || !strings.Contains(errOut, "never overwrites") {
		t.Fatalf("backup onto the database: exit %d %q", code, errOut)
	}
	if after, _ := os.ReadFile(db); string(after) != string(before) {
		t.Fatal("the refused backup changed the database")
	}
	pg := &cli{t: t, env: envOf(map[string]string{"HERALD_DATABASE_URL": "postgres://herald@127.0.0.1:1/herald"})}
	if code, _, errOut := pg.run("backup", "--to", to); code != exitFailure || !strings.Contains(errOut, "pg_dump") {
		t.Fatalf("backup of PostgreSQL: exit %d %q", code, errOut)
	}
}
