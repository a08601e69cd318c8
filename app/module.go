package app

import (
	"context"

	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/heraldhq/herald/ports"
)

// Module provides every use case, the dispatcher and the key-usage flusher,
// and runs the two workers for the life of the application. It needs the
// repository ports, a Clock, an IDGenerator, a Config, a *zap.Logger, a
// ports.WebhookDecoder, a ports.MediaInspector, a ports.PasswordHasher and
// the named senders: `name:"sandbox"` always, `name:"live"` (Meta's Cloud
// API) when it is configured. Without a live sender, live keys' sends are
// refused (whatsapp_not_configured), never routed to the sandbox.
var Module = fx.Module("app",
	fx.Provide(
		NewObserver,
		NewWakeup,
		newSenders,
		NewAuthenticateKeyHandler,
		newSendCampaignMessageHandler,
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
		NewEditCampaignHandler,
		NewListCampaignMessagesHandler,
		NewListContactsHandler,
		NewCreateOperatorHandler,
		NewLogInHandler,
		newListTemplatesHandler,
		NewDispatcher,
		NewApplyWebhookEventHandler,
		NewReceiveWebhookHandler,
		NewVerifyWebhookSubscriptionHandler,
		NewReplayWebhookEventsHandler,
		fx.Annotate(NewRecordStatusEventHandler, fx.As(fx.Self()), fx.As(new(ports.StatusSink))),
	),
)

// WorkersModule runs the dispatcher, the key-usage flusher, template
// refresh, webhook retries and the purge of expired send guards and
// dashboard sessions while the
// server runs, and makes sure the default workspace exists at start. The CLI
// leaves it out.
var WorkersModule = fx.Module("workers", fx.Invoke(runWorkers))

type sendCampaignParams struct {
	fx.In
	Tx          ports.Transactor
	Campaigns   ports.CampaignRepository
	Contacts    ports.ContactRepository
	Messages    ports.MessageRepository
	Idempotency ports.IdempotencyRepository
	SendCounts  ports.SendCountRepository
	Media       ports.MediaInspector
	Clock       ports.Clock
	IDs         ports.IDGenerator
	Config      Config
	Wake        *Wakeup
	Obs         *Observer
	Senders     Senders
}

func newSendCampaignMessageHandler(p sendCampaignParams) *SendCampaignMessageHandler {
	return NewSendCampaignMessageHandler(SendCampaignDeps{Tx: p.Tx, Campaigns: p.Campaigns, Contacts: p.Contacts,
		Messages: p.Messages, Idempotency: p.Idempotency, SendCounts: p.SendCounts, Media: p.Media,
		Clock: p.Clock, IDs: p.IDs, Config: p.Config, Wake: p.Wake, Obs: p.Obs, LiveSending: p.Senders.Live != nil})
}

type senderParams struct {
	fx.In
	Live    ports.WhatsAppSender `name:"live" optional:"true"`
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

func newListTemplatesHandler(src templateSource, templates ports.TemplateRepository) *ListTemplatesHandler {
	return NewListTemplatesHandler(src.Source, templates)
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
	Send       *SendCampaignMessageHandler
	LogIn      *LogInHandler
	Config     Config
	Log        *zap.Logger
}

func runWorkers(lc fx.Lifecycle, w workers) {
	d, auth, def, templates, log := w.Dispatcher, w.Auth, w.Default, w.Templates, w.Log
	cfg := w.Config.WithDefaults()
	ctx, cancel := context.WithCancel(context.Background())
	const running = 5
	done := make(chan struct{}, running)
	lc.Append(fx.Hook{
		OnStart: func(start context.Context) error {
			if _, err := def.Handle(start); err != nil {
				cancel()
				return err
			}
			go func() { d.Run(ctx); done <- struct{}{} }()
			go func() {
				every(ctx, cfg.LastUsedFlushEvery, func() {
					if err := auth.FlushLastUsed(ctx); err != nil {
						log.Warn("writing key last-used times failed", zap.Error(err))
					}
				})
				done <- struct{}{}
			}()
			go func() { templates.Refresh(ctx, cfg.TemplateRefresh); done <- struct{}{} }()
			go func() { w.Webhooks.Retry(ctx); done <- struct{}{} }()
			go func() {
				every(ctx, cfg.SendGuardPurgeEvery, func() {
					if err := w.Send.PurgeExpired(ctx); err != nil {
						log.Warn("purging expired idempotency keys and send counts failed", zap.Error(err))
					}
					if err := w.LogIn.PurgeExpired(ctx); err != nil {
						log.Warn("purging ended dashboard sessions failed", zap.Error(err))
					}
				})
				done <- struct{}{}
			}()
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
