package events

import (
	"context"

	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// GetEndpoint reads one of a workspace's endpoints of Mode (the zero mode:
// of either).
type GetEndpoint struct {
	Workspace domain.WorkspaceID
	Mode      domain.KeyMode
	ID        string
}

// GetEndpointHandler answers GetEndpoint.
type GetEndpointHandler struct {
	endpoints ports.EndpointRepository
	obs       *usecase.Observer
}

// NewGetEndpointHandler builds the handler.
func NewGetEndpointHandler(endpoints ports.EndpointRepository, obs *usecase.Observer) *GetEndpointHandler {
	return &GetEndpointHandler{endpoints: endpoints, obs: obs}
}

// Handle returns the endpoint or webhook_endpoint_not_found: for another
// workspace's or mode's too.
func (h *GetEndpointHandler) Handle(ctx context.Context, q GetEndpoint) (domain.WebhookEndpoint, error) {
	return usecase.Observe(ctx, h.obs, "get_webhook_endpoint", func(ctx context.Context) (domain.WebhookEndpoint, error) {
		id, err := domain.ParseWebhookEndpointID(q.ID)
		if err != nil {
			return domain.WebhookEndpoint{}, err
		}
		return h.endpoints.GetEndpoint(ctx, q.Workspace, q.Mode, id)
	})
}
