package events

import (
	"context"
	"io"

	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// RotateEndpointSecret gives an endpoint a new current secret; the
// secrets signing until now keep signing for domain.SecretRotationOverlap.
type RotateEndpointSecret struct {
	Workspace domain.WorkspaceID
	Mode      domain.KeyMode
	ID        string
}

// RotateEndpointSecretHandler answers RotateEndpointSecret.
type RotateEndpointSecretHandler struct {
	endpoints ports.EndpointRepository
	clock     ports.Clock
	random    io.Reader
	obs       *usecase.Observer
}

// NewRotateEndpointSecretHandler builds the handler; random is where
// secrets come from.
func NewRotateEndpointSecretHandler(endpoints ports.EndpointRepository, clock ports.Clock, random io.Reader, obs *usecase.Observer) *RotateEndpointSecretHandler {
	return &RotateEndpointSecretHandler{endpoints: endpoints, clock: clock, random: random, obs: obs}
}

// Handle returns the endpoint and its new secret, shown this once, or
// webhook_endpoint_not_found.
func (h *RotateEndpointSecretHandler) Handle(ctx context.Context, cmd RotateEndpointSecret) (EndpointWithSecret, error) {
	return usecase.Observe(ctx, h.obs, "rotate_webhook_endpoint_secret", func(ctx context.Context) (EndpointWithSecret, error) {
		id, err := domain.ParseWebhookEndpointID(cmd.ID)
		if err != nil {
			return EndpointWithSecret{}, err
		}
		key, err := domain.NewWebhookSecretKey(h.random)
		if err != nil {
			return EndpointWithSecret{}, err
		}
		now := h.clock.Now()
		e, err := h.endpoints.UpdateEndpoint(ctx, cmd.Workspace, cmd.Mode, id, func(e *domain.WebhookEndpoint) error {
			return e.Rotate(key, now)
		})
		if err != nil {
			return EndpointWithSecret{}, err
		}
		return EndpointWithSecret{Endpoint: e, Secret: domain.FormatWebhookSecret(key)}, nil
	})
}
