package domain_test

import (
	"testing"
	"time"

	"github.com/heraldhq/herald/domain"
)

func TestEventAttemptDelay(t *testing.T) {
	t.Parallel()
	schedule := []time.Duration{0, 5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 10 * time.Hour}
	if domain.EventMaxAttempts != len(schedule) {
		t.Fatalf("EventMaxAttempts = %d, want %d", domain.EventMaxAttempts, len(schedule))
	}
	for i, base := range schedule {
		attempt := i + 1
		for _, c := range []struct {
			random float64
			factor float64
		}{
			{0.5, 1},        // the middle: the schedule itself
			{0, 0.9},        // the shortest: 10% early
			{0.25, 0.95},    // a quarter of the way
			{0.999999, 1.1}, // almost the longest
			{-3, 0.9},       // clamped
			{7, 1.1},        // clamped
		} {
			got, ok := domain.EventAttemptDelay(attempt, c.random)
			want := time.Duration(float64(base) * c.factor)
			if !ok || absDuration(got-want) > time.Duration(float64(base)*1e-5)+time.Nanosecond {
				t.Errorf("EventAttemptDelay(%d, %v) = %v, %v; want %v", attempt, c.random, got, ok, want)
			}
		}
	}
	for _, attempt := range []int{9, 10, 100} {
		if d, ok := domain.EventAttemptDelay(attempt, 0.5); ok || d != 0 {
			t.Errorf("EventAttemptDelay(%d) = %v, %v; want given up", attempt, d, ok)
		}
	}
	if d, ok := domain.EventAttemptDelay(0, 0.9); !ok || d != 0 {
		t.Errorf("attempt 0 = %v, %v; want the first attempt, at once", d, ok)
	}
}

// TestEventRetryWindow: the whole schedule, with the extremes of jitter,
// spans about 27.5 hours, well within the 30 days events are kept.
func TestEventRetryWindow(t *testing.T) {
	t.Parallel()
	var lo, hi time.Duration
	for a := 1; a <= domain.EventMaxAttempts; a++ {
		short, _ := domain.EventAttemptDelay(a, 0)
		long, _ := domain.EventAttemptDelay(a, 1)
		lo, hi = lo+short, hi+long
	}
	nominal := 5*time.Second + 5*time.Minute + 30*time.Minute + 2*time.Hour + 5*time.Hour + 20*time.Hour
	if absDuration(lo-nominal*9/10) > time.Millisecond || absDuration(hi-nominal*11/10) > time.Millisecond {
		t.Fatalf("the schedule spans %v to %v; want %v ±10%%", lo, hi, nominal)
	}
}

func absDuration(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}
