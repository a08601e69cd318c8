//go:build bench

package cpustat

import (
	"os"
	"testing"
	"time"
)

// This test spins a core for about ten clock ticks and asserts the CPU time
// it reads, a threshold a busy shared machine may miss: it runs with the
// benchmarks that rely on these readings (make bench: go test -tags bench),
// not with make test.

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
