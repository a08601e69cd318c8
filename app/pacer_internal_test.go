package app

import (
	"testing"
	"time"
)

func TestPacerBacksOffAndRecovers(t *testing.T) {
	t.Parallel()
	p := newPacer(80)
	p.Throttled()
	if p.Limit() != 40 {
		t.Fatalf("after 130429: %v msg/s, want 40", p.Limit())
	}
	for range 100 {
		p.Throttled()
	}
	if p.Limit() != 1 {
		t.Fatalf("the pace must not fall below 1 msg/s: %v", p.Limit())
	}
	for range 200 {
		p.Accepted()
	}
	if p.Limit() != 80 {
		t.Fatalf("after many accepted sends: %v msg/s, want back at the configured 80", p.Limit())
	}
}

func TestPairBackoff(t *testing.T) {
	t.Parallel()
	want := []time.Duration{time.Second, 4 * time.Second, 16 * time.Second, 64 * time.Second, 256 * time.Second, 10 * time.Minute, 10 * time.Minute}
	for i, w := range want {
		if got := pairBackoff(i + 1); got != w {
			t.Errorf("attempt %d: %s, want %s", i+1, got, w)
		}
	}
}
