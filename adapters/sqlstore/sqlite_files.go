package sqlstore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/heraldhq/herald/ports"
)

// sqliteFileMode is the mode of a SQLite database Herald creates: it holds
// contacts' numbers and names, and the hashes of keys and passwords, so
// only its owner may read it. SQLite gives the -wal and -shm files it
// creates beside the database the database file's mode.
const sqliteFileMode fs.FileMode = 0o600

// createSQLiteFile creates the database file at path, empty and readable by
// its owner only, unless it exists. SQLite would create it with 0644 (less
// the umask); an empty file is an empty database to it. The directory must
// exist: Herald creates none.
func createSQLiteFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, sqliteFileMode)
	switch {
	case errors.Is(err, fs.ErrExist):
		return nil
	case err != nil:
		return fmt.Errorf("sqlstore: create the sqlite database %s: %w: %w", path, ports.ErrUnavailable, err)
	}
	return f.Close()
}

// ExposedSQLiteFiles lists the files of the SQLite database databaseURL
// names (the database, its -wal and its -shm) that exist and that users
// other than their owner may read or write, with their modes: files made
// before Herald created them 0600, or loosened since. It lists nothing for
// PostgreSQL.
func ExposedSQLiteFiles(databaseURL string) (map[string]fs.FileMode, error) {
	d, path, err := parseDatabaseURL(databaseURL)
	if err != nil || d.Name() != "sqlite" {
		return nil, err
	}
	exposed := map[string]fs.FileMode{}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		info, err := os.Stat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			return nil, fmt.Errorf("sqlstore: %w", err)
		}
		if mode := info.Mode().Perm(); mode&0o077 != 0 {
			exposed[p] = mode
		}
	}
	return exposed, nil
}
