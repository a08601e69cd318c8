package dashboard

import (
	"embed"
	"io/fs"
	"net/http"

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
	ChangeStatus     *app.ChangeCampaignStatusHandler
	ListTemplates    *app.ListTemplatesHandler
	ListContacts     *app.ListContactsHandler
	Conversation     *app.ListConversationHandler
}

type dash struct {
	d      Deps
	cfg    Config
	log    *zap.Logger
	pages  pages
	logins *attempts
}

// route is one page or form target: its ServeMux pattern, whether it needs
// a signed-in operator, and its handler.
type route struct {
	pattern  string
	signedIn bool
	handle   func(*dash, http.ResponseWriter, *http.Request)
}

// routes lists every route the dashboard serves, in one place.
var routes = []route{
	{"GET /dashboard/login", false, (*dash).loginPage},
	{"POST /dashboard/login", false, (*dash).login},
	{"POST /dashboard/logout", true, (*dash).logout},
	{"GET /dashboard/{$}", true, (*dash).home},
	{"GET /dashboard/keys", true, (*dash).keys},
	{"POST /dashboard/keys", true, (*dash).createKey},
	{"POST /dashboard/keys/{id}/revoke", true, (*dash).revokeKey},
	{"GET /dashboard/campaigns", true, (*dash).campaigns},
	{"GET /dashboard/campaigns/new", true, (*dash).newCampaign},
	{"POST /dashboard/campaigns", true, (*dash).createCampaign},
	{"GET /dashboard/campaigns/{id}", true, (*dash).campaign},
	{"POST /dashboard/campaigns/{id}", true, (*dash).editCampaign},
	{"POST /dashboard/campaigns/{id}/status", true, (*dash).changeStatus},
	{"GET /dashboard/contacts", true, (*dash).contacts},
	{"GET /dashboard/contacts/{id}", true, (*dash).contact},
}

//go:embed static
var staticFiles embed.FS

// NewHandler builds the dashboard's handler, which serves paths under
// /dashboard/.
func NewHandler(d Deps, cfg Config, log *zap.Logger) http.Handler {
	if log == nil {
		log = zap.NewNop()
	}
	cfg = cfg.WithDefaults()
	h := &dash{d: d, cfg: cfg, log: log, pages: mustParsePages(), logins: newAttempts(cfg.LoginAttemptsPerMinute)}
	mux := http.NewServeMux()
	for _, rt := range routes {
		handle := rt.handle
		var next http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { handle(h, w, r) })
		if rt.signedIn {
			next = h.requireSession(next)
		}
		mux.Handle(rt.pattern, next)
	}
	static, _ := fs.Sub(staticFiles, "static")
	mux.Handle("GET /dashboard/static/", http.StripPrefix("/dashboard/static/", cacheFor(http.FileServerFS(static))))

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
