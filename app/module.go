package app

import (
	"context"
	"time"

	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/heraldhq/herald/ports"
)

// Module provides every use case, the dispatcher and the key-usage flusher,
// and runs the two workers for the life of the application. It needs the
// repository ports, a Clock, an IDGenerator, a Config, a *zap.Logger, a
// ports.WebhookDecoder and two named senders, `name:"live"` and
// `name:"sandbox"`.
var Module = fx.Module("app",
	fx.Provide(
		NewObserver,
		NewWakeup,
		newSenders,
		NewAuthenticateKeyHandler,
		NewSendCampaignMessageHandler,
		NewGetContactByPhoneHandler,
		NewSyncContactHandler,
		NewGetMessageHandler,
		NewGetCampaignHandler,
		NewListCampaignsHandler,
		NewGetCampaignStatsHandler,
		NewListConversationHandler,
		NewEnsureDefaultWorkspaceHandler,
		NewCreateWorkspaceHandler,
		NewCreateKeyHandler,
		NewListKeysHandler,
		NewRevokeKeyHandler,
		newCreateCampaignHandler,
		newSyncTemplatesHandler,
		NewChangeCampaignStatusHandler,
		NewDispatcher,
		NewApplyWebhookEventHandler,
		NewReceiveWebhookHandler,
		NewVerifyWebhookSubscriptionHandler,
		NewReplayWebhookEventsHandler,
		fx.Annotate(NewRecordStatusEventHandler, fx.As(fx.Self()), fx.As(new(ports.StatusSink))),
	),
)

// WorkersModule runs the dispatcher, the key-usage flusher, template refresh
// and webhook retries while the server runs, and makes sure the default workspace exists at start. The CLI
// leaves it out.
var WorkersModule = fx.Module("workers", fx.Invoke(runWorkers))

type senderParams struct {
	fx.In
	Live    ports.WhatsAppSender `name:"live"`
	Sandbox ports.WhatsAppSender `name:"sandbox"`
}

func newSenders(p senderParams) Senders { return Senders{Live: p.Live, Sandbox: p.Sandbox} }

// templateSource is the Cloud API's template source, absent when template
// sync is not configured.
type templateSource struct {
	fx.In
	Source ports.TemplateSource `optional:"true"`
}

func newCreateCampaignHandler(workspaces ports.WorkspaceRepository, camps ports.CampaignRepository, templates ports.TemplateRepository, src templateSource, def *EnsureDefaultWorkspaceHandler, clock ports.Clock, ids ports.IDGenerator) *CreateCampaignHandler {
	return NewCreateCampaignHandler(workspaces, camps, templates, src.Source, def, clock, ids)
}

func newSyncTemplatesHandler(src templateSource, tx ports.Transactor, clock ports.Clock, obs *Observer) *SyncTemplatesHandler {
	return NewSyncTemplatesHandler(src.Source, tx, clock, obs)
}

type workers struct {
	fx.In
	Dispatcher *Dispatcher
	Auth       *AuthenticateKeyHandler
	Default    *EnsureDefaultWorkspaceHandler
	Templates  *SyncTemplatesHandler
	Webhooks   *ReplayWebhookEventsHandler
	Config     Config
	Log        *zap.Logger
}

func runWorkers(lc fx.Lifecycle, w workers) {
	d, auth, def, templates, log := w.Dispatcher, w.Auth, w.Default, w.Templates, w.Log
	cfg := w.Config.WithDefaults()
	ctx, cancel := context.WithCancel(context.Background())
	const running = 4
	done := make(chan struct{}, running)
	lc.Append(fx.Hook{
		OnStart: func(start context.Context) error {
			if _, err := def.Handle(start); err != nil {
				cancel()
				return err
			}
			go func() { d.Run(ctx); done <- struct{}{} }()
			go func() {
				t := time.NewTicker(cfg.LastUsedFlushEvery)
				defer t.Stop()
				for {
					select {
					case <-ctx.Done():
						done <- struct{}{}
						return
					case <-t.C:
						if err := auth.FlushLastUsed(ctx); err != nil {
							log.Warn("writing key last-used times failed", zap.Error(err))
						}
					}
				}
			}()
			go func() { templates.Refresh(ctx, cfg.TemplateRefresh); done <- struct{}{} }()
			go func() { w.Webhooks.Retry(ctx); done <- struct{}{} }()
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
			return auth.FlushLastUsed(stop)
		},
	})
}
