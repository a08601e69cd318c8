package system

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/ports"
)

// TestPasswordChecksShareAMemoryBudget: a check takes its hash's memory
// from the budget; one that finds too little left waits, and is refused
// with ErrTooManyPasswordChecks when nothing comes free in time.
func TestPasswordChecksShareAMemoryBudget(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := NewPasswords(PasswordConfig{MaxChecks: 2, Wait: time.Millisecond})
	const pw = "a long enough password"
	hash, err := p.HashPassword(pw)
	if err != nil {
		t.Fatal(err)
	}
	// The same password under twice the memory: it needs two checks' room.
	double := strings.Replace(hash, "m="+strconv.Itoa(argonMemoryKiB), "m="+strconv.Itoa(2*argonMemoryKiB), 1)

	if err := p.budget.Acquire(ctx, argonMemoryKiB); err != nil { // one check running
		t.Fatal(err)
	}
	if ok, err := p.CheckPassword(ctx, hash, pw); !ok || err != nil {
		t.Fatalf("a check beside one other, with room for two: %v, %v", ok, err)
	}
	if ok, err := p.CheckPassword(ctx, double, pw); ok || !errors.Is(err, ports.ErrTooManyPasswordChecks) {
		t.Fatalf("a check needing two checks' memory beside one other: %v, %v; want ErrTooManyPasswordChecks", ok, err)
	}
	if err := p.budget.Acquire(ctx, argonMemoryKiB); err != nil { // two running: full
		t.Fatal(err)
	}
	if ok, err := p.CheckPassword(ctx, hash, pw); ok || !errors.Is(err, ports.ErrTooManyPasswordChecks) {
		t.Fatalf("a check with the budget spent: %v, %v; want ErrTooManyPasswordChecks", ok, err)
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := p.CheckPassword(canceled, hash, pw); !errors.Is(err, context.Canceled) {
		t.Fatalf("a check whose request ended while it waited: %v; want context.Canceled", err)
	}

	// A check that waits gets the room as soon as a running one ends.
	waiting := NewPasswords(PasswordConfig{MaxChecks: 1, Wait: time.Hour})
	if err := waiting.budget.Acquire(ctx, argonMemoryKiB); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		ok, err := waiting.CheckPassword(ctx, hash, pw)
		if err == nil && !ok {
			err = errors.New("the right password did not match")
		}
		done <- err
	}()
	waiting.budget.Release(argonMemoryKiB)
	if err := <-done; err != nil {
		t.Fatalf("a waiting check after the running one ended: %v", err)
	}
}
