package httpapi

import (
	"context"
	"math"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// buckets hands out one token bucket per name (an API key's id, a client's
// address). A bucket idle long enough to have refilled is the same as a new
// one, so those are forgotten when the set has grown: memory stays bounded
// by the names active within one refill time.
type buckets struct {
	rate  rate.Limit
	burst int

	mu        sync.Mutex
	m         map[string]*bucket
	sweepSize int           // sweep when the set reaches this size
	settled   chan struct{} // closed, and replaced, whenever an attempt settles
}

type bucket struct {
	lim  *rate.Limiter
	seen time.Time
	// pending counts the attempts admitted (see admit) whose outcome is
	// not known yet: each holds one of the bucket's tokens.
	pending int
}

func newBuckets(perSecond float64, burst int) *buckets {
	return &buckets{rate: rate.Limit(perSecond), burst: burst, m: map[string]*bucket{}, sweepSize: 1024,
		settled: make(chan struct{})}
}

// refill is how long an empty bucket takes to fill up.
func (b *buckets) refill() time.Duration {
	return time.Duration(float64(b.burst) / float64(b.rate) * float64(time.Second))
}

func (b *buckets) get(name string, now time.Time) *rate.Limiter {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.getLocked(name, now).lim
}

// getLocked returns name's bucket, made if new; b.mu is held.
func (b *buckets) getLocked(name string, now time.Time) *bucket {
	e, ok := b.m[name]
	if !ok {
		if len(b.m) >= b.sweepSize {
			idle := now.Add(-b.refill())
			for k, v := range b.m {
				if v.seen.Before(idle) && v.pending == 0 {
					delete(b.m, k)
				}
			}
			b.sweepSize = max(1024, 2*len(b.m))
		}
		e = &bucket{lim: rate.NewLimiter(b.rate, b.burst)}
		b.m[name] = e
	}
	e.seen = now
	return e
}

// take spends one token from name's bucket. When the bucket is empty it
// spends nothing and returns how long until a token is there.
func (b *buckets) take(name string, now time.Time) (wait time.Duration, lim *rate.Limiter) {
	lim = b.get(name, now)
	r := lim.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return d, lim
	}
	return 0, lim
}

// admit counts an attempt that may fail before it is made, so that
// concurrent attempts can never spend more than name's bucket holds: the
// check and the count are one step. It reserves one token, which the
// attempt spends when it fails or gives back when it succeeds. When every token
// left is reserved by attempts still running, admit waits for one of them to
// settle (or for ctx to end, whose error it returns); when the bucket is
// empty it reserves nothing and returns how long until a token is back.
func (b *buckets) admit(ctx context.Context, name string, now func() time.Time) (*attempt, time.Duration, error) {
	for {
		t := now()
		b.mu.Lock()
		e := b.getLocked(name, t)
		tokens := e.lim.TokensAt(t)
		if tokens < 1 {
			b.mu.Unlock()
			return nil, time.Duration((1 - tokens) / float64(b.rate) * float64(time.Second)), nil
		}
		if tokens-float64(e.pending) >= 1 {
			e.pending++
			b.mu.Unlock()
			return &attempt{b: b, e: e}, 0, nil
		}
		settled := b.settled
		b.mu.Unlock()
		select {
		case <-settled:
		case <-ctx.Done():
			return nil, 0, ctx.Err()
		}
	}
}

// attempt is one admitted attempt; exactly one of spend and giveBack
// settles it.
type attempt struct {
	b *buckets
	e *bucket
}

// spend counts the attempt as failed: its token is taken from the bucket.
func (a *attempt) spend(now time.Time) { a.settle(func() { a.e.lim.AllowN(now, 1) }) }

// giveBack settles the attempt without counting it.
func (a *attempt) giveBack() { a.settle(func() {}) }

func (a *attempt) settle(spend func()) {
	a.b.mu.Lock()
	defer a.b.mu.Unlock()
	a.e.pending--
	spend()
	close(a.b.settled)
	a.b.settled = make(chan struct{})
}

// setRateLimitHeaders describes the key's bucket in the IETF RateLimit
// header fields: the policy (q requests per window of w seconds, the burst
// and its refill time) and what is left (r requests, full again in t
// seconds). wait, when not zero, is the Retry-After of a refused request,
// and t then points at the same moment.
func (b *buckets) setRateLimitHeaders(h http.Header, lim *rate.Limiter, now time.Time, wait time.Duration) {
	window := max(1, int(math.Ceil(b.refill().Seconds())))
	h.Set("RateLimit-Policy", `"key";q=`+strconv.Itoa(b.burst)+`;w=`+strconv.Itoa(window))
	tokens := max(0, lim.TokensAt(now))
	reset := int(math.Ceil((float64(b.burst) - tokens) / float64(b.rate)))
	if wait > 0 {
		reset = retryAfterSeconds(wait)
	}
	h.Set("RateLimit", `"key";r=`+strconv.Itoa(int(tokens))+`;t=`+strconv.Itoa(reset))
}

// clientAddr names the client for the failed-authentication limiter: its
// IP address, or for IPv6 its /64 network, since one client commonly holds
// a whole /64. It is r.RemoteAddr, which observe has set to the client
// behind a trusted proxy (HERALD_TRUSTED_PROXIES); behind a proxy that is
// not trusted, every client shares the proxy's address.
func clientAddr(r *http.Request) string {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	addr := ap.Addr().Unmap()
	if addr.Is6() {
		p, _ := addr.Prefix(64)
		return p.String()
	}
	return addr.String()
}
