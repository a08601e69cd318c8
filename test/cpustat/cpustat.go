// Package cpustat reads the CPU time processes have used from /proc (Linux),
// for benchmarks that report CPU per request beside wall time: on a shared
// machine the CPU a request takes says more about its cost than how long it
// waited. Elsewhere, and for a process that cannot be read, every reading is
// zero.
package cpustat

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// clockTick is the unit of the CPU times in /proc (USER_HZ), 100 per second
// on every Linux architecture Go supports.
const clockTick = 10 * time.Millisecond

// Self is the user and system time of this process so far, to the
// microsecond (getrusage), or 0 if it cannot be read.
func Self() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Process is the user and system time of a process, all its threads together
// (fields 14 and 15 of /proc/PID/stat), or 0 if it cannot be read.
func Process(pid int) time.Duration {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0
	}
	return stat(b)
}

// stat is the user and system time in the contents of a /proc/PID/stat file,
// or 0 if they cannot be read.
func stat(b []byte) time.Duration {
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

// Postgres is the CPU time of every process named "postgres": a local
// server's backends and its background processes (WAL writer, checkpointer
// and the rest). A process that has exited since an earlier reading is no
// longer counted, which for a benchmark means a backend closed mid-run.
func Postgres() time.Duration {
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
		sum += Process(pid)
	}
	return sum
}

// Machine is the machine's busy and total CPU time, summed over CPUs, from the
// first line of /proc/stat; idle, iowait and steal (time the hypervisor gave
// to other machines) count as not busy.
func Machine() (busy, total time.Duration) {
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
