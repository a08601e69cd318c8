package delivery

import (
	"context"

	"go.uber.org/fx"

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
		newSenders,
		NewDispatcher,
		NewApplyWebhookEventHandler,
		NewReceiveWebhookHandler,
		NewVerifyWebhookSubscriptionHandler,
		NewReplayWebhookEventsHandler,
		fx.Annotate(NewRecordStatusEventHandler, fx.As(fx.Self()), fx.As(new(ports.StatusSink))),
	),
)

// WorkersModule runs the dispatcher and the retries of webhook events that
// failed to apply while the server runs. On stop the dispatcher stops
// claiming, finishes its sends in flight and releases the rest. The CLI
// leaves it out.
var WorkersModule = fx.Module("delivery.workers", fx.Invoke(runWorkers))

type senderParams struct {
	fx.In
	Live    ports.WhatsAppSender `name:"live" optional:"true"`
	Sandbox ports.WhatsAppSender `name:"sandbox"`
	// Media, when there, gives live messages' media Meta's ids before
	// each send.
	Media ports.MediaStager `optional:"true"`
}

func newSenders(p senderParams) Senders {
	live := p.Live
	if live != nil && p.Media != nil {
		live = stagedSender{WhatsAppSender: live, media: p.Media}
	}
	return Senders{Live: live, Sandbox: p.Sandbox}
}

func runWorkers(lc fx.Lifecycle, d *Dispatcher, webhooks *ReplayWebhookEventsHandler) {
	ctx, cancel := context.WithCancel(context.Background())
	const running = 2
	done := make(chan struct{}, running)
	lc.Append(fx.Hook{
		OnStart: func(context.Context) error {
			go func() { d.Run(ctx); done <- struct{}{} }()
			go func() { webhooks.Retry(ctx); done <- struct{}{} }()
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
