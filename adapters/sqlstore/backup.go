package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/jmoiron/sqlx"
)

// ErrBackupPostgres is Backup's answer for a PostgreSQL database, whose
// own tools copy it.
var ErrBackupPostgres = errors.New("herald backup copies SQLite databases; back up PostgreSQL with pg_dump (or continuous archiving for point-in-time recovery), as the README's Backups section describes")

// BackupResult is what Backup copied.
type BackupResult struct {
	// From is the database's file, To the copy.
	From, To string
	// Bytes is the copy's size.
	Bytes int64
}

// Backup copies the SQLite database databaseURL names to the new file to,
// while servers may be using it: VACUUM INTO reads one snapshot of the
// database (in WAL mode writers go on meanwhile) and writes it, compacted,
// as a database of its own, which needs no -wal file beside it. The copy
// holds every transaction committed before Backup began reading and none
// that committed later.
//
// to must not exist: Backup creates it readable by its owner only (0600, as
// the database) and never overwrites a file. The copy is synced to disk and
// checked with PRAGMA quick_check; a copy that fails is removed. A
// PostgreSQL URL answers ErrBackupPostgres.
func Backup(ctx context.Context, databaseURL, to string) (BackupResult, error) {
	d, path, err := parseDatabaseURL(databaseURL)
	if err != nil {
		return BackupResult{}, err
	}
	if d.Name() != "sqlite" {
		return BackupResult{}, ErrBackupPostgres
	}
	res := BackupResult{From: path, To: to}
	if _, err := os.Stat(path); err != nil {
		return res, fmt.Errorf("no database to back up at %s: %w", path, err)
	}
	// Creating the copy first, exclusively, refuses an existing file (the
	// database itself, or one made a moment ago) and sets the mode; SQLite
	// writes into an empty file as into a new one.
	f, err := os.OpenFile(to, os.O_RDWR|os.O_CREATE|os.O_EXCL, sqliteFileMode)
	if errors.Is(err, fs.ErrExist) {
		return res, fmt.Errorf("%s exists: herald backup never overwrites a file; name a new one", to)
	}
	if err != nil {
		return res, fmt.Errorf("create the backup: %w", err)
	}
	f.Close()
	ok := false
	defer func() {
		if !ok {
			os.Remove(to)
			os.Remove(to + "-journal")
		}
	}()

	db, err := sqlx.Open(SQLite().driverName(), sqliteDSN(path, DefaultBusyTimeout))
	if err != nil {
		return res, fmt.Errorf("open %s: %w", path, err)
	}
	defer db.Close()
	conn, err := db.Connx(ctx)
	if err != nil {
		return res, fmt.Errorf("open %s: %w", path, err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `VACUUM INTO ?`, to); err != nil {
		return res, fmt.Errorf("copy %s to %s: %w", path, to, err)
	}
	if err := syncFile(to); err != nil {
		return res, err
	}
	if err := quickCheck(ctx, conn, to); err != nil {
		return res, err
	}
	info, err := os.Stat(to)
	if err != nil {
		return res, err
	}
	res.Bytes = info.Size()
	ok = true
	return res, nil
}

// syncFile flushes the file and the directory entry that names it.
func syncFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("sync %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return err
	}
	dir, err := os.Open(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer dir.Close()
	_ = dir.Sync() // not every file system syncs directories
	return nil
}

// quickCheck attaches the copy to conn (a plain file name, never read as
// a URI or with driver parameters) and runs SQLite's quick_check on it. The
// copy is in rollback-journal mode, so reading it leaves no file beside it.
func quickCheck(ctx context.Context, conn *sqlx.Conn, path string) error {
	if _, err := conn.ExecContext(ctx, `ATTACH DATABASE ? AS backup_copy`, path); err != nil {
		return fmt.Errorf("open the backup %s: %w", path, err)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), `DETACH DATABASE backup_copy`)
	var result string
	if err := conn.GetContext(ctx, &result, `PRAGMA backup_copy.quick_check`); err != nil {
		return fmt.Errorf("check the backup %s: %w", path, err)
	}
	if result != "ok" {
		return fmt.Errorf("the backup %s fails SQLite's quick_check: %s", path, result)
	}
	return nil
}
