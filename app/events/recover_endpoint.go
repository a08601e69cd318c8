package events

import (
	"context"
	"time"

	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// RecoverEndpoint sends an endpoint again, now, every event since Since
// that it gave up on or never got (it was disabled, or subscribed later).
type RecoverEndpoint struct {
	Workspace domain.WorkspaceID
	Mode      domain.KeyMode
	ID        string
	Since     time.Time
}

// RecoverEndpointHandler answers RecoverEndpoint.
type RecoverEndpointHandler struct {
	endpoints  ports.EndpointRepository
	deliveries ports.DeliveryQueue
	clock      ports.Clock
	obs        *usecase.Observer
}

// NewRecoverEndpointHandler builds the handler.
func NewRecoverEndpointHandler(endpoints ports.EndpointRepository, deliveries ports.DeliveryQueue, clock ports.Clock, obs *usecase.Observer) *RecoverEndpointHandler {
	return &RecoverEndpointHandler{endpoints: endpoints, deliveries: deliveries, clock: clock, obs: obs}
}

// Handle returns how many deliveries it made pending, or
// webhook_endpoint_not_found; Since must be given and not in the future
// (invalid_parameter on since).
func (h *RecoverEndpointHandler) Handle(ctx context.Context, cmd RecoverEndpoint) (int, error) {
	return usecase.Observe(ctx, h.obs, "recover_webhook_endpoint", func(ctx context.Context) (int, error) {
		id, err := domain.ParseWebhookEndpointID(cmd.ID)
		if err != nil {
			return 0, err
		}
		now := h.clock.Now()
		switch {
		case cmd.Since.IsZero():
			return 0, domain.InvalidParameter("since", "give the time from which to send again what the endpoint missed")
		case cmd.Since.After(now):
			return 0, domain.InvalidParameter("since", "since is in the future: nothing happened after it yet")
		}
		e, err := h.endpoints.GetEndpoint(ctx, cmd.Workspace, cmd.Mode, id)
		if err != nil {
			return 0, err
		}
		return h.deliveries.Recover(ctx, e.Workspace, e.Mode, e.ID, cmd.Since, now)
	})
}
