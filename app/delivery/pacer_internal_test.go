package delivery

import (
	"testing"
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
