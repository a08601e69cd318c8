package httpapi

import (
	"net/http"

	"go.opentelemetry.io/otel/trace"
	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/app/delivery"
	"github.com/heraldhq/herald/app/events"
	"github.com/heraldhq/herald/ports"
)

// Module provides the API handler and the *http.Server that serves it. It
// needs a Config, the app's use cases, a ports.Pinger and a *zap.Logger,
// and mounts the http.Handler named "dashboard" under /dashboard/ when one
// is provided.
var Module = fx.Module("httpapi",
	fx.Provide(newHandler, NewServer),
	fx.Decorate(func(l *zap.Logger) *zap.Logger { return l.Named("http") }),
)

// EventRendererModule provides the ports.EventRenderer that renders the data
// of events in the API's representations. The CLI's graph has it too: its
// changes write events like the server's.
var EventRendererModule = fx.Provide(fx.Annotate(NewEventRenderer, fx.As(new(ports.EventRenderer))))

// DebugModule serves Go's profiler (net/http/pprof) on its own listener, for
// profiling a running server: go tool pprof http://ADDR/debug/pprof/profile.
// It is off unless the operator names an address, and that address should be
// loopback: profiles show code paths and the heap.
func DebugModule(addr string) fx.Option {
	return fx.Invoke(func(lc fx.Lifecycle, log *zap.Logger) { newDebugServer(lc, addr, log) })
}

// MetricsModule serves the http.Handler named "metrics" (adapters/metrics:
// Prometheus's text format, at /metrics) on its own listener at addr, for
// Prometheus to scrape. It is off unless the operator names an address,
// which should be loopback or a network only Prometheus reaches: the
// metrics tell traffic volumes and error rates.
func MetricsModule(addr string) fx.Option {
	return fx.Invoke(fx.Annotate(func(lc fx.Lifecycle, h http.Handler, log *zap.Logger) { newMetricsServer(lc, addr, h, log) },
		fx.ParamTags(``, `name:"metrics"`)))
}

type handlerParams struct {
	fx.In
	Auth           *app.AuthenticateKeyHandler
	SendCampaign   *app.SendCampaignMessageHandler
	SendSession    *app.SendSessionMessageHandler
	MarkRead       *app.MarkReadHandler
	ContactByPhone *app.GetContactByPhoneHandler
	SyncContact    *app.SyncContactHandler
	GetMessage     *app.GetMessageHandler
	ListMessages   *app.ListMessagesHandler
	ListCampaigns  *app.ListCampaignsHandler
	GetCampaign    *app.GetCampaignHandler
	CampaignStats  *app.GetCampaignStatsHandler
	CreateCampaign *app.CreateCampaignHandler
	RemapCampaign  *app.RemapCampaignHandler
	ChangeStatus   *app.ChangeCampaignStatusHandler
	ListTemplates  *app.ListTemplatesHandler
	SubmitTemplate *app.SubmitTemplateHandler
	DeleteTemplate *app.DeleteTemplateHandler
	PhoneNumbers   *app.ListPhoneNumbersHandler
	Conversation   *app.ListConversationHandler
	UploadMedia    *app.UploadMediaHandler
	GetMedia       *app.GetMediaHandler
	Webhook        *delivery.ReceiveWebhookHandler
	WebhookVerify  *delivery.VerifyWebhookSubscriptionHandler
	Store          ports.Pinger
	Dispatcher     *delivery.Dispatcher
	Dashboard      http.Handler `name:"dashboard" optional:"true"`
	Events         eventParams
	Config         Config
	Log            *zap.Logger
	Metrics        ports.Metrics        `optional:"true"`
	Tracer         trace.TracerProvider `optional:"true"`
}

func newHandler(p handlerParams) http.Handler {
	return NewHandler(Deps{
		Auth: p.Auth, SendCampaign: p.SendCampaign, SendSession: p.SendSession, MarkRead: p.MarkRead, ContactByPhone: p.ContactByPhone, SyncContact: p.SyncContact,
		GetMessage: p.GetMessage, ListMessages: p.ListMessages, ListCampaigns: p.ListCampaigns, GetCampaign: p.GetCampaign,
		CampaignStats: p.CampaignStats, Conversation: p.Conversation, UploadMedia: p.UploadMedia, GetMedia: p.GetMedia, Webhook: p.Webhook, WebhookVerify: p.WebhookVerify,
		Store: p.Store, Dispatcher: p.Dispatcher, Dashboard: p.Dashboard, Events: p.Events.deps(),
		CreateCampaign: p.CreateCampaign, RemapCampaign: p.RemapCampaign, ChangeCampaignStatus: p.ChangeStatus,
		Metrics: p.Metrics, Tracer: p.Tracer,
		ListTemplates: p.ListTemplates, SubmitTemplate: p.SubmitTemplate, DeleteTemplate: p.DeleteTemplate,
		ListPhoneNumbers: p.PhoneNumbers,
	}, p.Config, p.Log)
}

// eventParams are the use cases of webhook endpoints and events
// (events.ManageModule).
type eventParams struct {
	fx.In
	CreateEndpoint *events.CreateEndpointHandler
	ListEndpoints  *events.ListEndpointsHandler
	GetEndpoint    *events.GetEndpointHandler
	UpdateEndpoint *events.UpdateEndpointHandler
	DeleteEndpoint *events.DeleteEndpointHandler
	RotateSecret   *events.RotateEndpointSecretHandler
	SendTest       *events.SendTestEventHandler
	Recover        *events.RecoverEndpointHandler
	ListEvents     *events.ListEventsHandler
	GetEvent       *events.GetEventHandler
	Redeliver      *events.RedeliverEventHandler
}

func (p eventParams) deps() EventDeps {
	return EventDeps{CreateEndpoint: p.CreateEndpoint, ListEndpoints: p.ListEndpoints, GetEndpoint: p.GetEndpoint,
		UpdateEndpoint: p.UpdateEndpoint, DeleteEndpoint: p.DeleteEndpoint, RotateSecret: p.RotateSecret,
		SendTest: p.SendTest, Recover: p.Recover, ListEvents: p.ListEvents, GetEvent: p.GetEvent, Redeliver: p.Redeliver}
}
