package delivery

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// TestRetryPolicy pins what becomes of a message after each kind of failed
// attempt: when it is due again, or how it fails.
func TestRetryPolicy(t *testing.T) {
	t.Parallel()
	cfg := Config{MaxAttempts: 20}.WithDefaults() // 20 attempts, 24 h, a one-minute auth pause
	none := func(int64) int64 { return 0 }
	half := func(n int64) int64 { return n / 2 }
	last := func(n int64) int64 { return n - 1 }
	timeout := errors.New("i/o timeout")
	cases := []struct {
		name    string
		err     ports.SendError
		attempt int
		age     time.Duration
		jitter  func(int64) int64
		want    retryDecision
	}{
		{"permanent fails at once with Meta's code and title", ports.SendError{Class: ports.ClassPermanent, Code: 131026,
			Title: "Message undeliverable"}, 1, 0, none,
			retryDecision{Verdict: verdictFail, Failure: &domain.Failure{Code: 131026, Title: "Message undeliverable"}}},
		{"Meta's title is made storable", ports.SendError{Class: ports.ClassPermanent, Code: 100, Title: "bad\x00param"}, 1, 0, none,
			retryDecision{Verdict: verdictFail, Failure: &domain.Failure{Code: 100, Title: "bad\uFFFDparam"}}},
		{"retryable, first attempt, least jitter", ports.SendError{Class: ports.ClassRetryable, Err: timeout}, 1, 0, none,
			retryDecision{Verdict: verdictRetry, Wait: time.Second}},
		{"retryable, third attempt, half the window", ports.SendError{Class: ports.ClassRetryable, Err: timeout}, 3, time.Minute, half,
			retryDecision{Verdict: verdictRetry, Wait: 3 * time.Second}},
		{"retryable waits at least Meta's hint", ports.SendError{Class: ports.ClassRetryable, RetryAfter: 20 * time.Second, Err: timeout}, 1, 0, last,
			retryDecision{Verdict: verdictRetry, Wait: 20 * time.Second}},
		{"late attempts wait at most ten minutes", ports.SendError{Class: ports.ClassRetryable, Err: timeout}, 12, time.Hour, last,
			retryDecision{Verdict: verdictRetry, Wait: 10 * time.Minute}},
		{"a hint longer than ten minutes is cut to ten", ports.SendError{Class: ports.ClassRetryable, RetryAfter: time.Hour, Err: timeout}, 1, 0, none,
			retryDecision{Verdict: verdictRetry, Wait: 10 * time.Minute}},
		{"throttled backs off like retryable", ports.SendError{Class: ports.ClassThrottled, Code: 130429, RetryAfter: time.Second, Err: timeout}, 2, 0, last,
			retryDecision{Verdict: verdictRetry, Wait: 2*time.Second - 1 + time.Second}},
		{"pair limit: 1 s after the first attempt", ports.SendError{Class: ports.ClassPairLimited, Code: 131056, RetryAfter: 4 * time.Second}, 1, 0, last,
			retryDecision{Verdict: verdictRetry, Wait: time.Second}},
		{"pair limit: 16 s after the third, whatever the jitter", ports.SendError{Class: ports.ClassPairLimited, Code: 131056}, 3, 0, last,
			retryDecision{Verdict: verdictRetry, Wait: 16 * time.Second}},
		{"refused credentials pause at least the auth pause", ports.SendError{Class: ports.ClassAuth, Code: 190}, 1, 0, last,
			retryDecision{Verdict: verdictPause, Wait: time.Minute}},
		{"refused credentials keep a longer hint", ports.SendError{Class: ports.ClassAuth, Code: 190, RetryAfter: 5 * time.Minute}, 1, 0, none,
			retryDecision{Verdict: verdictPause, Wait: 5 * time.Minute}},
		{"the last attempt gives up, saying why", ports.SendError{Class: ports.ClassRetryable, Err: timeout}, 20, time.Hour, none,
			retryDecision{Verdict: verdictFail, Failure: &domain.Failure{Title: "gave up after 20 attempts: send failed (retryable): i/o timeout"}}},
		{"the last attempt keeps Meta's code and title", ports.SendError{Class: ports.ClassThrottled, Code: 130429, Title: "Rate limit hit"}, 20, time.Hour, none,
			retryDecision{Verdict: verdictFail, Failure: &domain.Failure{Code: 130429, Title: "Rate limit hit"}}},
		{"too old to send, on any attempt", ports.SendError{Class: ports.ClassRetryable, Err: timeout}, 2, 24 * time.Hour, none,
			retryDecision{Verdict: verdictFail, Failure: &domain.Failure{Title: "gave up after 2 attempts: send failed (retryable): i/o timeout"}}},
		{"refused credentials give up too", ports.SendError{Class: ports.ClassAuth, Code: 190, Title: "Invalid OAuth access token"}, 20, time.Hour, none,
			retryDecision{Verdict: verdictFail, Failure: &domain.Failure{Code: 190, Title: "Invalid OAuth access token"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := retryPolicy(&c.err, c.attempt, c.age, cfg, c.jitter)
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("retryPolicy (-want +got):\n%s", diff)
			}
		})
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
