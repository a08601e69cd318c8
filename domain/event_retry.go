package domain

import "time"

// eventRetrySchedule is the delay before each attempt at delivering an
// event to an endpoint, from the previous one: the first at once, then 5
// s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h, about 27 hours and a half in
// all (the Standard Webhooks specification's example, cut after a day).
var eventRetrySchedule = [...]time.Duration{
	0,
	5 * time.Second,
	5 * time.Minute,
	30 * time.Minute,
	2 * time.Hour,
	5 * time.Hour,
	10 * time.Hour,
	10 * time.Hour,
}

// EventMaxAttempts is how many attempts a delivery gets before it is given
// up.
const EventMaxAttempts = len(eventRetrySchedule)

// EventRetryJitter is the fraction by which a delay may be shortened or
// lengthened, so that deliveries that failed together (an endpoint's
// outage) do not all come back at the same moment.
const EventRetryJitter = 0.10

// EventAttemptDelay is how long after attempt-1 failed attempt number
// attempt (1 for the first) is made, and false when the delivery is given
// up instead (past EventMaxAttempts). random, in [0, 1) (math/rand's
// Float64), spreads the delay evenly over ±EventRetryJitter; values outside
// are clamped. The first attempt is made at once, without jitter.
func EventAttemptDelay(attempt int, random float64) (time.Duration, bool) {
	if attempt < 1 {
		attempt = 1
	}
	if attempt > EventMaxAttempts {
		return 0, false
	}
	d := eventRetrySchedule[attempt-1]
	random = min(max(random, 0), 1)
	factor := 1 - EventRetryJitter + 2*EventRetryJitter*random
	return time.Duration(float64(d) * factor), true
}
