package httpapi

import (
	"net/http"
	"strings"

	"go.opentelemetry.io/otel/trace"
	"go.uber.org/zap"

	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/app/delivery"
	"github.com/heraldhq/herald/ports"
)

// Deps are the use cases the API calls.
type Deps struct {
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
	Conversation   *app.ListConversationHandler
	UploadMedia    *app.UploadMediaHandler
	GetMedia       *app.GetMediaHandler
	Webhook        *delivery.ReceiveWebhookHandler
	WebhookVerify  *delivery.VerifyWebhookSubscriptionHandler
	Store          ports.Pinger
	Dispatcher     *delivery.Dispatcher // optional: readiness reports paused live sends
	Events         EventDeps            // webhook endpoints and events
	// Dashboard, when not nil, serves everything under /dashboard/ (the
	// web dashboard, with its own sign-in: it never sees API keys, and
	// the routes here never accept its session).
	Dashboard http.Handler

	// CreateCampaign, RemapCampaign and ChangeCampaignStatus define and
	// edit campaigns.
	CreateCampaign       *app.CreateCampaignHandler
	RemapCampaign        *app.RemapCampaignHandler
	ChangeCampaignStatus *app.ChangeCampaignStatusHandler

	// Metrics counts each request and Tracer traces it (a server span per
	// request, named by its route pattern); nil leaves either off.
	Metrics ports.Metrics
	Tracer  trace.TracerProvider

	// ListTemplates, SubmitTemplate and DeleteTemplate read and author
	// the business account's templates.
	ListTemplates  *app.ListTemplatesHandler
	SubmitTemplate *app.SubmitTemplateHandler
	DeleteTemplate *app.DeleteTemplateHandler

	// ListPhoneNumbers lists the business numbers a key may send from.
	ListPhoneNumbers *app.ListPhoneNumbersHandler
}

type api struct {
	d   Deps
	cfg Config
	log *zap.Logger

	keyLimits    *buckets // requests per API key
	authFailures *buckets // failed authentications per client address
}

// route is one entry of the API: its ServeMux pattern, whether it needs an
// API key, and its handler.
type route struct {
	pattern string
	keyed   bool
	handle  func(*api, http.ResponseWriter, *http.Request)
}

// routes lists every route the API serves, in one place.
var routes = []route{
	{"POST /v1/messages/send-campaign", true, (*api).sendCampaign},
	{"POST /v1/messages", true, (*api).sendSession},
	{"POST /v1/messages/{id}/read", true, (*api).markRead},
	{"GET /v1/messages", true, (*api).listMessages},
	{"GET /v1/messages/{id}", true, (*api).getMessage},
	// GET /v1/contacts/by-phone/{phone} and GET /v1/contacts/{id}/conversation
	// overlap for ServeMux (neither pattern is more specific), so one route
	// serves both; see contactsGet.
	{"GET /v1/contacts/{first}/{second}", true, (*api).contactsGet},
	{"POST /v1/contacts/sync", true, (*api).syncContact},
	{"GET /v1/campaigns", true, (*api).listCampaigns},
	{"GET /v1/campaigns/{id}", true, (*api).getCampaign},
	{"GET /v1/campaigns/{id}/stats", true, (*api).campaignStats},
	{"POST /v1/campaigns", true, (*api).createCampaign},
	{"PATCH /v1/campaigns/{id}", true, (*api).patchCampaign},
	{"POST /v1/campaigns/{id}/activate", true, (*api).activateCampaign},
	{"POST /v1/campaigns/{id}/pause", true, (*api).pauseCampaign},
	{"GET /v1/phone-numbers", true, (*api).listPhoneNumbers},
	{"GET /v1/templates", true, (*api).listTemplates},
	{"POST /v1/templates", true, (*api).createTemplate},
	{"DELETE /v1/templates/{name}", true, (*api).deleteTemplate},
	{"POST /v1/webhook-endpoints", true, (*api).createEndpoint},
	{"GET /v1/webhook-endpoints", true, (*api).listEndpoints},
	{"GET /v1/webhook-endpoints/{id}", true, (*api).getEndpoint},
	{"PATCH /v1/webhook-endpoints/{id}", true, (*api).updateEndpoint},
	{"DELETE /v1/webhook-endpoints/{id}", true, (*api).deleteEndpoint},
	{"POST /v1/webhook-endpoints/{id}/rotate-secret", true, (*api).rotateEndpointSecret},
	{"POST /v1/webhook-endpoints/{id}/test", true, (*api).testEndpoint},
	{"POST /v1/webhook-endpoints/{id}/recover", true, (*api).recoverEndpoint},
	{"POST /v1/media", true, (*api).uploadMedia},
	{"GET /v1/media/{id}", true, (*api).getMedia},
	{"GET /v1/media/{id}/content", true, (*api).mediaContent},
	{"GET /v1/events", true, (*api).listEvents},
	{"GET /v1/events/{id}", true, (*api).getEvent},
	{"POST /v1/events/{id}/redeliver", true, (*api).redeliverEvent},
	// Meta calls these: they are authenticated by the verify token and by
	// the body's signature, never by an API key.
	{"GET /v1/webhooks/whatsapp", false, (*api).verifyWebhook},
	{"POST /v1/webhooks/whatsapp", false, (*api).receiveWebhook},
	{"GET /healthz", false, (*api).healthz},
	{"GET /readyz", false, (*api).readyz},
	{"GET /openapi.json", false, (*api).openapi},
}

// NewHandler builds the API's handler.
func NewHandler(d Deps, cfg Config, log *zap.Logger) http.Handler {
	if log == nil {
		log = zap.NewNop()
	}
	cfg = cfg.WithDefaults()
	a := &api{d: d, cfg: cfg, log: log, keyLimits: newBuckets(cfg.RateLimit, cfg.RateBurst),
		authFailures: newBuckets(float64(cfg.AuthFailuresPerMinute)/60, cfg.AuthFailuresPerMinute)}
	mux := http.NewServeMux()
	for _, rt := range routes {
		handle := rt.handle
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { handle(a, w, r) })
		if rt.keyed {
			h = a.authenticated(h)
		}
		mux.Handle(rt.pattern, h)
	}
	if d.Dashboard != nil {
		mux.Handle("/dashboard/", d.Dashboard)
		mux.Handle("GET /dashboard", http.RedirectHandler("/dashboard/", http.StatusMovedPermanently))
		mux.Handle("GET /{$}", http.RedirectHandler("/dashboard/", http.StatusSeeOther))
	}
	return observe(log, newTelemetry(d.Metrics, d.Tracer), a.cfg.RequestTimeout, a.cfg.TrustedProxies, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, pattern := mux.Handler(r); pattern == "" {
			a.noRoute(w, r, mux)
			return
		}
		mux.ServeHTTP(w, r)
	}))
}

// noRoute answers 405 with Allow when the path exists for other methods, and
// 404 otherwise, as problems rather than ServeMux's plain text.
func (a *api) noRoute(w http.ResponseWriter, r *http.Request, mux *http.ServeMux) {
	var allow []string
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, p := mux.Handler(probe); p != "" {
			allow = append(allow, m)
		}
	}
	if len(allow) == 0 {
		writeProblem(w, r, CodeNotFound, "", "no route for "+r.URL.Path)
		return
	}
	if contains(allow, http.MethodGet) {
		allow = append(allow, http.MethodHead)
	}
	w.Header().Set("Allow", strings.Join(allow, ", "))
	writeProblem(w, r, CodeMethodNotAllowed, "", r.Method+" is not allowed here; use "+strings.Join(allow, " or "))
}
