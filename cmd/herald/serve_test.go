package main

import (
	"runtime/debug"
	"testing"
)

func TestServeSetsGCTargetUnlessGOGCIsSet(t *testing.T) {
	orig := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(orig) })

	if got := setGCPercent(envOf(nil)); got != "200" {
		t.Errorf("logged target = %q, want 200", got)
	}
	if got := debug.SetGCPercent(100); got != defaultGCPercent {
		t.Errorf("GC target without GOGC = %d, want %d", got, defaultGCPercent)
	}

	// GOGC was applied by the runtime at start; the server leaves it alone.
	if got := setGCPercent(envOf(map[string]string{"GOGC": "off"})); got != "off" {
		t.Errorf("logged target = %q, want the environment's off", got)
	}
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GC target with GOGC set = %d, want it untouched (100)", got)
	}
}
