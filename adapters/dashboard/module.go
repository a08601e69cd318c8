package dashboard

import (
	"net/http"

	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/app/events"
)

// Module provides the dashboard's handler as the http.Handler named
// "dashboard", which the HTTP server mounts under /dashboard/. It needs a
// Config, the app's use cases and a *zap.Logger.
var Module = fx.Module("dashboard",
	fx.Provide(fx.Annotate(newHandler, fx.ResultTags(`name:"dashboard"`))),
	fx.Decorate(func(l *zap.Logger) *zap.Logger { return l.Named("dashboard") }),
)

type handlerParams struct {
	fx.In
	LogIn            *app.LogInHandler
	ListKeys         *app.ListKeysHandler
	CreateKey        *app.CreateKeyHandler
	RevokeKey        *app.RevokeKeyHandler
	ListCampaigns    *app.ListCampaignsHandler
	CampaignStats    *app.GetCampaignStatsHandler
	CampaignMessages *app.ListCampaignMessagesHandler
	CreateCampaign   *app.CreateCampaignHandler
	EditCampaign     *app.EditCampaignHandler
	RemapCampaign    *app.RemapCampaignHandler
	ChangeStatus     *app.ChangeCampaignStatusHandler
	ListTemplates    *app.ListTemplatesHandler
	SubmitTemplate   *app.SubmitTemplateHandler
	ListContacts     *app.ListContactsHandler
	Conversation     *app.ListConversationHandler
	GetMessage       *app.GetMessageHandler
	ListThreads      *app.ListThreadsHandler
	ReadThread       *app.ReadThreadHandler
	SendSession      *app.SendSessionMessageHandler
	SendCampaign     *app.SendCampaignMessageHandler
	UploadMedia      *app.UploadMediaHandler
	Sendable         *app.ListSendableCampaignsHandler
	SimulateInbound  *app.SimulateInboundHandler
	SyncContact      *app.SyncContactHandler
	Numbers          *app.NumbersHandler          `optional:"true"`
	PhoneNumbers     *app.ListPhoneNumbersHandler `optional:"true"`
	GetMedia         *app.GetMediaHandler
	Webhooks         webhookParams
	NumberHealth     *app.ListNumberHealthHandler `optional:"true"`
	Config           Config
	Log              *zap.Logger
}

func newHandler(p handlerParams) http.Handler {
	return NewHandler(Deps{
		LogIn: p.LogIn, ListKeys: p.ListKeys, CreateKey: p.CreateKey, RevokeKey: p.RevokeKey,
		ListCampaigns: p.ListCampaigns, CampaignStats: p.CampaignStats,
		CampaignMessages: p.CampaignMessages, CreateCampaign: p.CreateCampaign, EditCampaign: p.EditCampaign, RemapCampaign: p.RemapCampaign,
		ChangeStatus: p.ChangeStatus, ListTemplates: p.ListTemplates, SubmitTemplate: p.SubmitTemplate, ListContacts: p.ListContacts,
		Conversation: p.Conversation, GetMessage: p.GetMessage, GetMedia: p.GetMedia, Webhooks: p.Webhooks.deps(),
		ListThreads: p.ListThreads, ReadThread: p.ReadThread, SendSession: p.SendSession, SendCampaign: p.SendCampaign,
		UploadMedia: p.UploadMedia, SendableCampaigns: p.Sendable,
		SimulateInbound: p.SimulateInbound, SyncContact: p.SyncContact,
		Numbers: p.Numbers, PhoneNumbers: p.PhoneNumbers,
		NumberHealth: p.NumberHealth,
	}, p.Config, p.Log)
}

// webhookParams are the Webhooks page's use cases (events.ManageModule).
type webhookParams struct {
	fx.In
	CreateEndpoint *events.CreateEndpointHandler
	ListEndpoints  *events.ListEndpointsHandler
	GetEndpoint    *events.GetEndpointHandler
	UpdateEndpoint *events.UpdateEndpointHandler
	DeleteEndpoint *events.DeleteEndpointHandler
	RotateSecret   *events.RotateEndpointSecretHandler
	SendTest       *events.SendTestEventHandler
	Redeliver      *events.RedeliverEventHandler
}

func (p webhookParams) deps() WebhookDeps {
	return WebhookDeps{CreateEndpoint: p.CreateEndpoint, ListEndpoints: p.ListEndpoints, GetEndpoint: p.GetEndpoint,
		UpdateEndpoint: p.UpdateEndpoint, DeleteEndpoint: p.DeleteEndpoint, RotateSecret: p.RotateSecret,
		SendTest: p.SendTest, Redeliver: p.Redeliver}
}
