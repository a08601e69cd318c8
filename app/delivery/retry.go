package delivery

import (
	"strconv"
	"time"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// retryVerdict is what becomes of a message after a failed send attempt.
type retryVerdict int

const (
	// verdictRetry: the failure may pass; the message is due again after
	// a backoff with jitter, at least what Meta asked to wait.
	verdictRetry retryVerdict = iota
	// verdictPause: Meta refused the credentials; the message waits at
	// least as long as live sends pause (Config.AuthPause).
	verdictPause
	// verdictFail: the failure is permanent, or the message's attempts or
	// age ran out; it fails for good.
	verdictFail
)

// retryDecision is the outcome of retryPolicy.
type retryDecision struct {
	Verdict retryVerdict
	Wait    time.Duration   // verdictRetry, verdictPause: due again after Wait
	Failure *domain.Failure // verdictFail: Meta's code and title, or why Herald gave up
}

// retryPolicy decides what becomes of a message whose send attempt (1 for
// the first) failed with se, age after the message was accepted. It is a
// pure function of its arguments: jitter(n), a number in [0, n), is
// math/rand/v2's Int64N in the dispatcher and a fixed choice in tests.
//   - A permanent error fails the message with Meta's code and title.
//   - Any other fails it once attempts reach cfg.MaxAttempts or its age
//     cfg.MaxMessageAge, with Meta's title or, without one, "gave up after
//     N attempts" and the error.
//   - Otherwise it is due again: for the pair rate limit (131056) after 1,
//     4, 16, 64 s … as Meta advises, that recipient only; for refused
//     credentials after at least cfg.AuthPause; for the rest after an
//     exponential backoff with full jitter, at least se.RetryAfter. No
//     wait passes 10 minutes.
func retryPolicy(se *ports.SendError, attempt int, age time.Duration, cfg Config, jitter func(n int64) int64) retryDecision {
	if se.Class == ports.ClassPermanent || attempt >= cfg.MaxAttempts || age >= cfg.MaxMessageAge {
		f := &domain.Failure{Code: se.Code, Title: se.Title}
		if se.Class != ports.ClassPermanent && f.Title == "" {
			f.Title = "gave up after " + strconv.Itoa(attempt) + " attempts: " + se.Error()
		}
		f.Title = domain.ScrubText(f.Title)
		return retryDecision{Verdict: verdictFail, Failure: f}
	}
	switch se.Class {
	case ports.ClassPairLimited:
		return retryDecision{Verdict: verdictRetry, Wait: pairBackoff(attempt)}
	case ports.ClassAuth:
		return retryDecision{Verdict: verdictPause, Wait: backoff(attempt, max(se.RetryAfter, cfg.AuthPause), jitter)}
	}
	return retryDecision{Verdict: verdictRetry, Wait: backoff(attempt, se.RetryAfter, jitter)}
}

// pairBackoff is Meta's advice for the pair rate limit (131056): wait 4^n
// seconds before the n+1th retry to the same recipient, at most 10 minutes.
func pairBackoff(attempt int) time.Duration {
	d := time.Second
	for range min(attempt-1, 5) {
		d *= 4
	}
	return min(d, 10*time.Minute)
}

// backoff is exponential with full jitter, at least hint, at most 10
// minutes.
func backoff(attempt int, hint time.Duration, jitter func(n int64) int64) time.Duration {
	base := time.Second << min(attempt-1, 10)
	d := time.Duration(jitter(int64(base))) + time.Second
	d = max(d, hint)
	return min(d, 10*time.Minute)
}
