package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// clockTick is the unit of the CPU times in /proc (USER_HZ), 100 per second
// on every Linux architecture Go supports.
const clockTick = 10 * time.Millisecond

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
	s := cpuSample{load: processCPU(os.Getpid())}
	if m.server != 0 {
		s.server = processCPU(m.server)
	}
	if m.database {
		s.database = postgresCPU()
	}
	s.busy, s.total = machineCPU()
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

// processCPU is the user and system time of a process, all its threads
// together (fields 14 and 15 of /proc/PID/stat), or 0 if it cannot be read.
func processCPU(pid int) time.Duration {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0
	}
	return statCPU(b)
}

// statCPU is the user and system time in the contents of a /proc/PID/stat
// file, or 0 if they cannot be read.
func statCPU(b []byte) time.Duration {
	// The command name, field 2, is in parentheses and may hold spaces:
	// count fields from the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:])) // f[0] is field 3
	if len(f) < 13 {
		return 0
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0
	}
	return time.Duration(utime+stime) * clockTick
}

// postgresCPU is the CPU time of every process named "postgres": the
// server's backends and its background processes (WAL writer, checkpointer
// and the rest), which on this loopback setup all serve the one database
// under load.
func postgresCPU() time.Duration {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	var sum time.Duration
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		comm, err := os.ReadFile(filepath.Join("/proc", e.Name(), "comm"))
		if err != nil || strings.TrimSpace(string(comm)) != "postgres" {
			continue
		}
		sum += processCPU(pid)
	}
	return sum
}

// machineCPU is the machine's busy and total CPU time, summed over CPUs, from
// the first line of /proc/stat; idle, iowait and steal (time the hypervisor
// gave to other machines) count as not busy.
func machineCPU() (busy, total time.Duration) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	f := strings.Fields(string(line))
	if len(f) < 9 || f[0] != "cpu" {
		return 0, 0
	}
	var ticks [8]int64 // user nice system idle iowait irq softirq steal
	for i := range ticks {
		ticks[i], _ = strconv.ParseInt(f[i+1], 10, 64)
	}
	var all int64
	for _, t := range ticks {
		all += t
	}
	idle := ticks[3] + ticks[4] + ticks[7]
	return time.Duration(all-idle) * clockTick, time.Duration(all) * clockTick
}
