package events

import (
	"context"

	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// GetEvent reads one of a workspace's events of Mode (the zero mode: of
// either) with its deliveries.
type GetEvent struct {
	Workspace domain.WorkspaceID
	Mode      domain.KeyMode
	ID        string
}

// EventDetail is an event and its delivery to each endpoint, with every
// attempt.
type EventDetail struct {
	Event      domain.Event
	Deliveries []domain.EventDelivery
}

// GetEventHandler answers GetEvent.
type GetEventHandler struct {
	events     ports.EventRepository
	deliveries ports.DeliveryQueue
	obs        *usecase.Observer
}

// NewGetEventHandler builds the handler.
func NewGetEventHandler(events ports.EventRepository, deliveries ports.DeliveryQueue, obs *usecase.Observer) *GetEventHandler {
	return &GetEventHandler{events: events, deliveries: deliveries, obs: obs}
}

// Handle returns the event with its deliveries, or event_not_found: for
// another workspace's or mode's too, and after it was purged.
func (h *GetEventHandler) Handle(ctx context.Context, q GetEvent) (EventDetail, error) {
	return usecase.Observe(ctx, h.obs, "get_event", func(ctx context.Context) (EventDetail, error) {
		id, err := domain.ParseEventID(q.ID)
		if err != nil {
			return EventDetail{}, err
		}
		ev, err := h.events.GetEvent(ctx, q.Workspace, q.Mode, id)
		if err != nil {
			return EventDetail{}, err
		}
		ds, err := h.deliveries.ListDeliveries(ctx, ev.Workspace, ev.Mode, ev.ID)
		if err != nil {
			return EventDetail{}, err
		}
		return EventDetail{Event: ev, Deliveries: ds}, nil
	})
}
