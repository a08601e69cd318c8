package dashboard_test

import (
	"bytes"
	"context"
	"html"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/adapters/dashboard"
	"github.com/heraldhq/herald/adapters/memstore"
	"github.com/heraldhq/herald/adapters/sandbox"
	"github.com/heraldhq/herald/adapters/system"
	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/app/delivery"
	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/ports/portsmock"
)

const (
	email    = "ops@example.com"
	password = "correct horse battery staple"
)

// env is the dashboard over memstore, with one operator in the default
// workspace and a workspace of someone else's.
type env struct {
	srv   *httptest.Server
	store *memstore.Store
	deps  dashboard.Deps

	createKey      *app.CreateKeyHandler
	createCampaign *app.CreateCampaignHandler
	syncContact    *app.SyncContactHandler
	other          domain.WorkspaceID
}

func newEnv(t *testing.T, cfg dashboard.Config) *env {
	t.Helper()
	ctx := context.Background()
	st := memstore.New()
	clock, ids, obs := system.Clock{}, system.NewIDs(), usecase.NewObserver(nil)
	def := app.NewEnsureDefaultWorkspaceHandler(st, clock, ids)
	auth := app.NewAuthenticateKeyHandler(st, clock, app.Config{})
	e := &env{store: st,
		createKey:      app.NewCreateKeyHandler(st, st, def, clock, ids),
		createCampaign: app.NewCreateCampaignHandler(st, st, st, nil, def, clock, ids),
		syncContact:    app.NewSyncContactHandler(st, clock, ids, nil, obs),
	}
	if _, err := app.NewCreateOperatorHandler(st, st, system.NewPasswords(system.PasswordConfig{}), def, clock, ids).Handle(ctx,
		app.CreateOperator{Email: email, Password: password}); err != nil {
		t.Fatal(err)
	}
	other, err := app.NewCreateWorkspaceHandler(st, clock, ids).Handle(ctx, app.CreateWorkspace{Name: "Other"})
	if err != nil {
		t.Fatal(err)
	}
	e.other = other.ID
	e.deps = dashboard.Deps{
		LogIn:            app.NewLogInHandler(st, system.NewPasswords(system.PasswordConfig{}), clock, ids, obs),
		ListKeys:         app.NewListKeysHandler(st, st, def),
		CreateKey:        e.createKey,
		RevokeKey:        app.NewRevokeKeyHandler(st, st, def, auth, clock),
		ListCampaigns:    app.NewListCampaignsHandler(st, st, obs),
		CampaignStats:    app.NewGetCampaignStatsHandler(st, st, clock, obs),
		CampaignMessages: app.NewListCampaignMessagesHandler(st, st, obs),
		CreateCampaign:   e.createCampaign,
		EditCampaign:     app.NewEditCampaignHandler(st, clock, obs),
		RemapCampaign:    app.NewRemapCampaignHandler(st, clock, obs),
		ChangeStatus:     app.NewChangeCampaignStatusHandler(st, st, def, clock, nil),
		ListTemplates:    app.NewListTemplatesHandler(nil, st),
		SubmitTemplate:   app.NewSubmitTemplateHandler(nil, st, clock, obs),
		ListContacts:     app.NewListContactsHandler(st, obs),
		Conversation:     app.NewListConversationHandler(st, st, obs),
		GetMessage:       app.NewGetMessageHandler(st, obs),
		Webhooks:         newWebhookDeps(st),
		ListThreads:      app.NewListThreadsHandler(st, obs),
		ReadThread: app.NewReadThreadHandler(st, st, st, st,
			app.NewMarkReadHandler(st, delivery.Senders{Sandbox: sandbox.New(nil, clock, sandbox.Config{}, nil)}, obs), clock, obs),
		SendSession: app.NewSendSessionMessageHandler(app.SendSessionDeps{Tx: st, Messages: st, Idempotency: st,
			Media: st, Clock: clock, IDs: ids, Obs: obs}),
		UploadMedia: app.NewUploadMediaHandler(app.MediaDeps{Tx: st, Media: st, Clock: clock, IDs: ids, Obs: obs}),
		SendCampaign: app.NewSendCampaignMessageHandler(app.SendCampaignDeps{Tx: st, Campaigns: st, Contacts: st,
			Messages: st, Idempotency: st, SendCounts: st, Clock: clock, IDs: ids, Obs: obs}),
		SendableCampaigns: app.NewListSendableCampaignsHandler(st, obs),
		SimulateInbound:   app.NewSimulateInboundHandler(st, st, def, clock, ids, nil),
		SyncContact:       e.syncContact,
		NumberHealth:      app.NewListNumberHealthHandler(st, st, st, clock),
		GetMedia: app.NewGetMediaHandler(app.MediaDeps{Tx: st, Media: st, Downloader: &portsmock.MediaDownloaderMock{
			DownloadMediaFunc: func(_ context.Context, id string) (ports.DownloadedMedia, error) {
				return ports.DownloadedMedia{MimeType: "image/jpeg", Size: -1, Body: io.NopCloser(strings.NewReader("jpeg of " + id))}, nil
			}}, Clock: clock, IDs: ids, Obs: obs}),
	}
	e.srv = httptest.NewServer(dashboard.NewHandler(e.deps, cfg, nil))
	t.Cleanup(e.srv.Close)
	return e
}

// browser is an HTTP client with cookies that does not follow redirects,
// so tests see them.
type browser struct {
	t    *testing.T
	base string
	c    *http.Client
	csrf string // the last page's form token
}

func (e *env) browser(t *testing.T) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: t, base: e.srv.URL, c: &http.Client{Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

func (b *browser) do(req *http.Request) (*http.Response, string) {
	b.t.Helper()
	res, err := b.c.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if m := csrfField.FindSubmatch(body); m != nil {
		b.csrf = string(m[1])
	}
	return res, html.UnescapeString(string(body))
}

func (b *browser) get(path string) (*http.Response, string) {
	b.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, b.base+path, nil)
	return b.do(req)
}

// post sends a form with the last page's token, unless the form sets csrf.
func (b *browser) post(path string, form url.Values, header ...string) (*http.Response, string) {
	b.t.Helper()
	if _, ok := form["csrf"]; !ok {
		form.Set("csrf", b.csrf)
	}
	req, _ := http.NewRequest(http.MethodPost, b.base+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return b.do(req)
}

// postFile sends a multipart form, as the reply box does, with the file
// (when name is not "") in the part named file.
func (b *browser) postFile(path string, form url.Values, name string, content []byte) (*http.Response, string) {
	b.t.Helper()
	if _, ok := form["csrf"]; !ok {
		form.Set("csrf", b.csrf)
	}
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for k, vs := range form {
		for _, v := range vs {
			_ = mw.WriteField(k, v)
		}
	}
	if name != "" {
		fw, _ := mw.CreateFormFile("file", name)
		_, _ = fw.Write(content)
	}
	_ = mw.Close()
	req, _ := http.NewRequest(http.MethodPost, b.base+path, &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return b.do(req)
}

func (b *browser) login() {
	b.t.Helper()
	res, body := b.post("/dashboard/login", url.Values{"email": {email}, "password": {password}})
	if res.StatusCode != http.StatusSeeOther {
		b.t.Fatalf("sign-in answered %d:\n%s", res.StatusCode, body)
	}
}

func wantStatus(t *testing.T, res *http.Response, body string, want int) {
	t.Helper()
	if res.StatusCode != want {
		t.Fatalf("%s %s answered %d, want %d:\n%s", res.Request.Method, res.Request.URL.Path, res.StatusCode, want, body)
	}
}

func wantRedirect(t *testing.T, res *http.Response, want string) {
	t.Helper()
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != want {
		t.Fatalf("%s %s answered %d to %q, want 303 to %q", res.Request.Method, res.Request.URL, res.StatusCode,
			res.Header.Get("Location"), want)
	}
}

func TestSignInLeadsBackAndSignOutEnds(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dashboard.Config{})
	b := e.browser(t)
	res, _ := b.get("/dashboard/keys")
	wantRedirect(t, res, "/dashboard/login?next=%2Fdashboard%2Fkeys")

	res, body := b.post("/dashboard/login", url.Values{"email": {email}, "password": {"wrong password!"}, "next": {"/dashboard/keys"}})
	wantStatus(t, res, body, http.StatusUnauthorized)
	if !strings.Contains(body, "The email address or the password is wrong.") || !strings.Contains(body, `value="ops@example.com"`) {
		t.Errorf("a wrong password's page lacks the message or the address typed:\n%s", body)
	}
	res, body = b.post("/dashboard/login", url.Values{"email": {"nobody@example.com"}, "password": {password}})
	wantStatus(t, res, body, http.StatusUnauthorized)
	if !strings.Contains(body, "The email address or the password is wrong.") {
		t.Errorf("an unknown address is not refused like a wrong password:\n%s", body)
	}

	res, _ = b.post("/dashboard/login", url.Values{"email": {"  OPS@example.com "}, "password": {password}, "next": {"/dashboard/keys"}})
	wantRedirect(t, res, "/dashboard/keys")
	var cookie *http.Cookie
	for _, c := range res.Cookies() {
		if c.Name == "herald_session" {
			cookie = c
		}
	}
	if cookie == nil || !cookie.HttpOnly || cookie.SameSite != http.SameSiteLaxMode || cookie.Path != "/dashboard" || cookie.Secure {
		t.Fatalf("session cookie = %+v; want HttpOnly, SameSite=Lax, Path=/dashboard, not Secure on plain HTTP", cookie)
	}
	res, body = b.get("/dashboard/keys")
	wantStatus(t, res, body, http.StatusOK)
	if !strings.Contains(body, email) || res.Header.Get("Cache-Control") != "no-store" ||
		!strings.Contains(res.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'") {
		t.Errorf("the keys page lacks the operator or the protective headers: %v", res.Header)
	}

	res, _ = b.post("/dashboard/logout", url.Values{})
	wantRedirect(t, res, "/dashboard/login")
	res, _ = b.get("/dashboard/keys")
	wantRedirect(t, res, "/dashboard/login?next=%2Fdashboard%2Fkeys")

	// The old cookie is dead on the server too, not only in this browser.
	stale := e.browser(t)
	u, _ := url.Parse(e.srv.URL)
	stale.c.Jar.SetCookies(u, []*http.Cookie{{Name: "herald_session", Value: cookie.Value, Path: "/dashboard"}})
	res, _ = stale.get("/dashboard/keys")
	wantRedirect(t, res, "/dashboard/login?next=%2Fdashboard%2Fkeys")
}

func TestSignInNeverLeavesTheDashboard(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dashboard.Config{})
	for _, next := range []string{"//evil.example/", "https://evil.example/dashboard/", "/v1/campaigns", "/dashboard/../v1/campaigns", `/\evil.example`, "javascript:alert(1)"} {
		b := e.browser(t)
		res, _ := b.post("/dashboard/login", url.Values{"email": {email}, "password": {password}, "next": {next}})
		wantRedirect(t, res, "/dashboard/")
	}
}

func TestSecureCookieWhenConfigured(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dashboard.Config{SecureCookie: true})
	res, _ := e.browser(t).post("/dashboard/login", url.Values{"email": {email}, "password": {password}})
	if cs := res.Cookies(); len(cs) != 1 || !cs[0].Secure {
		t.Fatalf("cookies %+v; want one Secure session cookie", cs)
	}
}

func TestSignInAttemptsAreLimited(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dashboard.Config{LoginAttemptsPerMinute: 3})
	b := e.browser(t)
	for range 3 {
		res, body := b.post("/dashboard/login", url.Values{"email": {email}, "password": {"guess number n"}})
		wantStatus(t, res, body, http.StatusUnauthorized)
	}
	res, body := b.post("/dashboard/login", url.Values{"email": {email}, "password": {password}})
	wantStatus(t, res, body, http.StatusTooManyRequests)
	if res.Header.Get("Retry-After") == "" || !strings.Contains(body, "Too many sign-in attempts") || len(res.Cookies()) != 0 {
		t.Errorf("a limited attempt lacks Retry-After or the message, or signed in:\n%s", body)
	}
}

func TestFormsRefuseRequestsWithoutTheirToken(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dashboard.Config{})
	b := e.browser(t)
	b.login()
	b.get("/dashboard/keys")
	for name, tc := range map[string]struct {
		csrf   string
		header []string
	}{
		"no token":       {csrf: ""},
		"a wrong token":  {csrf: "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"},
		"cross-site":     {header: []string{"Sec-Fetch-Site", "cross-site"}},
		"another origin": {header: []string{"Origin", "https://evil.example"}},
	} {
		form := url.Values{"name": {name}, "mode": {"live"}}
		if tc.header == nil {
			form.Set("csrf", tc.csrf)
		}
		res, body := b.post("/dashboard/keys", form, tc.header...)
		wantStatus(t, res, body, http.StatusForbidden)
	}
	ks, err := e.deps.ListKeys.Handle(context.Background(), app.ListKeys{})
	if err != nil || len(ks) != 0 {
		t.Fatalf("refused forms made keys: %v, %v", ks, err)
	}
}

func TestAPIKeysDoNotOpenTheDashboard(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dashboard.Config{})
	k, err := e.createKey.Handle(context.Background(), app.CreateKey{Name: "k", Mode: domain.ModeTest})
	if err != nil {
		t.Fatal(err)
	}
	b := e.browser(t)
	req, _ := http.NewRequest(http.MethodGet, e.srv.URL+"/dashboard/keys", nil)
	req.Header.Set("X-API-KEY", k.Token.Plaintext())
	res, _ := b.do(req)
	wantRedirect(t, res, "/dashboard/login?next=%2Fdashboard%2Fkeys")
}

func TestKeyTokenIsShownOnceAndRevocationSticks(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dashboard.Config{})
	b := e.browser(t)
	b.login()
	b.get("/dashboard/keys")
	res, body := b.post("/dashboard/keys", url.Values{"name": {"billing"}, "mode": {"live"}})
	wantStatus(t, res, body, http.StatusCreated)
	token := regexp.MustCompile(`sk_live_[0-9a-z]{16}[0-9A-Za-z]{38}`).FindString(body)
	if token == "" {
		t.Fatalf("the new key's page shows no token:\n%s", body)
	}
	_, body = b.get("/dashboard/keys")
	if strings.Contains(body, token) || strings.Contains(body, token[24:]) {
		t.Fatal("the keys page shows the token again")
	}
	ks, _ := e.deps.ListKeys.Handle(context.Background(), app.ListKeys{})
	if len(ks) != 1 || !strings.Contains(body, "sk_live_"+ks[0].Identifier) {
		t.Fatalf("the keys page lacks the key's identifier: %v", ks)
	}

	res, body = b.post("/dashboard/keys", url.Values{"name": {""}, "mode": {"test"}})
	wantStatus(t, res, body, http.StatusUnprocessableEntity)

	res, _ = b.post("/dashboard/keys/"+string(ks[0].ID)+"/revoke", url.Values{})
	wantRedirect(t, res, "/dashboard/keys")
	_, body = b.get("/dashboard/keys")
	if !strings.Contains(body, ">revoked<") {
		t.Errorf("the revoked key is not shown revoked:\n%s", body)
	}
	if _, err := e.deps.LogIn.Session(context.Background(), "x"); err == nil {
		t.Error("a malformed session token was accepted")
	}
}

func TestCampaignCreateEditAndStatus(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dashboard.Config{})
	b := e.browser(t)
	b.login()
	_, page := b.get("/dashboard/campaigns/new")
	if !strings.Contains(page, `name="body"`) {
		t.Fatalf("the new-campaign page has no body field:\n%s", page)
	}
	form := url.Values{"name": {"Welcome"}, "source": {"local"}, "templateName": {"welcome"}, "language": {"en_US"},
		"headerFormat": {"image"}, "body": {"Hi {{1}}, your code is {{2}}"}, "labels": {"First name\r\nCode"}}

	// A refused form comes back with everything typed.
	bad := url.Values{}
	for k, v := range form {
		bad[k] = v
	}
	bad.Set("body", "Hi {{2}}")
	res, body := b.post("/dashboard/campaigns", bad)
	wantStatus(t, res, body, http.StatusUnprocessableEntity)
	if !strings.Contains(body, "{{1}} is missing") || !strings.Contains(body, `value="Welcome"`) || !strings.Contains(strings.ReplaceAll(body, "\r", ""), "First name\nCode") {
		t.Fatalf("the refused form lost what was typed or says nothing useful:\n%s", body)
	}

	res, _ = b.post("/dashboard/campaigns", form)
	loc := res.Header.Get("Location")
	if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/dashboard/campaigns/cmp_") {
		t.Fatalf("creating answered %d to %q", res.StatusCode, loc)
	}
	id := strings.TrimPrefix(loc, "/dashboard/campaigns/")
	_, body = b.get(loc)
	for _, want := range []string{id, `<mark class="var">{{1}} <bdi>First name</bdi></mark>`, "JPEG or PNG file of at most 5 MB",
		`"mediaHeaderUrl":"https://example.com/header.jpg"`, `"variables":["First name","Code"]`, ">draft<", "<svg"} {
		if !strings.Contains(body, want) {
			t.Errorf("the campaign page lacks %q", want)
		}
	}

	res, _ = b.post(loc, url.Values{"name": {"Welcome back"}, "label": {"First name", "Verification code"}})
	wantRedirect(t, res, loc+"?saved=1")
	_, body = b.get(loc + "?saved=1")
	if !strings.Contains(body, "The campaign was saved.") || !strings.Contains(body, "{{2}} <bdi>Verification code</bdi>") || !strings.Contains(body, "<h1><bdi>Welcome back</bdi></h1>") {
		t.Errorf("the edit is not shown:\n%s", body)
	}
	res, body = b.post(loc, url.Values{"name": {""}, "label": {"Kept label", "Code"}})
	wantStatus(t, res, body, http.StatusUnprocessableEntity)
	if !strings.Contains(body, `value="Kept label"`) {
		t.Errorf("a refused edit lost the labels typed:\n%s", body)
	}

	for _, to := range []string{"active", "paused"} {
		res, _ = b.post(loc+"/status", url.Values{"to": {to}})
		wantRedirect(t, res, loc)
		_, body = b.get(loc)
		if !strings.Contains(body, `class="badge status-`+to+`">`+to+"<") {
			t.Errorf("after %s the page shows another status", to)
		}
	}
	_, body = b.get("/dashboard/campaigns")
	if !strings.Contains(body, id) || !strings.Contains(body, "Welcome back") {
		t.Errorf("the campaigns list lacks the campaign:\n%s", body)
	}
}

func TestAnotherWorkspacesObjectsAreNotFound(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dashboard.Config{})
	ctx := context.Background()
	c, err := e.createCampaign.Handle(ctx, app.CreateCampaign{Workspace: string(e.other), Name: "Theirs",
		TemplateName: "theirs", Language: "en", Body: "Hello"})
	if err != nil {
		t.Fatal(err)
	}
	r, err := e.syncContact.Handle(ctx, app.SyncContact{Principal: domain.Principal{Workspace: e.other}, PhoneNumber: "+14155550199"})
	if err != nil {
		t.Fatal(err)
	}
	b := e.browser(t)
	b.login()
	for _, path := range []string{"/dashboard/campaigns/" + string(c.ID), "/dashboard/contacts/" + string(r.Contact.ID), "/dashboard/campaigns/cmp_nothing"} {
		res, body := b.get(path)
		wantStatus(t, res, body, http.StatusNotFound)
	}
	res, body := b.post("/dashboard/campaigns/"+string(c.ID)+"/status", url.Values{"to": {"active"}})
	wantStatus(t, res, body, http.StatusNotFound)
	_, body = b.get("/dashboard/contacts")
	if strings.Contains(body, "+14155550199") {
		t.Error("the contacts list shows another workspace's contact")
	}
}

// TestContactsShowTheirMode: a number's live and test contacts are listed
// apart, the test one with the same "test" badge as sandbox messages, and
// its page says so.
func TestContactsShowTheirMode(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dashboard.Config{})
	ctx := context.Background()
	def, err := app.NewEnsureDefaultWorkspaceHandler(e.store, system.Clock{}, system.NewIDs()).Handle(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[domain.KeyMode]domain.ContactID{}
	for _, mode := range []domain.KeyMode{domain.ModeLive, domain.ModeTest} {
		r, err := e.syncContact.Handle(ctx, app.SyncContact{Principal: domain.Principal{Workspace: def.ID, Mode: mode},
			PhoneNumber: "+4915112345678"})
		if err != nil {
			t.Fatal(err)
		}
		ids[mode] = r.Contact.ID
	}
	b := e.browser(t)
	b.login()
	_, body := b.get("/dashboard/contacts")
	if strings.Count(body, "+4915112345678") != 2 || strings.Count(body, `<span class="badge test"`) != 1 {
		t.Errorf("the contacts list does not show the number's live and test contacts, the test one marked:\n%s", body)
	}
	for mode, id := range ids {
		_, body := b.get("/dashboard/contacts/" + string(id))
		if got := strings.Contains(body, "A test contact"); got != (mode == domain.ModeTest) {
			t.Errorf("the %s contact's page says it is a test contact: %v\n%s", mode, got, body)
		}
	}
}

func TestContactSearchByPhone(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dashboard.Config{})
	ctx := context.Background()
	def, err := app.NewEnsureDefaultWorkspaceHandler(e.store, system.Clock{}, system.NewIDs()).Handle(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"+4915112345678", "+4917012345678", "+14155550123"} {
		if _, err := e.syncContact.Handle(ctx, app.SyncContact{Principal: domain.Principal{Workspace: def.ID}, PhoneNumber: p,
			Changes: domain.ContactSync{}}); err != nil {
			t.Fatal(err)
		}
	}
	b := e.browser(t)
	b.login()
	_, body := b.get("/dashboard/contacts?phone=" + url.QueryEscape("49 151"))
	if !strings.Contains(body, "+4915112345678") || strings.Contains(body, "+4917012345678") || strings.Contains(body, "+14155550123") {
		t.Errorf("searching 49 151 shows the wrong contacts:\n%s", body)
	}
	res, body := b.get("/dashboard/contacts?phone=abc")
	wantStatus(t, res, body, http.StatusUnprocessableEntity)
	_, body = b.get("/dashboard/contacts")
	if strings.Count(body, `href="/dashboard/contacts/ctc_`) != 3 {
		t.Errorf("the contacts list does not show all three contacts:\n%s", body)
	}
}

// A contact without a number is shown by what WhatsApp says of it: its
// username, and its business-scoped user id on its page.
func TestContactWithoutANumber(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dashboard.Config{})
	ctx := context.Background()
	def, err := app.NewEnsureDefaultWorkspaceHandler(e.store, system.Clock{}, system.NewIDs()).Handle(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c := domain.NewContact("ctc_01m8an0000000000000000000a", "cnv_01m8an0000000000000000000a", def.ID, domain.ModeLive,
		domain.PhoneNumber{}, time.Now())
	c.RecordUser(domain.WhatsAppUser{UserID: "BR.1502576394655843", Username: "ana.silva", ProfileName: "Ana"}, time.Now())
	if err := e.store.CreateContact(ctx, c); err != nil {
		t.Fatal(err)
	}
	b := e.browser(t)
	b.login()
	if _, body := b.get("/dashboard/contacts"); !strings.Contains(body, "@ana.silva</bdi></a>") {
		t.Errorf("the list does not show the contact by its username:\n%s", body)
	}
	_, body := b.get("/dashboard/contacts/" + string(c.ID))
	for _, want := range []string{"<h1><bdi>@ana.silva</bdi></h1>", "none Herald can send to", "<code>BR.1502576394655843</code>"} {
		if !strings.Contains(body, want) {
			t.Errorf("the contact's page lacks %q:\n%s", want, body)
		}
	}
}
