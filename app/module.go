package app

import (
	"context"

	"go.opentelemetry.io/otel/trace"
	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/heraldhq/herald/app/delivery"
	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/ports"
)

// Module provides the use cases that answer the API, the dashboard and the
// CLI, the *usecase.Observer that logs them and delivery's, and the
// *usecase.Events that they and delivery's write events with. It needs the
// store ports, a Clock, an IDGenerator, a ports.EventRenderer, a Config, a
// *zap.Logger, a
// ports.MediaInspector, a ports.PasswordHasher and, from delivery.Module,
// the dispatcher's *delivery.Wakeup and the delivery.Senders: without a
// live sender, live keys' sends are refused (whatsapp_not_configured),
// never routed to the sandbox.
var Module = fx.Module("app",
	fx.Provide(
		newObserver,
		newEvents,
		NewAuthenticateKeyHandler,
		newSendCampaignMessageHandler,
		newSendSessionMessageHandler,
		NewGetContactByPhoneHandler,
		NewSyncContactHandler,
		NewGetMessageHandler,
		NewGetCampaignHandler,
		NewListCampaignsHandler,
		NewGetCampaignStatsHandler,
		NewListConversationHandler,
		NewListThreadsHandler,
		NewReadThreadHandler,
		NewListSendableCampaignsHandler,
		NewEnsureDefaultWorkspaceHandler,
		NewCreateWorkspaceHandler,
		NewSimulateInboundHandler,
		newMarkReadHandler,
		NewCreateKeyHandler,
		NewListKeysHandler,
		NewListNumberHealthHandler,
		NewRevokeKeyHandler,
		newCreateCampaignHandler,
		newSyncTemplatesHandler,
		NewChangeCampaignStatusHandler,
		newEditCampaignHandler,
		newRemapCampaignHandler,
		NewListCampaignMessagesHandler,
		NewListMessagesHandler,
		NewResolveWorkspaceHandler,
		NewListContactsHandler,
		NewCreateOperatorHandler,
		NewLogInHandler,
		newListTemplatesHandler,
		newSubmitTemplateHandler,
		newDeleteTemplateHandler,
		newNumbersHandler,
		NewListPhoneNumbersHandler,
		newMediaDeps,
		NewUploadMediaHandler,
		NewGetMediaHandler,
		fx.Annotate(NewMediaStager, fx.As(new(ports.MediaStager))),
	),
)

type numbersHandlerParams struct {
	fx.In
	Repo       ports.NumberRepository
	Workspaces ports.WorkspaceRepository
	Sealer     ports.SecretSealer `optional:"true"`
	Live       *delivery.Numbers
	Clock      ports.Clock
	IDs        ports.IDGenerator
}

func newNumbersHandler(p numbersHandlerParams) *NumbersHandler {
	return NewNumbersHandler(p.Repo, p.Workspaces, p.Sealer, p.Live, p.Clock, p.IDs)
}

// mediaParams are what the media use cases take: Meta's side and the
// fetcher are there when configured, the cache when it is on.
type mediaParams struct {
	fx.In
	Tx         ports.Transactor
	Media      ports.MediaRepository
	Uploader   ports.MediaUploader   `optional:"true"`
	Downloader ports.MediaDownloader `optional:"true"`
	Cache      ports.MediaCache      `optional:"true"`
	Fetcher    ports.MediaFetcher    `optional:"true"`
	Clock      ports.Clock
	IDs        ports.IDGenerator
	Obs        *usecase.Observer
	Config     Config
}

func newMediaDeps(p mediaParams) MediaDeps {
	return MediaDeps{Tx: p.Tx, Media: p.Media, Uploader: p.Uploader, Downloader: p.Downloader, Cache: p.Cache,
		Fetcher: p.Fetcher, Clock: p.Clock, IDs: p.IDs, Obs: p.Obs, AutoUpload: p.Config.AutoUploadMedia}
}

// WorkersModule runs the key-usage flusher, template refresh and the purge
// of expired send guards and dashboard sessions while the server runs, and
// makes sure the default workspace exists at start; delivery.WorkersModule
// runs the dispatcher and webhook retries. The CLI leaves both out.
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
	MediaFiles  ports.MediaRepository
	Clock       ports.Clock
	IDs         ports.IDGenerator
	Config      Config
	Wake        *delivery.Wakeup
	Obs         *usecase.Observer
	Senders     delivery.Senders
	Numbers     ports.NumberRepository
}

func newSendCampaignMessageHandler(p sendCampaignParams) *SendCampaignMessageHandler {
	return NewSendCampaignMessageHandler(SendCampaignDeps{Tx: p.Tx, Campaigns: p.Campaigns, Contacts: p.Contacts,
		Messages: p.Messages, Idempotency: p.Idempotency, SendCounts: p.SendCounts, Media: p.Media,
		Clock: p.Clock, IDs: p.IDs, Config: p.Config, Wake: p.Wake, Obs: p.Obs, LiveSending: p.Senders.Live != nil,
		LiveNumbers: liveNumbers(p.Senders)})
}

func newSendSessionMessageHandler(p sendCampaignParams) *SendSessionMessageHandler {
	return NewSendSessionMessageHandler(SendSessionDeps{Tx: p.Tx, Messages: p.Messages, Idempotency: p.Idempotency, Media: p.MediaFiles,
		Clock: p.Clock, IDs: p.IDs, Config: p.Config, Wake: p.Wake, Obs: p.Obs, LiveSending: p.Senders.Live != nil,
		LiveNumbers: liveNumbers(p.Senders), Numbers: p.Numbers})
}

func newMarkReadHandler(convs ports.ConversationRepository, contacts ports.ContactRepository, senders delivery.Senders, obs *usecase.Observer) *MarkReadHandler {
	return NewMarkReadHandler(convs, senders, obs).WithContacts(contacts)
}

// liveNumbers is the stored numbers as LiveNumbers, nil without them.
func liveNumbers(s delivery.Senders) LiveNumbers {
	if s.Numbers == nil {
		return nil
	}
	return s.Numbers
}

// templateSource is the Cloud API's template source, absent when template
// sync is not configured.
type templateSource struct {
	fx.In
	Source ports.TemplateSource `optional:"true"`
}

func newCreateCampaignHandler(workspaces ports.WorkspaceRepository, camps ports.CampaignRepository, templates ports.TemplateRepository, src templateSource, def *EnsureDefaultWorkspaceHandler, clock ports.Clock, ids ports.IDGenerator, numbers ports.NumberRepository) *CreateCampaignHandler {
	return NewCreateCampaignHandler(workspaces, camps, templates, src.Source, def, clock, ids).WithNumbers(numbers)
}

func newRemapCampaignHandler(camps ports.CampaignRepository, clock ports.Clock, obs *usecase.Observer, numbers ports.NumberRepository) *RemapCampaignHandler {
	return NewRemapCampaignHandler(camps, clock, obs).WithNumbers(numbers)
}

func newEditCampaignHandler(camps ports.CampaignRepository, clock ports.Clock, obs *usecase.Observer, numbers ports.NumberRepository) *EditCampaignHandler {
	return NewEditCampaignHandler(camps, clock, obs).WithNumbers(numbers)
}

func newListTemplatesHandler(src templateSource, templates ports.TemplateRepository, numbers ports.NumberRepository) *ListTemplatesHandler {
	return NewListTemplatesHandler(src.Source, templates).WithNumbers(numbers)
}

// templateAuthor is the Cloud API's template author, absent when no
// business account is configured.
type templateAuthor struct {
	fx.In
	Author ports.TemplateAuthor `optional:"true"`
}

func newSubmitTemplateHandler(a templateAuthor, numbers ports.NumberRepository, authors *delivery.Numbers, tx ports.Transactor, clock ports.Clock, obs *usecase.Observer) *SubmitTemplateHandler {
	return NewSubmitTemplateHandler(a.Author, tx, clock, obs).WithNumbers(numbers, authors)
}

func newDeleteTemplateHandler(a templateAuthor, numbers ports.NumberRepository, authors *delivery.Numbers, tx ports.Transactor, clock ports.Clock, events *usecase.Events, obs *usecase.Observer) *DeleteTemplateHandler {
	return NewDeleteTemplateHandler(a.Author, tx, clock, events, obs).WithNumbers(numbers, authors)
}

func newSyncTemplatesHandler(src templateSource, numbers *delivery.Numbers, tx ports.Transactor, clock ports.Clock, events *usecase.Events, obs *usecase.Observer) *SyncTemplatesHandler {
	return NewSyncTemplatesHandler(src.Source, numbers, tx, clock, events, obs)
}

type workers struct {
	fx.In
	Auth      *AuthenticateKeyHandler
	Default   *EnsureDefaultWorkspaceHandler
	Templates *SyncTemplatesHandler
	Send      *SendCampaignMessageHandler
	LogIn     *LogInHandler
	Numbers   *NumbersHandler
	Config    Config
	Log       *zap.Logger
}

func runWorkers(lc fx.Lifecycle, w workers) {
	auth, def, templates, log := w.Auth, w.Default, w.Templates, w.Log
	cfg := w.Config.WithDefaults()
	ctx, cancel := context.WithCancel(context.Background())
	const running = 3
	done := make(chan struct{}, running)
	lc.Append(fx.Hook{
		OnStart: func(start context.Context) error {
			if _, err := def.Handle(start); err != nil {
				cancel()
				return err
			}
			if _, err := w.Numbers.EnsureEnvNumber(start, EnsureEnvNumber{PhoneNumberID: cfg.WhatsAppPhoneNumberID,
				WABAID: cfg.WhatsAppWABAID}); err != nil {
				cancel()
				return err
			}
			go func() {
				usecase.Every(ctx, cfg.LastUsedFlushEvery, func() {
					if err := auth.FlushLastUsed(ctx); err != nil {
						log.Warn("writing key last-used times failed", zap.Error(err))
					}
				})
				done <- struct{}{}
			}()
			go func() { templates.Refresh(ctx, cfg.TemplateRefresh); done <- struct{}{} }()
			go func() {
				usecase.Every(ctx, cfg.SendGuardPurgeEvery, func() {
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

// observerParams are what the observer logs, counts and traces with: the
// metrics port and the tracer provider are there when the server exports
// them (cmd/herald's telemetry options).
type observerParams struct {
	fx.In
	Log     *zap.Logger
	Metrics ports.Metrics        `optional:"true"`
	Tracer  trace.TracerProvider `optional:"true"`
}

func newObserver(p observerParams) *usecase.Observer {
	return usecase.NewObserver(p.Log).WithTelemetry(p.Metrics, p.Tracer)
}

func newEvents(ids ports.IDGenerator, render ports.EventRenderer, obs *usecase.Observer) *usecase.Events {
	return usecase.NewEvents(ids, render).WithMetrics(obs.Metrics())
}
