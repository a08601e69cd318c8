package main

import (
	"time"

	"github.com/heraldhq/herald/test/cpustat"
)

// cpuMeter reads the CPU time used by the processes a phase involves, from
// /proc (Linux; elsewhere every reading is zero and the report leaves the
// CPU table out).
type cpuMeter struct {
	server   int  // herald's process id; 0 for the floor, which runs in this process
	database bool // also count PostgreSQL's processes (every process named "postgres")
}

// cpuSample is CPU time used so far.
type cpuSample struct {
	load, server, database time.Duration // this process (the load generator, and the floor's handler), herald, PostgreSQL
	busy, total            time.Duration // the whole machine: time not idle, and all time, summed over CPUs
}

// cpuUse is the CPU time a phase took, by process.
type cpuUse struct {
	load, server, database time.Duration
	busy                   float64 // the machine's busy share over the phase, 0..1
}

func (m cpuMeter) sample() cpuSample {
	s := cpuSample{load: cpustat.Self()}
	if m.server != 0 {
		s.server = cpustat.Process(m.server)
	}
	if m.database {
		s.database = cpustat.Postgres()
	}
	s.busy, s.total = cpustat.Machine()
	return s
}

// since is the CPU time used from before to s. A process that started
// during the phase counts from zero; one that ended is lost, which for
// PostgreSQL means a backend closed mid-phase (the pool keeps them open).
func (s cpuSample) since(before cpuSample) cpuUse {
	u := cpuUse{load: s.load - before.load, server: s.server - before.server, database: max(0, s.database-before.database)}
	if total := s.total - before.total; total > 0 {
		u.busy = float64(s.busy-before.busy) / float64(total)
	}
	return u
}

// perRequest is d spread over n requests.
func perRequest(d time.Duration, n uint64) time.Duration {
	if n == 0 {
		return 0
	}
	return d / time.Duration(n)
}
