package sqlstore_test

import (
	"io/fs"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/heraldhq/herald/adapters/sqlstore"
)

// TestSQLiteFilesOwnerOnly: the database Herald creates, and the -wal and
// -shm files SQLite makes beside it, can be read by their owner only,
// whatever the umask lets SQLite create.
func TestSQLiteFilesOwnerOnly(t *testing.T) {
	t.Parallel()
	db, path := newSQLite(t, sqlstore.Config{})
	if _, err := db.Exec(`CREATE TABLE scratch (x INTEGER); INSERT INTO scratch VALUES (1)`); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		info, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if mode := info.Mode().Perm(); mode != 0o600 {
			t.Errorf("%s has mode %v, want -rw-------", p, mode)
		}
	}
	exposed, err := sqlstore.ExposedSQLiteFiles("sqlite:" + path)
	if err != nil || len(exposed) != 0 {
		t.Fatalf("ExposedSQLiteFiles = %v, %v; want none", exposed, err)
	}

	// A file made before, or loosened since, is reported, not changed.
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path+"-wal", 0o660); err != nil {
		t.Fatal(err)
	}
	exposed, err = sqlstore.ExposedSQLiteFiles("sqlite:" + path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]fs.FileMode{path: 0o644, path + "-wal": 0o660}, exposed); diff != "" {
		t.Errorf("ExposedSQLiteFiles (-want +got):\n%s", diff)
	}
	if got, err := sqlstore.ExposedSQLiteFiles("postgres://db/herald"); err != nil || len(got) != 0 {
		t.Errorf("PostgreSQL: %v, %v", got, err)
	}
}
