package main

import (
	"testing"
	"time"
)

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
