package delivery

import (
	"context"

	"go.uber.org/fx"

	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// Module provides the dispatcher and its wake-up signal, the sender routing
// (Senders), the status pipeline (also as the ports.StatusSink the sandbox
// reports to) and the webhook use cases. It needs the store ports, a
// Clock, an IDGenerator, a Config, the *usecase.Observer (app.Module
// provides it), the webhook ports (ports.WebhookVerifier, WebhookDecoder,
// BusinessNumbers) and the named senders: `name:"sandbox"` always,
// `name:"live"` (Meta's Cloud API) when it is configured. Without a live
// sender live messages are never sent, and never to the sandbox.
var Module = fx.Module("delivery",
	fx.Provide(
		NewWakeup,
		newNumbers,
		func(n *Numbers) ports.AppSecretSource { return n },
		newSenders,
		NewDispatcher,
		newApplyWebhookEventHandler,
		NewReceiveWebhookHandler,
		NewVerifyWebhookSubscriptionHandler,
		NewReplayWebhookEventsHandler,
		newRefreshNumberHealthHandler,
		fx.Annotate(NewRecordStatusEventHandler, fx.As(fx.Self()), fx.As(new(ports.StatusSink))),
	),
)

// WorkersModule runs the dispatcher and the retries of webhook events that
// failed to apply while the server runs. On stop the dispatcher stops
// claiming, finishes its sends in flight and releases the rest. The CLI
// leaves it out.
var WorkersModule = fx.Module("delivery.workers", fx.Invoke(runWorkers, runHealthRefresh))

type senderParams struct {
	fx.In
	Live    ports.WhatsAppSender `name:"live" optional:"true"`
	Sandbox ports.WhatsAppSender `name:"sandbox"`
	Numbers *Numbers
}

func newSenders(p senderParams) Senders {
	return Senders{Live: p.Live, Sandbox: p.Sandbox, Numbers: p.Numbers}
}

type numbersParams struct {
	fx.In
	Repo    ports.NumberRepository
	Sealer  ports.SecretSealer   `optional:"true"`
	Clients ports.CloudClients   `optional:"true"`
	Live    ports.WhatsAppSender `name:"live" optional:"true"`
	Config  NumbersConfig        `optional:"true"`
	Cfg     Config
	Clock   ports.Clock
	// Media, when there, gives live messages' media Meta's ids before
	// each send.
	Media ports.MediaStager `optional:"true"`
}

func newNumbers(p numbersParams) *Numbers {
	n := NewNumbers(p.Repo, p.Sealer, p.Clients, p.Live, p.Config, p.Cfg, p.Clock)
	if p.Media != nil {
		n.StageMedia(p.Media)
	}
	return n
}

// NumberID asks each source that knows stored numbers.
func (e eitherNumbers) NumberID(metaID string) domain.BusinessNumberID {
	for _, n := range e {
		if ids, ok := n.(numberIDs); ok {
			if id := ids.NumberID(metaID); id != "" {
				return id
			}
		}
	}
	return ""
}

// eitherNumbers is ours when any of its sources says so: the webhook
// adapter's configured number, the stored numbers.
type eitherNumbers []ports.BusinessNumbers

func (e eitherNumbers) IsOurs(id string) bool {
	for _, n := range e {
		if n.IsOurs(id) {
			return true
		}
	}
	return false
}

func newApplyWebhookEventHandler(decoder ports.WebhookDecoder, configured ports.BusinessNumbers, stored *Numbers, tx ports.Transactor,
	events ports.WebhookEventRepository, clock ports.Clock, ids ports.IDGenerator, emit *usecase.Events, cfg Config, obs *usecase.Observer) *ApplyWebhookEventHandler {
	return NewApplyWebhookEventHandler(decoder, eitherNumbers{configured, stored}, tx, events, clock, ids, emit, cfg, obs)
}

func runWorkers(lc fx.Lifecycle, d *Dispatcher, webhooks *ReplayWebhookEventsHandler, numbers *Numbers) {
	ctx, cancel := context.WithCancel(context.Background())
	const running = 3
	done := make(chan struct{}, running)
	lc.Append(fx.Hook{
		OnStart: func(start context.Context) error {
			// A stored secret this server cannot open stops the start:
			// sending nothing, silently, would be worse.
			if err := numbers.Load(start); err != nil {
				cancel()
				return err
			}
			go func() { d.Run(ctx); done <- struct{}{} }()
			go func() { webhooks.Retry(ctx); done <- struct{}{} }()
			go func() { numbers.Run(ctx); done <- struct{}{} }()
			return nil
		},
		OnStop: func(stop context.Context) error {
			cancel()
			for range running {
				select {
				case <-done:
				case <-stop.Done():
					return stop.Err()
				}
			}
			return nil
		},
	})
}

type healthParams struct {
	fx.In
	Numbers *Numbers
	Reader  ports.NumberHealthReader `optional:"true"`
	Tx      ports.Transactor
	Clock   ports.Clock
	IDs     ports.IDGenerator
	Emit    *usecase.Events
	Cfg     Config
	Obs     *usecase.Observer
}

func newRefreshNumberHealthHandler(p healthParams) *RefreshNumberHealthHandler {
	return NewRefreshNumberHealthHandler(p.Numbers, p.Reader, p.Tx, p.Clock, p.IDs, p.Emit, p.Cfg, p.Obs)
}

// runHealthRefresh reads the numbers' health from Meta while the server
// runs (refresh_number_health.go).
func runHealthRefresh(lc fx.Lifecycle, h *RefreshNumberHealthHandler) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	lc.Append(fx.Hook{
		OnStart: func(context.Context) error {
			go func() { h.Run(ctx); close(done) }()
			return nil
		},
		OnStop: func(stop context.Context) error {
			cancel()
			select {
			case <-done:
				return nil
			case <-stop.Done():
				return stop.Err()
			}
		},
	})
}
