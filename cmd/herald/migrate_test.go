package main

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/adapters/sqlstore"
)

type migrationLine struct {
	Version    int
	Name       *string
	AppliedAt  *time.Time
	Reversible bool
}

// herald migrate reports the schema, applies what is pending (up is the
// default), and undoes the latest migration, or refuses to when it has no
// down section.
func TestMigrateSubcommands(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	var version struct{ Current, Latest int }
	c.json(&version, "migrate", "version")
	latest := version.Latest
	if version.Current != 0 || latest < 2 {
		t.Fatalf("migrate version on a new database: %+v, want current 0 and latest at least 2", version)
	}
	var status []migrationLine
	c.json(&status, "migrate", "status")
	if len(status) != latest || status[0].Version != 1 || status[0].Name == nil || *status[0].Name != "0001_init" || status[0].Reversible {
		t.Fatalf("migrate status on a new database: %d migrations, first %+v; want %d from 0001_init, which cannot be undone", len(status), status[0], latest)
	}
	for _, m := range status {
		if m.AppliedAt != nil {
			t.Errorf("migration %d is applied on a new database", m.Version)
		}
	}

	var step struct{ From, To int }
	c.json(&step, "migrate", "up")
	if step.From != 0 || step.To != latest {
		t.Fatalf("migrate up: %+v, want from 0 to %d", step, latest)
	}
	c.json(&status, "migrate", "status")
	for _, m := range status {
		if m.AppliedAt == nil || time.Since(*m.AppliedAt) > time.Hour || m.AppliedAt.Location() != time.UTC {
			t.Errorf("migration %d after migrate up: applied at %v, want just now, in UTC", m.Version, m.AppliedAt)
		}
	}
	if code, out, errOut := c.run("migrate", "version"); code != 0 || out != fmt.Sprintf("database schema is at version %d, this build's latest\n", latest) {
		t.Errorf("migrate version: exit %d, %q %q", code, out, errOut)
	}
	if code, out, errOut := c.run("migrate"); code != 0 || out != fmt.Sprintf("database schema is up to date at version %d\n", latest) {
		t.Errorf("migrate again: exit %d, %q %q", code, out, errOut)
	}

	last := status[len(status)-1]
	if !last.Reversible {
		if code, _, errOut := c.run("migrate", "down"); code != 1 || !strings.Contains(errOut, *last.Name+" has no down section") {
			t.Errorf("migrate down of %s, which has no down section: exit %d, %q; want 1 and the migration named", *last.Name, code, errOut)
		}
		return
	}
	c.json(&step, "migrate", "down")
	if step.From != latest || step.To != latest-1 {
		t.Fatalf("migrate down: %+v, want from %d to %d", step, latest, latest-1)
	}
	_, out, _ := c.run("migrate", "status")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if fields := strings.Fields(lines[len(lines)-1]); len(lines) != latest+1 || fields[0] != fmt.Sprint(latest) || fields[2] != "pending" {
		t.Errorf("migrate status after migrate down:\n%s\nwant a header, then %d migrations, the last pending", out, latest)
	}
	if code, out, errOut := c.run("migrate", "version"); code != 0 || !strings.Contains(out, "run herald migrate") {
		t.Errorf("migrate version behind: exit %d, %q %q", code, out, errOut)
	}
	// Without a subcommand, migrate applies what is pending.
	if code, out, errOut := c.run("migrate"); code != 0 || out != fmt.Sprintf("database schema migrated from version %d to %d\n", latest-1, latest) {
		t.Errorf("migrate: exit %d, %q %q", code, out, errOut)
	}
}

func TestMigrateUsageErrors(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	for _, args := range [][]string{{"migrate", "sideways"}, {"migrate", "up", "down"}, {"migrate", "--steps", "2"}} {
		if code, _, errOut := c.run(args...); code != 2 {
			t.Errorf("herald %s: exit %d, %q; want 2", strings.Join(args, " "), code, errOut)
		}
	}
	code, out, _ := c.run("migrate", "--help")
	for _, sub := range []string{"up", "down", "status", "version"} {
		if code != 0 || !strings.Contains(out, "\n  "+sub+" ") {
			t.Errorf("migrate --help: exit %d, does not list %s:\n%s", code, sub, out)
		}
	}
}

// serve refuses a database a newer build migrated, naming both versions, as
// does herald migrate; status shows the migration this build does not know.
func TestServeRefusesANewerSchema(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "herald.db")
	env := envOf(map[string]string{"HERALD_DATABASE_URL": "sqlite:" + path, "HERALD_ADDR": "127.0.0.1:0"})
	c := &cli{t: t, env: env}
	var step struct{ From, To int }
	c.json(&step, "migrate")
	db, err := sqlstore.OpenSQLite(t.Context(), path, sqlstore.Config{})
	if err != nil {
		t.Fatal(err)
	}
	newer := step.To + 1
	_, err = db.ExecContext(t.Context(), `INSERT INTO goose_db_version (version_id, is_applied) VALUES (?, 1)`, newer)
	db.Close()
	if err != nil {
		t.Fatal(err)
	}

	// Were serve to start, the deadline would stop it.
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	var stderr bytes.Buffer
	code := run(ctx, []string{"serve", "--log-level", "error"}, env, nil, &bytes.Buffer{}, &stderr)
	versions := fmt.Sprintf("version %d, this build knows versions up to %d", newer, step.To)
	if code != 1 || !strings.Contains(stderr.String(), versions) {
		t.Errorf("serve on a newer schema: exit %d, stderr:\n%s\nwant exit 1 saying %q", code, stderr.String(), versions)
	}
	if code, _, errOut := c.run("migrate"); code != 1 || !strings.Contains(errOut, versions) {
		t.Errorf("migrate on a newer schema: exit %d, %q", code, errOut)
	}
	var status []migrationLine
	c.json(&status, "migrate", "status")
	if last := status[len(status)-1]; last.Version != newer || last.Name != nil || last.AppliedAt == nil {
		t.Errorf("migrate status ends with %+v, want version %d applied, without a name", last, newer)
	}
}
