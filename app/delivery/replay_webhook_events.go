package delivery

import (
	"context"
	"time"

	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// ReplayWebhookEvents applies stored webhook events again. With no field
// set it applies every event not applied yet (waiting or failed); with ID
// one event; with Since every event received since then, applied or not.
// Applying an event twice changes nothing, so replaying is always safe.
type ReplayWebhookEvents struct {
	ID    string
	Since time.Time
}

// ReplayedEvent is the outcome for one event.
type ReplayedEvent struct {
	Event  domain.WebhookEvent
	Report WebhookReport
	Err    error
}

// ReplayWebhookEventsHandler replays events for operators (`herald
// webhooks replay`) and, in the server, retries the events that failed.
type ReplayWebhookEventsHandler struct {
	events ports.WebhookEventRepository
	apply  *ApplyWebhookEventHandler
	clock  ports.Clock
	parked ports.ParkedStatusRepository
	cfg    Config
	log    *usecase.Logger
	obs    *usecase.Observer
}

// NewReplayWebhookEventsHandler builds the handler.
func NewReplayWebhookEventsHandler(events ports.WebhookEventRepository, apply *ApplyWebhookEventHandler, parked ports.ParkedStatusRepository, clock ports.Clock, cfg Config, obs *usecase.Observer) *ReplayWebhookEventsHandler {
	return &ReplayWebhookEventsHandler{events: events, apply: apply, parked: parked, clock: clock, cfg: cfg.WithDefaults(),
		log: obs.Logger("webhooks"), obs: obs}
}

// replayPage is how many events are read at once.
const replayPage = 100

// Handle replays the selected events, oldest first, and reports each.
// An event that fails again is reported, not returned as an error: the
// error is for a store that cannot be read.
func (h *ReplayWebhookEventsHandler) Handle(ctx context.Context, cmd ReplayWebhookEvents) ([]ReplayedEvent, error) {
	return usecase.Observe(ctx, h.obs, "replay_webhook_events", func(ctx context.Context) ([]ReplayedEvent, error) {
		if cmd.ID != "" {
			id, err := domain.ParseWebhookEventID(cmd.ID)
			if err != nil {
				return nil, err
			}
			ev, err := h.events.GetWebhookEvent(ctx, id)
			if err != nil {
				return nil, err
			}
			rep, err := h.apply.Apply(ctx, ev)
			return []ReplayedEvent{h.reread(ctx, ev, rep, err)}, nil
		}
		f := ports.WebhookEventFilter{Unapplied: cmd.Since.IsZero(), ReceivedSince: cmd.Since, Limit: replayPage}
		var out []ReplayedEvent
		err := h.each(ctx, f, func(ev domain.WebhookEvent) {
			rep, err := h.apply.Apply(ctx, ev)
			out = append(out, h.reread(ctx, ev, rep, err))
		})
		return out, err
	})
}

// reread returns the event as stored after applying it, with its outcome.
func (h *ReplayWebhookEventsHandler) reread(ctx context.Context, ev domain.WebhookEvent, rep WebhookReport, err error) ReplayedEvent {
	if now, gerr := h.events.GetWebhookEvent(ctx, ev.ID); gerr == nil {
		ev = now
	}
	return ReplayedEvent{Event: ev, Report: rep, Err: err}
}

// each runs fn on every event matching f, page by page.
func (h *ReplayWebhookEventsHandler) each(ctx context.Context, f ports.WebhookEventFilter, fn func(domain.WebhookEvent)) error {
	for {
		page, err := h.events.ListWebhookEvents(ctx, f)
		if err != nil {
			return err
		}
		for _, ev := range page {
			fn(ev)
		}
		if len(page) < f.Limit || ctx.Err() != nil {
			return ctx.Err()
		}
		f.After = page[len(page)-1].ID
	}
}

// RetryOnce applies the events that are not applied and that arrived
// before the last interval (newer ones may still be applying), up to
// WebhookMaxAttempts tries each, and drops parked statuses older than
// ParkedStatusTTL. It returns how many events it applied.
func (h *ReplayWebhookEventsHandler) RetryOnce(ctx context.Context) (int, error) {
	now := h.clock.Now()
	applied := 0
	err := h.each(ctx, ports.WebhookEventFilter{Unapplied: true, ReceivedBefore: now.Add(-h.cfg.WebhookRetryEvery / 2),
		BelowAttempts: h.cfg.WebhookMaxAttempts, Limit: replayPage},
		func(ev domain.WebhookEvent) {
			if _, err := h.apply.Apply(ctx, ev); err != nil {
				h.log.Warn("webhook event failed again", "event_id", string(ev.ID),
					"attempts", ev.Attempts+1, "error", err)
				return
			}
			applied++
		})
	if err != nil {
		return applied, err
	}
	n, err := h.parked.PurgeParkedStatuses(ctx, now.Add(-h.cfg.ParkedStatusTTL))
	if n > 0 {
		h.log.Info("dropped status events that never matched a message", "statuses", n)
	}
	return applied, err
}

// Retry runs RetryOnce every WebhookRetryEvery until ctx ends.
func (h *ReplayWebhookEventsHandler) Retry(ctx context.Context) {
	usecase.Every(ctx, h.cfg.WebhookRetryEvery, func() {
		n, err := h.RetryOnce(ctx)
		if n > 0 {
			h.log.Info("webhook events applied on retry", "events", n)
		}
		if err != nil && ctx.Err() == nil {
			h.log.Warn("retrying webhook events failed", "error", err)
		}
	})
}
