package events

import (
	"context"

	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// DeleteEndpoint removes an endpoint with its secrets, deliveries and
// attempts; the events stay.
type DeleteEndpoint struct {
	Workspace domain.WorkspaceID
	Mode      domain.KeyMode
	ID        string
}

// DeleteEndpointHandler answers DeleteEndpoint.
type DeleteEndpointHandler struct {
	endpoints ports.EndpointRepository
	obs       *usecase.Observer
}

// NewDeleteEndpointHandler builds the handler.
func NewDeleteEndpointHandler(endpoints ports.EndpointRepository, obs *usecase.Observer) *DeleteEndpointHandler {
	return &DeleteEndpointHandler{endpoints: endpoints, obs: obs}
}

// Handle deletes the endpoint, or answers webhook_endpoint_not_found.
func (h *DeleteEndpointHandler) Handle(ctx context.Context, cmd DeleteEndpoint) error {
	_, err := usecase.Observe(ctx, h.obs, "delete_webhook_endpoint", func(ctx context.Context) (struct{}, error) {
		id, err := domain.ParseWebhookEndpointID(cmd.ID)
		if err != nil {
			return struct{}{}, err
		}
		return struct{}{}, h.endpoints.DeleteEndpoint(ctx, cmd.Workspace, cmd.Mode, id)
	})
	return err
}
