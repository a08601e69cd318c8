package delivery

import (
	"context"
	"time"

	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// RefreshNumberHealthHandler reads each business number's health from
// Meta's phone numbers endpoint, at start and every HealthRefresh, and
// records what changed as a webhook would (numberHealth): history, the
// number's quality and tier, phone_number.quality_changed, pause on RED.
// Each number is read with its own token, the number HERALD_WHATSAPP_*
// defines with the server's.
type RefreshNumberHealthHandler struct {
	numbers *Numbers
	reader  ports.NumberHealthReader
	tx      ports.Transactor
	health  numberHealth
	clock   ports.Clock
	every   time.Duration
	log     *usecase.Logger
}

// NewRefreshNumberHealthHandler builds the handler; reader may be nil (no
// Cloud API), and then nothing is read.
func NewRefreshNumberHealthHandler(numbers *Numbers, reader ports.NumberHealthReader, tx ports.Transactor, clock ports.Clock,
	ids ports.IDGenerator, emit *usecase.Events, cfg Config, obs *usecase.Observer) *RefreshNumberHealthHandler {
	cfg = cfg.WithDefaults()
	return &RefreshNumberHealthHandler{numbers: numbers, reader: reader, tx: tx, clock: clock, every: cfg.HealthRefresh,
		health: numberHealth{emit: emit, ids: ids, pauseOnRed: !cfg.KeepMarketingOnRed}, log: obs.Logger("number_health")}
}

// Refresh reads every active number once; a number that cannot be read
// is logged and left as it was.
func (h *RefreshNumberHealthHandler) Refresh(ctx context.Context) {
	if h.reader == nil {
		return
	}
	for _, n := range h.numbers.All(ctx) {
		if n.Status != domain.NumberActive {
			continue
		}
		if err := h.refresh(ctx, n); err != nil && ctx.Err() == nil {
			h.log.Warn("reading a number's health from Meta failed", "number_id", string(n.ID), "error", err)
		}
	}
}

func (h *RefreshNumberHealthHandler) refresh(ctx context.Context, n domain.BusinessNumber) error {
	creds := ports.NumberCredentials{PhoneNumberID: n.MetaID, WABAID: n.WABAID}
	if n.AccessToken.KeyID != "" {
		token, err := h.numbers.open(n)
		if err != nil {
			return err
		}
		creds.AccessToken = token
	}
	rd, err := h.reader.ReadNumberHealth(ctx, creds)
	if err != nil {
		return err
	}
	now := h.clock.Now()
	rd.At = now
	var out healthOutcome
	err = h.tx.WithinTx(ctx, func(ctx context.Context, r ports.Repos) error {
		var err error
		out, err = h.health.record(ctx, r, n, rd, now)
		return err
	})
	if err == nil && out.changed {
		h.log.Info("business number health read from Meta changed", "number_id", string(n.ID),
			"quality", string(out.change.Quality), "previous_quality", string(out.change.PreviousQuality),
			"tier", string(out.change.Tier), "previous_tier", string(out.change.PreviousTier), "paused", len(out.paused))
	}
	return err
}

// Run refreshes at once and then every HealthRefresh until ctx ends.
func (h *RefreshNumberHealthHandler) Run(ctx context.Context) {
	h.Refresh(ctx)
	usecase.Every(ctx, h.every, func() { h.Refresh(ctx) })
}
