package events

import (
	"crypto/rand"

	"go.uber.org/fx"

	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// ManageModule provides the use cases that manage webhook endpoints and
// read events (the API, the dashboard and the CLI). It needs the store
// ports, a Clock, an IDGenerator, the *usecase.Observer, a
// ports.EventPoster and the domain.WebhookPolicy it applies
// (webhookout.Module), and a ports.EventRenderer (without one, a test
// event cannot be rendered and its request fails).
var ManageModule = fx.Module("events-manage",
	fx.Provide(
		newCreateEndpointHandler,
		NewListEndpointsHandler,
		NewGetEndpointHandler,
		NewUpdateEndpointHandler,
		NewDeleteEndpointHandler,
		newRotateEndpointSecretHandler,
		newSendTestEventHandler,
		NewRecoverEndpointHandler,
		NewListEventsHandler,
		NewGetEventHandler,
		NewRedeliverEventHandler,
	),
)

func newCreateEndpointHandler(endpoints ports.EndpointRepository, poster ports.EventPoster, policy domain.WebhookPolicy,
	clock ports.Clock, ids ports.IDGenerator, obs *usecase.Observer) *CreateEndpointHandler {
	return NewCreateEndpointHandler(endpoints, poster, policy, clock, ids, rand.Reader, obs)
}

func newRotateEndpointSecretHandler(endpoints ports.EndpointRepository, clock ports.Clock, obs *usecase.Observer) *RotateEndpointSecretHandler {
	return NewRotateEndpointSecretHandler(endpoints, clock, rand.Reader, obs)
}

type sendTestParams struct {
	fx.In
	Endpoints ports.EndpointRepository
	Events    ports.EventWriter
	Render    ports.EventRenderer `optional:"true"`
	Clock     ports.Clock
	IDs       ports.IDGenerator
	Obs       *usecase.Observer
}

func newSendTestEventHandler(p sendTestParams) *SendTestEventHandler {
	return NewSendTestEventHandler(p.Endpoints, p.Events, p.Render, p.Clock, p.IDs, p.Obs)
}
