package cpustat

import (
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
