package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	_ "modernc.org/sqlite" // the SQLite driver, for reading herald's queue

	"github.com/heraldhq/herald/test/cpustat"
)

// backlogReader reads how far behind herald is, straight from its
// database, read-only, with one short query per measure that an index
// answers (a LIMIT 1 walk of a partial index), so that sampling once a
// second costs herald nothing measurable:
//
//   - the oldest message not yet sent to Meta: messages_due holds every
//     message with a due time (queued, or sending and leased; due_at is
//     cleared when the outcome is recorded);
//   - the oldest webhook call stored but not applied
//     (webhook_events_unapplied);
//   - the oldest status parked for a wamid no message held yet
//     (parked_statuses_parked_at).
//
// SQLite is opened read-only on the same file (WAL: a reader never blocks
// the writer); PostgreSQL through one connection of its own, read-only,
// planned without sorts or sequential scans so that an unanalyzed, growing
// table cannot turn a sample into a scan.
type backlogReader struct {
	db       *sql.DB
	postgres bool
}

// openBacklog opens herald's database for sampling. databaseURL is
// herald's HERALD_DATABASE_URL.
func openBacklog(databaseURL string) (*backlogReader, error) {
	if path, ok := strings.CutPrefix(databaseURL, "sqlite:"); ok {
		db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout(1000)&_pragma=query_only(1)")
		if err != nil {
			return nil, err
		}
		db.SetMaxOpenConns(1)
		return &backlogReader{db: db}, db.Ping()
	}
	u, err := url.Parse(databaseURL)
	if err != nil {
		return nil, err
	}
	q := u.Query()
	for k, v := range map[string]string{"default_transaction_read_only": "on", "enable_sort": "off",
		"enable_seqscan": "off", "statement_timeout": "1000", "application_name": "herald-load-sampler"} {
		q.Set(k, v)
	}
	u.RawQuery = q.Encode()
	db, err := sql.Open("pgx", u.String())
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	return &backlogReader{db: db, postgres: true}, db.Ping()
}

func (b *backlogReader) Close() error { return b.db.Close() }

// backlog is one sample of how far behind each stage is, as the age of its
// oldest waiting item at the sample's time (0 when nothing waits).
type backlog struct {
	at        time.Time
	queued    time.Duration // the oldest message not yet sent to Meta
	unapplied time.Duration // the oldest webhook call stored, not applied
	parked    time.Duration // the oldest parked status
	owed      time.Duration // the oldest status webhook the fake Cloud API still owes herald
	owedCount int
}

// sample reads herald's three ages at now.
func (b *backlogReader) sample(ctx context.Context, now time.Time) (backlog, error) {
	const (
		qQueued    = `SELECT created_at FROM messages WHERE due_at IS NOT NULL ORDER BY due_at, id LIMIT 1`
		qUnapplied = `SELECT received_at FROM webhook_events WHERE applied_at IS NULL ORDER BY id LIMIT 1`
		qParked    = `SELECT parked_at FROM parked_statuses ORDER BY parked_at LIMIT 1`
	)
	s := backlog{at: now}
	var err error
	if s.queued, err = b.age(ctx, qQueued, now); err != nil {
		return s, fmt.Errorf("oldest queued message: %w", err)
	}
	if s.unapplied, err = b.age(ctx, qUnapplied, now); err != nil {
		return s, fmt.Errorf("oldest unapplied webhook: %w", err)
	}
	if s.parked, err = b.age(ctx, qParked, now); err != nil {
		return s, fmt.Errorf("oldest parked status: %w", err)
	}
	return s, nil
}

// age runs a query for one time and returns how old it is at now: 0 when
// there is no row. SQLite stores times as Unix microseconds, PostgreSQL as
// timestamptz.
func (b *backlogReader) age(ctx context.Context, q string, now time.Time) (time.Duration, error) {
	var t time.Time
	if b.postgres {
		err := b.db.QueryRowContext(ctx, q).Scan(&t)
		if errors.Is(err, sql.ErrNoRows) {
			return 0, nil
		}
		if err != nil {
			return 0, err
		}
	} else {
		var us int64
		err := b.db.QueryRowContext(ctx, q).Scan(&us)
		if errors.Is(err, sql.ErrNoRows) {
			return 0, nil
		}
		if err != nil {
			return 0, err
		}
		t = time.UnixMicro(us)
	}
	return max(0, now.Sub(t)), nil
}

// postgresCPU is the CPU time PostgreSQL spends on herald's database: its
// backends (every connection to that database but the sampler's own) and
// the server's background processes that write for every database (WAL
// writer, checkpointer, background writer). Other databases' backends, such
// as another engineer's tests on the same server, are left out. Backends
// come and go, so the set is read again at every sample; a backend first
// seen after the start counts from zero, one that exits keeps its last
// reading.
type postgresCPU struct {
	db    *sql.DB
	base  map[int]time.Duration // each process's CPU when first seen (0 if it started after the first reading)
	last  map[int]time.Duration // and at its latest reading
	first bool                  // no reading taken yet
}

func newPostgresCPU(db *sql.DB) *postgresCPU {
	return &postgresCPU{db: db, base: map[int]time.Duration{}, last: map[int]time.Duration{}, first: true}
}

// observe reads the processes' CPU time now.
func (p *postgresCPU) observe(ctx context.Context) error {
	const q = `SELECT pid FROM pg_stat_activity
WHERE pid <> pg_backend_pid()
  AND (datname = current_database() OR backend_type IN ('walwriter', 'checkpointer', 'background writer'))`
	rows, err := p.db.QueryContext(ctx, q)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var pid int
		if err := rows.Scan(&pid); err != nil {
			return err
		}
		cpu := cpustat.Process(pid)
		if cpu == 0 {
			continue // gone already, or unreadable
		}
		if _, seen := p.base[pid]; !seen {
			p.base[pid] = 0
			if p.first {
				p.base[pid] = cpu
			}
		}
		p.last[pid] = cpu
	}
	p.first = false
	return rows.Err()
}

// total is the CPU time used from the first reading to the latest.
func (p *postgresCPU) total() time.Duration {
	var sum time.Duration
	for pid, cpu := range p.last {
		sum += max(0, cpu-p.base[pid])
	}
	return sum
}
