package events

import (
	"context"

	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// ListEndpoints lists a workspace's endpoints of Mode; the zero mode lists
// both modes' (the dashboard).
type ListEndpoints struct {
	Workspace domain.WorkspaceID
	Mode      domain.KeyMode
}

// ListEndpointsHandler answers ListEndpoints, and an endpoint's recent
// attempts.
type ListEndpointsHandler struct {
	endpoints  ports.EndpointRepository
	deliveries ports.DeliveryQueue
	obs        *usecase.Observer
}

// NewListEndpointsHandler builds the handler.
func NewListEndpointsHandler(endpoints ports.EndpointRepository, deliveries ports.DeliveryQueue, obs *usecase.Observer) *ListEndpointsHandler {
	return &ListEndpointsHandler{endpoints: endpoints, deliveries: deliveries, obs: obs}
}

// Handle returns the endpoints, oldest first.
func (h *ListEndpointsHandler) Handle(ctx context.Context, q ListEndpoints) ([]domain.WebhookEndpoint, error) {
	return usecase.Observe(ctx, h.obs, "list_webhook_endpoints", func(ctx context.Context) ([]domain.WebhookEndpoint, error) {
		return h.endpoints.ListEndpoints(ctx, q.Workspace, q.Mode)
	})
}

// EndpointAttempts asks for an endpoint's most recent attempts.
type EndpointAttempts struct {
	Workspace domain.WorkspaceID
	Mode      domain.KeyMode
	ID        string
	Limit     int // zero or less: ports.DefaultEventLimit
}

// Attempts returns an endpoint's most recent attempts, newest first, or
// webhook_endpoint_not_found.
func (h *ListEndpointsHandler) Attempts(ctx context.Context, q EndpointAttempts) ([]domain.DeliveryAttempt, error) {
	return usecase.Observe(ctx, h.obs, "list_webhook_endpoint_attempts", func(ctx context.Context) ([]domain.DeliveryAttempt, error) {
		id, err := domain.ParseWebhookEndpointID(q.ID)
		if err != nil {
			return nil, err
		}
		return h.deliveries.ListEndpointAttempts(ctx, q.Workspace, q.Mode, id, q.Limit)
	})
}
