package events

import (
	"context"
	"errors"

	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// SendTestEvent writes a webhook.test event with one delivery, to the
// endpoint, whatever its subscription; it is delivered and retried like
// any event, and GET /v1/events/{id} shows how its attempts went.
type SendTestEvent struct {
	Workspace domain.WorkspaceID
	Mode      domain.KeyMode
	ID        string
}

// SendTestEventHandler answers SendTestEvent.
type SendTestEventHandler struct {
	endpoints ports.EndpointRepository
	events    ports.EventWriter
	render    ports.EventRenderer
	clock     ports.Clock
	ids       ports.IDGenerator
	obs       *usecase.Observer
}

// NewSendTestEventHandler builds the handler.
func NewSendTestEventHandler(endpoints ports.EndpointRepository, events ports.EventWriter, render ports.EventRenderer,
	clock ports.Clock, ids ports.IDGenerator, obs *usecase.Observer) *SendTestEventHandler {
	return &SendTestEventHandler{endpoints: endpoints, events: events, render: render, clock: clock, ids: ids, obs: obs}
}

// Handle returns the event written, or webhook_endpoint_not_found. The
// event is of the endpoint's mode.
func (h *SendTestEventHandler) Handle(ctx context.Context, cmd SendTestEvent) (domain.Event, error) {
	return usecase.Observe(ctx, h.obs, "send_webhook_test_event", func(ctx context.Context) (domain.Event, error) {
		id, err := domain.ParseWebhookEndpointID(cmd.ID)
		if err != nil {
			return domain.Event{}, err
		}
		e, err := h.endpoints.GetEndpoint(ctx, cmd.Workspace, cmd.Mode, id)
		if err != nil {
			return domain.Event{}, err
		}
		if h.render == nil {
			return domain.Event{}, errors.New("events: no event renderer to render the test event")
		}
		data, err := h.render.RenderTest(e)
		if err != nil {
			return domain.Event{}, err
		}
		ev, err := domain.NewEvent(domain.EventID(h.ids.NewID(domain.PrefixEvent)), e.Workspace, e.Mode,
			domain.EventWebhookTest, "", data, h.clock.Now())
		if err != nil {
			return domain.Event{}, err
		}
		return ev, h.events.AppendEventTo(ctx, ev, e.ID)
	})
}
