package main

import (
	"strings"
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

func TestPrintCPUSaysWhatTheGoalWouldTake(t *testing.T) {
	floor := report{name: "floor", send: phase{label: "send", rate: 30_000, ok: 300_000,
		cpu: cpuUse{load: 15 * time.Second, busy: 0.95}}}
	// 10,000 sends: 1.5 s in herald, 0.5 s in the load process, so 200 µs a
	// send; 0.35 × 30,000 = 10,500 sends/s would take 2.10 cores.
	herald := report{name: "herald (SQLite FULL)", send: phase{label: "send", rate: 5_000, ok: 10_000,
		cpu: cpuUse{server: 1500 * time.Millisecond, load: 500 * time.Millisecond, busy: 0.8}}}
	var b strings.Builder
	printCPU(&b, []report{floor, herald})
	out := b.String()
	for _, want := range []string{
		"| floor | send | – | – | 50 µs | 95% |",
		"| herald (SQLite FULL) | send | 150 µs | – | 50 µs | 80% |",
		"At 0.35 × the floor (10500 sends/s), the CPU per send measured at saturation would take 2.10 cores for herald (SQLite FULL);",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}

	// A herald that answered nothing has no cost to project.
	herald.send.ok = 0
	b.Reset()
	printCPU(&b, []report{floor, herald})
	if strings.Contains(b.String(), "At 0.35") {
		t.Errorf("a projection without a herald that answered:\n%s", b.String())
	}
}
