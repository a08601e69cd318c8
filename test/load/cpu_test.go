package main

import (
	"testing"
	"time"
)

func TestStatCPUCountsUserAndSystemTime(t *testing.T) {
	// A command name with spaces and a parenthesis, as a process may name
	// itself; utime 250 and stime 75 ticks.
	line := "4242 (post) gres: x) S 1 4242 4242 0 -1 4194560 900 0 0 0 250 75 0 0 20 0 1 0 100 1000 10 18446744073709551615\n"
	if got, want := statCPU([]byte(line)), 3250*time.Millisecond; got != want {
		t.Errorf("statCPU = %s, want %s", got, want)
	}
	for _, bad := range []string{"", "4242 (x", "4242 (x) S 1 2"} {
		if got := statCPU([]byte(bad)); got != 0 {
			t.Errorf("statCPU(%q) = %s, want 0", bad, got)
		}
	}
}

func TestCPUUseSpreadsOverRequests(t *testing.T) {
	before := cpuSample{load: time.Second, server: 2 * time.Second, database: time.Second, busy: 10 * time.Second, total: 20 * time.Second}
	after := cpuSample{load: 2 * time.Second, server: 5 * time.Second, database: 3 * time.Second, busy: 25 * time.Second, total: 40 * time.Second}
	u := after.since(before)
	if u.load != time.Second || u.server != 3*time.Second || u.database != 2*time.Second || u.busy != 0.75 {
		t.Errorf("since = %+v, want load 1s, server 3s, database 2s, busy 0.75", u)
	}
	if got := perRequest(u.server, 10_000); got != 300*time.Microsecond {
		t.Errorf("perRequest = %s, want 300µs", got)
	}
	if got := perRequest(u.server, 0); got != 0 {
		t.Errorf("perRequest over no requests = %s, want 0", got)
	}
}
