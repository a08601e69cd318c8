package cpustat

import (
	"os"
	"testing"
	"time"
)

func TestStatCountsUserAndSystemTime(t *testing.T) {
	// A command name with spaces and a parenthesis, as a process may name
	// itself; utime 250 and stime 75 ticks.
	line := "4242 (post) gres: x) S 1 4242 4242 0 -1 4194560 900 0 0 0 250 75 0 0 20 0 1 0 100 1000 10 18446744073709551615\n"
	if got, want := stat([]byte(line)), 3250*time.Millisecond; got != want {
		t.Errorf("stat = %s, want %s", got, want)
	}
	for _, bad := range []string{"", "4242 (x", "4242 (x) S 1 2"} {
		if got := stat([]byte(bad)); got != 0 {
			t.Errorf("stat(%q) = %s, want 0", bad, got)
		}
	}
}

func TestProcessGrowsWithWorkDone(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc on this system")
	}
	// The two readings round differently: /proc counts whole ticks, and a
	// thread running on another core has its time added at its next tick or
	// switch. So the work spans ten ticks, and Self must rise by seven.
	self := Self()
	before := Process(os.Getpid())
	// Spin until the kernel has charged this process ten more ticks, bounded
	// so a reader that never moves fails instead of hanging.
	deadline := time.Now().Add(10 * time.Second)
	for Process(os.Getpid()) < before+10*clockTick {
		if time.Now().After(deadline) {
			t.Fatalf("Process stayed at %s after 10 s of work", Process(os.Getpid()))
		}
	}
	if used := Self() - self; used < 7*clockTick {
		t.Errorf("Self rose by %s while /proc charged this process %s or more, want about as much", used, 10*clockTick)
	}
	if busy, total := Machine(); busy <= 0 || total < busy {
		t.Errorf("Machine = %s busy of %s; want 0 < busy <= total", busy, total)
	}
}
