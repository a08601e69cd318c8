package delivery

import (
	"context"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// pacer keeps live sends within the sender number's throughput. When Meta
// answers that the number is over its rate (130429), the pace halves; each
// accepted send then wins a little back, up to the configured rate
// (additive increase, multiplicative decrease).
type pacer struct {
	mu      sync.Mutex
	limiter *rate.Limiter
	max     rate.Limit
}

func newPacer(mps int) *pacer {
	return &pacer{limiter: rate.NewLimiter(rate.Limit(mps), max(1, mps/10)), max: rate.Limit(mps)}
}

// rateLimit is mps as a limiter's rate.
func rateLimit(mps int) rate.Limit { return rate.Limit(mps) }

// Wait blocks until the next send may go.
func (p *pacer) Wait(ctx context.Context) error { return p.limiter.Wait(ctx) }

// Throttled halves the pace, down to one message a second.
func (p *pacer) Throttled() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.limiter.SetLimitAt(time.Now(), max(1, p.limiter.Limit()/2))
}

// Accepted raises the pace by one message a second, up to the maximum.
func (p *pacer) Accepted() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if l := p.limiter.Limit(); l < p.max {
		p.limiter.SetLimitAt(time.Now(), min(p.max, l+1))
	}
}

// Limit is the current pace in messages per second.
func (p *pacer) Limit() float64 { return float64(p.limiter.Limit()) }
