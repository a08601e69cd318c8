package events

import (
	"context"
	"io"
	"strings"

	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// CreateEndpoint adds a webhook endpoint to a workspace: it gets the
// events of Mode (live or test) whose types Events names (["*"] for
// every type).
type CreateEndpoint struct {
	Workspace   domain.WorkspaceID
	Mode        domain.KeyMode
	URL         string
	Events      []string
	Description string
}

// EndpointWithSecret is an endpoint and its current secret in plain text
// ("whsec_…"), which only the answers that make a secret show.
type EndpointWithSecret struct {
	Endpoint domain.WebhookEndpoint
	Secret   string
}

// CreateEndpointHandler answers CreateEndpoint.
type CreateEndpointHandler struct {
	endpoints ports.EndpointRepository
	poster    ports.EventPoster
	policy    domain.WebhookPolicy
	clock     ports.Clock
	ids       ports.IDGenerator
	random    io.Reader
	obs       *usecase.Observer
}

// NewCreateEndpointHandler builds the handler; random is where secrets
// come from (crypto/rand's Reader).
func NewCreateEndpointHandler(endpoints ports.EndpointRepository, poster ports.EventPoster, policy domain.WebhookPolicy,
	clock ports.Clock, ids ports.IDGenerator, random io.Reader, obs *usecase.Observer) *CreateEndpointHandler {
	return &CreateEndpointHandler{endpoints: endpoints, poster: poster, policy: policy, clock: clock, ids: ids, random: random, obs: obs}
}

// Handle checks the URL (its rules, then where its name resolves), the
// event types and the description, makes a fresh secret and stores the
// endpoint, enabled. Refusals are invalid_webhook_url (url),
// invalid_event_type (events) and invalid_parameter (description, mode).
func (h *CreateEndpointHandler) Handle(ctx context.Context, cmd CreateEndpoint) (EndpointWithSecret, error) {
	return usecase.Observe(ctx, h.obs, "create_webhook_endpoint", func(ctx context.Context) (EndpointWithSecret, error) {
		if cmd.Mode.IsZero() {
			return EndpointWithSecret{}, domain.InvalidParameter("mode", "an endpoint belongs to a mode, live or test")
		}
		url, err := checkURL(ctx, h.poster, h.policy, cmd.URL)
		if err != nil {
			return EndpointWithSecret{}, err
		}
		subs, err := domain.ParseEventSubscription(cmd.Events)
		if err != nil {
			return EndpointWithSecret{}, err
		}
		key, err := domain.NewWebhookSecretKey(h.random)
		if err != nil {
			return EndpointWithSecret{}, err
		}
		e, err := domain.NewWebhookEndpoint(domain.WebhookEndpointID(h.ids.NewID(domain.PrefixWebhookEndpoint)),
			cmd.Workspace, cmd.Mode, domain.EndpointSpec{URL: url, Events: subs, Description: cmd.Description},
			key, h.policy, h.clock.Now())
		if err != nil {
			return EndpointWithSecret{}, err
		}
		if err := h.endpoints.CreateEndpoint(ctx, e); err != nil {
			return EndpointWithSecret{}, err
		}
		return EndpointWithSecret{Endpoint: e, Secret: e.Secrets[0].Plaintext()}, nil
	})
}

// checkURL applies the URL's rules without the network (domain), then the
// poster's check of where its name resolves, and returns it trimmed.
func checkURL(ctx context.Context, poster ports.EventPoster, policy domain.WebhookPolicy, raw string) (string, error) {
	url := strings.TrimSpace(raw)
	if err := domain.CheckWebhookURL(url, policy); err != nil {
		return "", err
	}
	if err := poster.CheckURL(ctx, url); err != nil {
		return "", err
	}
	return url, nil
}
