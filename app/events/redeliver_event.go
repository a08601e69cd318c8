package events

import (
	"context"

	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// RedeliverEvent sends an event again, now: to Endpoint when it is given,
// otherwise to every enabled endpoint whose subscription matches it.
type RedeliverEvent struct {
	Workspace domain.WorkspaceID
	Mode      domain.KeyMode
	ID        string
	Endpoint  string
}

// RedeliverEventHandler answers RedeliverEvent.
type RedeliverEventHandler struct {
	events     ports.EventRepository
	deliveries ports.DeliveryQueue
	clock      ports.Clock
	obs        *usecase.Observer
}

// NewRedeliverEventHandler builds the handler.
func NewRedeliverEventHandler(events ports.EventRepository, deliveries ports.DeliveryQueue, clock ports.Clock, obs *usecase.Observer) *RedeliverEventHandler {
	return &RedeliverEventHandler{events: events, deliveries: deliveries, clock: clock, obs: obs}
}

// Handle returns how many deliveries it made pending, or event_not_found
// (webhook_endpoint_not_found for an unknown endpoint).
func (h *RedeliverEventHandler) Handle(ctx context.Context, cmd RedeliverEvent) (int, error) {
	return usecase.Observe(ctx, h.obs, "redeliver_event", func(ctx context.Context) (int, error) {
		id, err := domain.ParseEventID(cmd.ID)
		if err != nil {
			return 0, err
		}
		var endpoint domain.WebhookEndpointID
		if cmd.Endpoint != "" {
			if endpoint, err = domain.ParseWebhookEndpointID(cmd.Endpoint); err != nil {
				return 0, err
			}
		}
		ev, err := h.events.GetEvent(ctx, cmd.Workspace, cmd.Mode, id)
		if err != nil {
			return 0, err
		}
		return h.deliveries.Redeliver(ctx, ev.Workspace, ev.Mode, ev.ID, endpoint, h.clock.Now())
	})
}
