package events

import (
	"context"

	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/ports"
)

// Retention purges events older than the retention period
// (HERALD_EVENT_RETENTION), with their deliveries and attempts, a batch at
// a time so that no statement holds the tables long.
type Retention struct {
	events ports.EventRepository
	clock  ports.Clock
	cfg    Config
	log    *usecase.Logger
}

// NewRetention builds the purge.
func NewRetention(events ports.EventRepository, clock ports.Clock, cfg Config, obs *usecase.Observer) *Retention {
	return &Retention{events: events, clock: clock, cfg: cfg.WithDefaults(), log: obs.Logger("events")}
}

// Purge removes the events that occurred before the retention period, and
// says how many went.
func (r *Retention) Purge(ctx context.Context) (int, error) {
	before := r.clock.Now().Add(-r.cfg.Retention)
	total := 0
	for {
		n, err := r.events.PurgeEvents(ctx, before, r.cfg.PurgeBatch)
		total += n
		if err != nil || n < r.cfg.PurgeBatch {
			return total, err
		}
	}
}

// Run purges at once and then every PurgeEvery until ctx ends.
func (r *Retention) Run(ctx context.Context) {
	purge := func() {
		n, err := r.Purge(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			r.log.Warn("purging old events failed", "error", err)
		case n > 0:
			r.log.Info("old events purged", "events", n, "retention", r.cfg.Retention.String())
		}
	}
	purge()
	usecase.Every(ctx, r.cfg.PurgeEvery, purge)
}
