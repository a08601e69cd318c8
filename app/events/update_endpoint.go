package events

import (
	"context"

	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// UpdateEndpoint changes an endpoint: nil fields are kept. Status
// "disabled" stops its deliveries (the reason is manual); "enabled" lets
// them go again, those waiting first, with a clean record of failures.
type UpdateEndpoint struct {
	Workspace   domain.WorkspaceID
	Mode        domain.KeyMode
	ID          string
	URL         *string
	Events      []string // nil: kept
	Description *string
	Status      *string
}

// UpdateEndpointHandler answers UpdateEndpoint.
type UpdateEndpointHandler struct {
	endpoints ports.EndpointRepository
	poster    ports.EventPoster
	policy    domain.WebhookPolicy
	clock     ports.Clock
	obs       *usecase.Observer
}

// NewUpdateEndpointHandler builds the handler.
func NewUpdateEndpointHandler(endpoints ports.EndpointRepository, poster ports.EventPoster, policy domain.WebhookPolicy,
	clock ports.Clock, obs *usecase.Observer) *UpdateEndpointHandler {
	return &UpdateEndpointHandler{endpoints: endpoints, poster: poster, policy: policy, clock: clock, obs: obs}
}

// Handle validates every given field first (nothing changes unless all
// are valid) and returns the endpoint as stored, or
// webhook_endpoint_not_found.
func (h *UpdateEndpointHandler) Handle(ctx context.Context, cmd UpdateEndpoint) (domain.WebhookEndpoint, error) {
	return usecase.Observe(ctx, h.obs, "update_webhook_endpoint", func(ctx context.Context) (domain.WebhookEndpoint, error) {
		id, err := domain.ParseWebhookEndpointID(cmd.ID)
		if err != nil {
			return domain.WebhookEndpoint{}, err
		}
		var change domain.EndpointChange
		if cmd.URL != nil {
			url, err := checkURL(ctx, h.poster, h.policy, *cmd.URL)
			if err != nil {
				return domain.WebhookEndpoint{}, err
			}
			change.URL = &url
		}
		if cmd.Events != nil {
			subs, err := domain.ParseEventSubscription(cmd.Events)
			if err != nil {
				return domain.WebhookEndpoint{}, err
			}
			change.Events = &subs
		}
		change.Description = cmd.Description
		var status domain.EndpointStatus
		if cmd.Status != nil {
			if status, err = domain.ParseEndpointStatus(*cmd.Status); err != nil {
				return domain.WebhookEndpoint{}, err
			}
		}
		now := h.clock.Now()
		return h.endpoints.UpdateEndpoint(ctx, cmd.Workspace, cmd.Mode, id, func(e *domain.WebhookEndpoint) error {
			if err := e.Change(change, h.policy, now); err != nil {
				return err
			}
			switch status {
			case domain.EndpointEnabled:
				e.Enable(now)
			case domain.EndpointDisabled:
				e.Disable(now)
			}
			return nil
		})
	})
}
