package sqlstore

import "time"

// Config says which database to open and how.
type Config struct {
	// DatabaseURL is "sqlite:PATH" (a file path, relative to the working
	// directory or absolute) or "postgres://…" / "postgresql://…".
	DatabaseURL string
	// MaxOpenConns caps the connection pool; 0 means the engine's default
	// (DefaultSQLiteMaxOpenConns or DefaultPostgresMaxOpenConns).
	MaxOpenConns int
	// BusyTimeout is how long a SQLite statement waits for another writer's
	// lock before failing with ports.ErrUnavailable; 0 means
	// DefaultBusyTimeout. PostgreSQL ignores it.
	BusyTimeout time.Duration
}

// Defaults applied when Config leaves a field zero.
const (
	DefaultSQLiteMaxOpenConns   = 8
	DefaultPostgresMaxOpenConns = 20
	DefaultBusyTimeout          = 5 * time.Second
)

func (c Config) maxOpenConns(def int) int {
	if c.MaxOpenConns > 0 {
		return c.MaxOpenConns
	}
	return def
}

func (c Config) busyTimeout() time.Duration {
	if c.BusyTimeout > 0 {
		return c.BusyTimeout
	}
	return DefaultBusyTimeout
}
