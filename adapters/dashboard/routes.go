package dashboard

import (
	"embed"
	"io/fs"
	"net/http"
	"strings"

	"go.uber.org/zap"

	"github.com/heraldhq/herald/app"
)

// Deps are the use cases the dashboard calls.
type Deps struct {
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
	// The inbox: conversations, a thread, the reply box and the template
	// picker, and the sandbox's simulated customer.
	ListThreads  *app.ListThreadsHandler
	ReadThread   *app.ReadThreadHandler
	SendSession  *app.SendSessionMessageHandler
	SendCampaign *app.SendCampaignMessageHandler
	// UploadMedia takes the reply box's attached file, as POST /v1/media
	// does.
	UploadMedia *app.UploadMediaHandler
	// SendableCampaigns are the picker's campaigns.
	SendableCampaigns *app.ListSendableCampaignsHandler
	SimulateInbound   *app.SimulateInboundHandler
	// SyncContact edits a contact's tags and opt-out state.
	SyncContact *app.SyncContactHandler
	// Numbers manages the business numbers (the Numbers page); nil
	// leaves the page out.
	Numbers *app.NumbersHandler
	// PhoneNumbers, when set, offers the workspace's numbers on the new
	// campaign form.
	PhoneNumbers *app.ListPhoneNumbersHandler
	// GetMessage, when set, gives the thread's sent messages their
	// buttons.
	GetMessage *app.GetMessageHandler
	// NumberHealth, when set, lists the business numbers' health
	// (number_health.go).
	NumberHealth *app.ListNumberHealthHandler
	// GetMedia, when set, serves media files (a contact's images in the
	// thread) at /dashboard/media/{id}/content.
	GetMedia *app.GetMediaHandler
	Webhooks WebhookDeps
}

type dash struct {
	d      Deps
	cfg    Config
	log    *zap.Logger
	pages  pages
	logins *attempts
}

// route is one page or form target: its ServeMux pattern, whether it needs
// a signed-in operator, for a form the largest body it takes (see form),
// and its handler.
type route struct {
	pattern  string
	signedIn bool
	form     int64
	handle   func(*dash, http.ResponseWriter, *http.Request)
}

// routes lists every route the dashboard serves, in one place.
var routes = []route{
	{"GET /dashboard/login", false, 0, (*dash).loginPage},
	{"POST /dashboard/login", false, signInFormLimit, (*dash).login},
	{"POST /dashboard/logout", true, tokenFormLimit, (*dash).logout},
	{"GET /dashboard/{$}", true, 0, (*dash).home},
	{"GET /dashboard/keys", true, 0, (*dash).keys},
	{"POST /dashboard/keys", true, keyFormLimit, (*dash).createKey},
	{"POST /dashboard/keys/{id}/revoke", true, tokenFormLimit, (*dash).revokeKey},
	{"GET /dashboard/webhooks", true, 0, (*dash).webhooks},
	{"POST /dashboard/webhooks", true, webhookFormLimit, (*dash).createWebhook},
	{"GET /dashboard/webhooks/{id}", true, 0, (*dash).webhook},
	{"POST /dashboard/webhooks/{id}/status", true, tokenFormLimit, (*dash).webhookStatus},
	{"POST /dashboard/webhooks/{id}/test", true, tokenFormLimit, (*dash).webhookTest},
	{"POST /dashboard/webhooks/{id}/rotate", true, tokenFormLimit, (*dash).rotateWebhook},
	{"POST /dashboard/webhooks/{id}/redeliver", true, tokenFormLimit, (*dash).webhookRedeliver},
	{"POST /dashboard/webhooks/{id}/delete", true, tokenFormLimit, (*dash).deleteWebhook},
	{"GET /dashboard/campaigns", true, 0, (*dash).campaigns},
	{"GET /dashboard/campaigns/new", true, 0, (*dash).newCampaign},
	{"POST /dashboard/campaigns", true, campaignFormLimit, (*dash).createCampaign},
	{"GET /dashboard/campaigns/{id}", true, 0, (*dash).campaign},
	{"POST /dashboard/campaigns/{id}", true, campaignFormLimit, (*dash).editCampaign},
	{"POST /dashboard/campaigns/{id}/status", true, tokenFormLimit, (*dash).changeStatus},
	{"GET /dashboard/templates", true, 0, (*dash).templates},
	{"POST /dashboard/templates", true, campaignFormLimit, (*dash).submitTemplate},
	{"GET /dashboard/numbers", true, 0, (*dash).numbers},
	{"POST /dashboard/numbers", true, numberFormLimit, (*dash).addNumber},
	{"GET /dashboard/numbers/{id}", true, 0, (*dash).number},
	{"POST /dashboard/numbers/{id}", true, numberFormLimit, (*dash).updateNumber},
	{"POST /dashboard/numbers/{id}/remove", true, tokenFormLimit, (*dash).removeNumber},
	{"GET /dashboard/contacts", true, 0, (*dash).contacts},
	{"GET /dashboard/contacts/{id}", true, 0, (*dash).contact},
	{"POST /dashboard/contacts/{id}", true, contactFormLimit, (*dash).editContact},
	{"GET /dashboard/inbox", true, 0, (*dash).inbox},
	{"POST /dashboard/inbox/simulate", true, simulateFormLimit, (*dash).simulateInbound},
	{"GET /dashboard/inbox/{id}", true, 0, (*dash).thread},
	{"POST /dashboard/inbox/{id}/reply", true, replyFormLimit, (*dash).reply},
	{"POST /dashboard/inbox/{id}/template", true, pickFormLimit, (*dash).sendTemplate},
	{"GET /dashboard/number-health", true, 0, (*dash).numberHealth},
	{"GET /dashboard/media/{id}/content", true, 0, (*dash).mediaContent},
}

// uploads are the form routes that also take a multipart form with one
// file, and the largest file each takes (see upload).
var uploads = map[string]int64{
	"POST /dashboard/inbox/{id}/reply": replyFileLimit,
}

// maxLoginBuckets bounds the sign-in limiter's memory: about 10 MiB.
const maxLoginBuckets = 100_000

//go:embed static
var staticFiles embed.FS

// NewHandler builds the dashboard's handler, which serves paths under
// /dashboard/.
func NewHandler(d Deps, cfg Config, log *zap.Logger) http.Handler {
	if log == nil {
		log = zap.NewNop()
	}
	cfg = cfg.WithDefaults()
	h := &dash{d: d, cfg: cfg, log: log, pages: mustParsePages(), logins: newAttempts(cfg.LoginAttemptsPerMinute, maxLoginBuckets)}
	mux := http.NewServeMux()
	for _, rt := range routes {
		handle := rt.handle
		var next http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { handle(h, w, r) })
		// A form's session is checked first, from the cookie alone; then
		// its body's type and size, before any of it is read; then, from
		// the parsed body, its token.
		if strings.HasPrefix(rt.pattern, http.MethodPost+" ") {
			if rt.form <= 0 {
				panic("dashboard: form route " + rt.pattern + " has no body limit")
			}
			if rt.signedIn {
				next = h.checkCSRF(next)
			}
			if fileLimit, ok := uploads[rt.pattern]; ok {
				next = h.upload(rt.form, fileLimit, next)
			} else {
				next = h.form(rt.form, next)
			}
		}
		if rt.signedIn {
			next = h.requireSession(next)
		}
		mux.Handle(rt.pattern, next)
	}
	// One file each: the directory itself is not listed.
	static, _ := fs.Sub(staticFiles, "static")
	mux.Handle("GET /dashboard/static/{file}", http.StripPrefix("/dashboard/static/", cacheFor(http.FileServerFS(static))))

	// Cross-site state changes are refused before any handler runs, from
	// Sec-Fetch-Site or Origin; forms behind a sign-in also carry a token.
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.fail(w, r, http.StatusForbidden, "This form was sent from another site, so it was refused. Open the dashboard and try again.")
	}))
	return securityHeaders(cop.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, pattern := mux.Handler(r); pattern == "" {
			h.fail(w, r, http.StatusNotFound, "There is no page at this address.")
			return
		}
		mux.ServeHTTP(w, r)
	})))
}

// securityHeaders keeps pages out of frames and caches, and scripts,
// styles and forms to this origin.
func securityHeaders(next http.Handler) http.Handler {
	const csp = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
		"connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'"
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("Content-Security-Policy", csp)
		hd.Set("X-Frame-Options", "DENY")
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("Referrer-Policy", "same-origin")
		hd.Set("Cache-Control", "no-store")
		if r.TLS != nil {
			hd.Set("Strict-Transport-Security", "max-age=31536000")
		}
		next.ServeHTTP(w, r)
	})
}

// cacheFor lets browsers keep the embedded assets for an hour.
func cacheFor(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=3600")
		next.ServeHTTP(w, r)
	})
}
