package httpapi_test

import (
	"context"
	"encoding/json"
	"hash/crc32"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/heraldhq/herald/adapters/httpapi"
	"github.com/heraldhq/herald/adapters/memstore"
	"github.com/heraldhq/herald/adapters/sandbox"
	"github.com/heraldhq/herald/adapters/sqlstore"
	"github.com/heraldhq/herald/adapters/system"
	"github.com/heraldhq/herald/adapters/whatsapp"
	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/app/delivery"
	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/ports/portsmock"
	"github.com/heraldhq/herald/ports/porttest"
	"github.com/heraldhq/herald/test/testenv"
)

// apiEnv is a complete API over memstore and the sandbox, with two
// workspaces: the default one (key, campaigns) and another (other*).
type apiEnv struct {
	h     http.Handler
	deps  httpapi.Deps // to build the handler again with another Config
	store porttest.Store

	key, otherKey, revokedKey string
	liveKey                   string // a live key of the default workspace; key is a test key
	active, paused, image     string // campaign ids in the default workspace
	otherCampaign             string // a campaign of the other workspace

	uploads     *portsmock.MediaUploaderMock // Meta's side of live keys' uploads
	uploadCount atomic.Int64
}

type envOption func(*httpapi.Deps, porttest.Store)

// unlimited is the API's Config in scenario tests, whose many requests per
// key would otherwise meet the default rate limit, and whose walks of every
// route without a key the default limit on failed authentications; the
// rate-limit tests set their own.
var unlimited = httpapi.Config{RateLimit: 1e9, RateBurst: 1 << 30, AuthFailuresPerMinute: 1 << 20}

// newEnv builds the API on memstore.
func newEnv(t *testing.T, opts ...envOption) *apiEnv {
	t.Helper()
	return newEnvOn(t, memstore.New(), opts...)
}

// engines are the stores the scenario tables run on: memory and SQLite
// always, PostgreSQL when testenv provides it (always under CI).
var engines = []struct {
	name string
	open func(t *testing.T) porttest.Store
}{
	{"memory", func(t *testing.T) porttest.Store { return memstore.New() }},
	{"sqlite", func(t *testing.T) porttest.Store { return openSQL(t, "sqlite:"+filepath.Join(t.TempDir(), "h.db")) }},
	{"postgres", func(t *testing.T) porttest.Store { return openSQL(t, testenv.PostgresDatabase(t)) }},
}

func openSQL(t *testing.T, url string) porttest.Store {
	t.Helper()
	ctx := context.Background()
	db, d, err := sqlstore.Open(ctx, sqlstore.Config{DatabaseURL: url})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := sqlstore.Migrate(ctx, db, d); err != nil {
		t.Fatal(err)
	}
	return sqlstore.New(db, d)
}

// onEveryEngine runs fn once per store engine, each in a fresh store.
func onEveryEngine(t *testing.T, fn func(t *testing.T, e *apiEnv)) {
	for _, eng := range engines {
		t.Run(eng.name, func(t *testing.T) {
			t.Parallel()
			fn(t, newEnvOn(t, eng.open(t)))
		})
	}
}

func newEnvOn(t *testing.T, st porttest.Store, opts ...envOption) *apiEnv {
	t.Helper()
	ctx := context.Background()
	clock, ids := system.Clock{}, system.NewIDs()
	obs := usecase.NewObserver(nil)
	cfg := app.Config{}
	auth := app.NewAuthenticateKeyHandler(st, clock, cfg)
	def := app.NewEnsureDefaultWorkspaceHandler(st, clock, ids)
	createKey := app.NewCreateKeyHandler(st, st, def, clock, ids)
	createCampaign := app.NewCreateCampaignHandler(st, st, st, nil, def, clock, ids)
	record := delivery.NewRecordStatusEventHandler(st, clock, nil, obs)
	hooks := whatsapp.NewWebhooks(whatsapp.WebhookConfig{AppSecrets: []string{oldAppSecret, appSecret}, VerifyToken: verifyToken,
		PhoneNumberIDs: []string{phoneID}})
	applyHook := delivery.NewApplyWebhookEventHandler(hooks, hooks, st, st, clock, ids, nil, delivery.Config{}, obs)
	sb := sandbox.New(record, clock, sandbox.Config{}, nil)
	t.Cleanup(sb.Close)

	e := &apiEnv{store: st}
	mustKey := func(ws string, mode domain.KeyMode) domain.Token {
		k, err := createKey.Handle(ctx, app.CreateKey{Workspace: ws, Name: "test", Mode: mode})
		if err != nil {
			t.Fatal(err)
		}
		return k.Token
	}
	mustCampaign := func(ws string, header domain.HeaderFormat, activate bool) string {
		c, err := createCampaign.Handle(ctx, app.CreateCampaign{Workspace: ws, Name: "Welcome", TemplateName: "welcome",
			Language: "en_US", HeaderFormat: header, Body: "Hi {{1}}, your code is {{2}}",
			VariableLabels: []string{"First name", "Code"}, Activate: activate})
		if err != nil {
			t.Fatal(err)
		}
		return string(c.ID)
	}
	e.key = mustKey("", domain.ModeTest).Plaintext()
	e.liveKey = mustKey("", domain.ModeLive).Plaintext()
	e.active = mustCampaign("", domain.HeaderNone, true)
	e.paused = mustCampaign("", domain.HeaderNone, false)
	e.image = mustCampaign("", domain.HeaderImage, true)
	revoked, err := createKey.Handle(ctx, app.CreateKey{Name: "old", Mode: domain.ModeTest})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := app.NewRevokeKeyHandler(st, st, def, auth, clock).Handle(ctx, app.RevokeKey{KeyID: string(revoked.Key.ID)}); err != nil {
		t.Fatal(err)
	}
	e.revokedKey = revoked.Token.Plaintext()
	other, err := app.NewCreateWorkspaceHandler(st, clock, ids).Handle(ctx, app.CreateWorkspace{Name: "Other"})
	if err != nil {
		t.Fatal(err)
	}
	e.otherKey = mustKey(string(other.ID), domain.ModeTest).Plaintext()
	e.otherCampaign = mustCampaign(string(other.ID), domain.HeaderNone, true)

	e.uploads = &portsmock.MediaUploaderMock{
		NumberFunc: func() string { return phoneID },
		UploadMediaFunc: func(context.Context, domain.MediaFile, []byte) (string, error) {
			return "10" + strconv.Itoa(int(e.uploadCount.Add(1))), nil
		},
	}
	mediaDeps := app.MediaDeps{Tx: st, Media: st, Uploader: e.uploads, Clock: clock, IDs: ids, Obs: obs}
	deps := httpapi.Deps{
		Auth:         auth,
		SendCampaign: newSendCampaign(st, app.Config{}),
		MarkRead:     app.NewMarkReadHandler(st, delivery.Senders{Live: sb, Sandbox: sb}, obs),
		SendSession: app.NewSendSessionMessageHandler(app.SendSessionDeps{Tx: st, Messages: st, Idempotency: st, Media: st,
			Clock: clock, IDs: ids, Obs: obs, LiveSending: true}),
		UploadMedia:    app.NewUploadMediaHandler(mediaDeps),
		GetMedia:       app.NewGetMediaHandler(mediaDeps),
		ContactByPhone: app.NewGetContactByPhoneHandler(st, obs),
		SyncContact:    app.NewSyncContactHandler(st, clock, ids, nil, obs),
		GetMessage:     app.NewGetMessageHandler(st, obs),
		ListMessages:   app.NewListMessagesHandler(st, obs),
		Events:         newEventDeps(st),
		ListCampaigns:  app.NewListCampaignsHandler(st, st, obs),
		GetCampaign:    app.NewGetCampaignHandler(st, st, obs),
		CampaignStats:  app.NewGetCampaignStatsHandler(st, st, clock, obs),
		Conversation:   app.NewListConversationHandler(st, st, obs),
		Webhook:        delivery.NewReceiveWebhookHandler(hooks, st, applyHook, clock, ids, obs),
		WebhookVerify:  delivery.NewVerifyWebhookSubscriptionHandler(hooks, obs),
		Store:          st,

		CreateCampaign:       createCampaign,
		RemapCampaign:        app.NewRemapCampaignHandler(st, clock, obs),
		ChangeCampaignStatus: app.NewChangeCampaignStatusHandler(st, st, def, clock, nil),

		// No Cloud API: no synced templates, and only a test key's
		// submissions (reviewed by the sandbox) succeed.
		ListTemplates:  app.NewListTemplatesHandler(nil, st),
		SubmitTemplate: app.NewSubmitTemplateHandler(nil, st, clock, obs),
		DeleteTemplate: app.NewDeleteTemplateHandler(nil, st, clock, usecase.NewEvents(ids, httpapi.NewEventRenderer()), obs),

		ListPhoneNumbers: app.NewListPhoneNumbersHandler(st),
	}
	for _, o := range opts {
		o(&deps, st)
	}
	e.deps = deps
	e.h = httpapi.NewHandler(deps, unlimited, nil)
	return e
}

// newSendCampaign is the send-campaign handler over st, judging media by
// the URL's extension, of a server with the Cloud API configured: live keys
// may send (nothing is dispatched in these tests; TestLiveKeyWithoutWhatsApp
// covers a server without it).
func newSendCampaign(st porttest.Store, cfg app.Config) *app.SendCampaignMessageHandler {
	return app.NewSendCampaignMessageHandler(app.SendCampaignDeps{Tx: st, Campaigns: st, Contacts: st, Messages: st,
		Idempotency: st, SendCounts: st, Media: porttest.MediaByExtension(), Clock: system.Clock{}, IDs: system.NewIDs(),
		Config: cfg, Obs: usecase.NewObserver(nil), LiveSending: true})
}

// do sends a request and returns the response and its body, after checking
// the response against the OpenAPI document.
func (e *apiEnv) do(t *testing.T, method, url string, header map[string]string, body string) (*http.Response, string) {
	t.Helper()
	req := httptest.NewRequest(method, url, strings.NewReader(body))
	for k, v := range header {
		req.Header.Set(k, v)
	}
	return e.serve(t, req)
}

func (e *apiEnv) keyed(key string) map[string]string {
	return map[string]string{"X-API-KEY": key, "Content-Type": "application/json"}
}

var requestIDPattern = regexp.MustCompile(`"requestId":"req_[a-z0-9]+"`)

// normalize hides the request id, which differs on every request.
func normalize(body string) string {
	return requestIDPattern.ReplaceAllString(body, `"requestId":"REQ"`)
}

// problemBody is the exact body a problem should have.
func problemBody(status int, code, title, param, detail string) string {
	p := map[string]any{"type": "https://github.com/heraldhq/herald/blob/main/docs/errors.md#" + code,
		"title": title, "status": status, "detail": detail, "code": code, "requestId": "REQ"}
	if param != "" {
		p["param"] = param
	}
	return canonical(p)
}

func canonical(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	var m any
	json.Unmarshal(b, &m)
	b, _ = json.Marshal(m)
	return string(b)
}

func canonicalString(s string) string {
	var m any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		return s
	}
	return canonical(m)
}

// scenario is one API call and its exact expected answer.
type scenario struct {
	name       string
	method     string
	url        string
	header     map[string]string
	body       string
	wantStatus int
	wantBody   string // compared after normalize and canonical JSON
}

func (e *apiEnv) run(t *testing.T, scenarios []scenario) {
	t.Helper()
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			res, body := e.do(t, sc.method, sc.url, sc.header, sc.body)
			if res.StatusCode != sc.wantStatus {
				t.Fatalf("status %d, want %d; body %s", res.StatusCode, sc.wantStatus, body)
			}
			if diff := cmp.Diff(sc.wantBody, canonicalString(normalize(body))); diff != "" {
				t.Errorf("body (-want +got):\n%s", diff)
			}
		})
	}
}

func sendBody(phone, campaign string, vars ...string) string {
	return canonical(map[string]any{"phoneNumber": phone, "campaignId": campaign, "variables": vars})
}

const (
	phone       = "+14155552671"
	sendURL     = "/v1/messages/send-campaign"
	invalidKey  = "the API key is not valid: it is malformed, unknown, revoked or expired"
	problemCT   = "application/problem+json"
	badJSONText = "the body is not valid JSON"
)

// tokenWithSecret returns a well-formed token (valid checksum) with the
// identifier of tok and another secret.
func tokenWithSecret(tok string) string {
	body := tok[:24] + strings.Repeat("Z", 32)
	return body + base62CRC(body)
}

func base62CRC(s string) string {
	const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	n := crc32.ChecksumIEEE([]byte(s))
	out := make([]byte, 6)
	for i := 5; i >= 0; i-- {
		out[i] = alphabet[n%62]
		n /= 62
	}
	return string(out)
}

func TestAuthentication(t *testing.T) {
	t.Parallel()
	onEveryEngine(t, func(t *testing.T, e *apiEnv) {
		unauthorized := problemBody(401, "invalid_api_key", "Invalid API key", "", invalidKey)
		badChecksum := e.key[:61] + string("01"[map[bool]int{true: 1}[e.key[61] == '0']])
		unknown, _ := system.NewIDs().NewToken(domain.ModeTest)
		body := sendBody(phone, e.active, "Ana", "1234")
		withKey := func(k string) map[string]string { return e.keyed(k) }
		e.run(t, []scenario{
			{"missing key", "POST", sendURL, map[string]string{"Content-Type": "application/json"}, body, 401,
				problemBody(401, "missing_api_key", "Missing API key", "", "send your API key in the X-API-KEY header")},
			{"missing key wins over a bad body", "POST", sendURL, map[string]string{"Content-Type": "text/plain"}, "nope", 401,
				problemBody(401, "missing_api_key", "Missing API key", "", "send your API key in the X-API-KEY header")},
			{"malformed", "POST", sendURL, withKey("sk_test_abc"), body, 401, unauthorized},
			{"wrong prefix", "POST", sendURL, withKey("sk_prod_" + e.key[8:]), body, 401, unauthorized},
			{"bad checksum", "POST", sendURL, withKey(badChecksum), body, 401, unauthorized},
			{"unknown identifier", "POST", sendURL, withKey(unknown.Plaintext()), body, 401, unauthorized},
			{"revoked", "POST", sendURL, withKey(e.revokedKey), body, 401, unauthorized},
			{"wrong secret, valid checksum", "POST", sendURL, withKey(tokenWithSecret(e.key)), body, 401, unauthorized},
			{"invalid key wins over a bad body", "POST", sendURL, map[string]string{"X-API-KEY": "x", "Content-Type": "text/plain"}, "nope", 401, unauthorized},
		})
		res, _ := e.do(t, "GET", "/v1/campaigns", withKey("sk_test_abc"), "")
		if got := res.Header.Get("WWW-Authenticate"); got != `ApiKey header="X-API-KEY"` {
			t.Errorf("WWW-Authenticate = %q", got)
		}
		if got := res.Header.Get("Content-Type"); got != problemCT {
			t.Errorf("Content-Type = %q, want %s", got, problemCT)
		}
	})
}

func TestBadChecksumNeverReachesTheKeyRepository(t *testing.T) {
	t.Parallel()
	calls := 0
	e := newEnv(t, func(d *httpapi.Deps, st porttest.Store) {
		d.Auth = app.NewAuthenticateKeyHandler(countingKeys{st, &calls}, system.Clock{}, app.Config{})
	})
	tok := e.key[:56] + "000000"
	if tok == e.key {
		tok = e.key[:56] + "000001"
	}
	res, _ := e.do(t, "GET", "/v1/campaigns", e.keyed(tok), "")
	if res.StatusCode != 401 || calls != 0 {
		t.Fatalf("bad checksum: status %d after %d repository lookups, want 401 after none", res.StatusCode, calls)
	}
	res, _ = e.do(t, "GET", "/v1/campaigns", e.keyed(e.key), "")
	if res.StatusCode != 200 || calls != 1 {
		t.Fatalf("good key: status %d after %d lookups, want 200 after one", res.StatusCode, calls)
	}
}

// countingKeys counts authentication lookups.
type countingKeys struct {
	ports.KeyRepository
	calls *int
}

func (c countingKeys) GetKeyByIdentifier(ctx context.Context, id string) (domain.APIKey, error) {
	*c.calls++
	return c.KeyRepository.GetKeyByIdentifier(ctx, id)
}

func TestSendCampaignErrors(t *testing.T) {
	t.Parallel()
	onEveryEngine(t, func(t *testing.T, e *apiEnv) {
		k := e.keyed(e.key)
		bad := func(param, detail string) string {
			return problemBody(400, "invalid_json", "Invalid JSON", param, detail)
		}
		unprocessable := func(code, title, param, detail string) string {
			return problemBody(422, code, title, param, detail)
		}
		valid := sendBody(phone, e.active, "Ana", "1234")
		notFound := problemBody(404, "campaign_not_found", "Campaign not found", "campaignId", "no campaign with this id")
		e.run(t, []scenario{
			{"not json content type", "POST", sendURL, map[string]string{"X-API-KEY": e.key, "Content-Type": "text/plain"}, valid, 415,
				problemBody(415, "unsupported_media_type", "Unsupported media type", "", "send the body as application/json")},
			{"no content type", "POST", sendURL, map[string]string{"X-API-KEY": e.key}, valid, 415,
				problemBody(415, "unsupported_media_type", "Unsupported media type", "", "send the body as application/json")},
			{"over 64 KiB", "POST", sendURL, k, valid + strings.Repeat(" ", 65537-len(valid)), 413,
				problemBody(413, "payload_too_large", "Payload too large", "", "the body is larger than 64 KiB")},
			{"not json", "POST", sendURL, k, "hello", 400, bad("", badJSONText)},
			{"not an object", "POST", sendURL, k, `["+14155552671"]`, 400, bad("", "the body must be a JSON object")},
			{"wrong type", "POST", sendURL, k, `{"phoneNumber":14155552671,"campaignId":"` + e.active + `"}`, 400, bad("phoneNumber", "phoneNumber must be a string")},
			{"unknown field", "POST", sendURL, k, `{"phoneNumber":"+14155552671","campaignId":"` + e.active + `","vars":[]}`, 400, bad("vars", "unknown field vars")},
			{"case variant name", "POST", sendURL, k, `{"PhoneNumber":"+14155552671","campaignId":"` + e.active + `"}`, 400, bad("PhoneNumber", "field names are case-sensitive: PhoneNumber should be phoneNumber")},
			{"duplicate name", "POST", sendURL, k, `{"phoneNumber":"+14155552671","phoneNumber":"+14155552672","campaignId":"` + e.active + `"}`, 400, bad("phoneNumber", "field phoneNumber appears more than once")},
			{"trailing data", "POST", sendURL, k, valid + ` {}`, 400, bad("", "the body has data after the JSON object")},
			{"missing phone", "POST", sendURL, k, `{"campaignId":"` + e.active + `"}`, 400, problemBody(400, "missing_parameter", "Missing parameter", "phoneNumber", "phoneNumber is required")},
			{"null phone", "POST", sendURL, k, `{"phoneNumber":null,"campaignId":"` + e.active + `"}`, 400, problemBody(400, "missing_parameter", "Missing parameter", "phoneNumber", "phoneNumber is required")},
			{"missing campaign", "POST", sendURL, k, `{"phoneNumber":"+14155552671"}`, 400, problemBody(400, "missing_parameter", "Missing parameter", "campaignId", "campaignId is required")},
			{"phone without plus", "POST", sendURL, k, sendBody("14155552671", e.active, "Ana", "1234"), 422,
				unprocessable("invalid_phone_number", "Invalid phone number", "phoneNumber", `the phone number must be in E.164 form, starting with "+" and the country code`)},
			{"phone too short for its country", "POST", sendURL, k, sendBody("+14155526", e.active, "Ana", "1234"), 422,
				unprocessable("invalid_phone_number", "Invalid phone number", "phoneNumber", "the number is too short for country code +1")},
			{"phone checked before campaign", "POST", sendURL, k, sendBody("nope", "cmp_nope"), 422,
				unprocessable("invalid_phone_number", "Invalid phone number", "phoneNumber", `the phone number must be in E.164 form, starting with "+" and the country code`)},
			{"campaign absent", "POST", sendURL, k, sendBody(phone, "cmp_01m80000000000000000000000", "Ana", "1234"), 404, notFound},
			{"campaign id malformed", "POST", sendURL, k, sendBody(phone, "welcome", "Ana", "1234"), 404, notFound},
			{"campaign of another workspace", "POST", sendURL, k, sendBody(phone, e.otherCampaign, "Ana", "1234"), 404, notFound},
			{"campaign paused", "POST", sendURL, k, sendBody(phone, e.paused, "Ana"), 409,
				problemBody(409, "campaign_not_active", "Campaign not active", "campaignId", "the campaign is draft; only active campaigns send")},
			{"too few variables", "POST", sendURL, k, sendBody(phone, e.active, "Ana"), 422,
				unprocessable("variables_mismatch", "Variables mismatch", "variables", "the template has 2 placeholders but 1 variable was given")},
			{"no variables", "POST", sendURL, k, `{"phoneNumber":"+14155552671","campaignId":"` + e.active + `"}`, 422,
				unprocessable("variables_mismatch", "Variables mismatch", "variables", "the template has 2 placeholders but 0 variables were given")},
			{"empty variable", "POST", sendURL, k, sendBody(phone, e.active, "Ana", " "), 422,
				unprocessable("variables_mismatch", "Variables mismatch", "variables[1]", "variables[1] fills the body's {{2}} (slot body.2): is empty")},
			{"variable too long", "POST", sendURL, k, sendBody(phone, e.active, strings.Repeat("a", 1025), "1"), 422,
				unprocessable("variables_mismatch", "Variables mismatch", "variables[0]", "variables[0] fills the body's {{1}} (slot body.1): is longer than 1024 characters")},
			{"variable with newline", "POST", sendURL, k, sendBody(phone, e.active, "Ana\nB", "1"), 422,
				unprocessable("variables_mismatch", "Variables mismatch", "variables[0]", "variables[0] fills the body's {{1}} (slot body.1): contains a newline or tab, which WhatsApp refuses in parameters")},
			{"media header required", "POST", sendURL, k, sendBody(phone, e.image, "Ana", "1234"), 422,
				unprocessable("media_header_required", "Media header required", "mediaHeaderUrl", "the template has a image header; give its URL in mediaHeaderUrl")},
			{"media header not allowed", "POST", sendURL, k, `{"phoneNumber":"+14155552671","campaignId":"` + e.active + `","variables":["Ana","1"],"mediaHeaderUrl":"https://cdn.example.com/a.jpg"}`, 422,
				unprocessable("media_header_not_allowed", "Media header not allowed", "mediaHeaderUrl", "the template has no media header; leave mediaHeaderUrl out")},
			{"media url http", "POST", sendURL, k, `{"phoneNumber":"+14155552671","campaignId":"` + e.image + `","variables":["Ana","1"],"mediaHeaderUrl":"http://cdn.example.com/a.jpg"}`, 422,
				unprocessable("invalid_media_url", "Invalid media URL", "mediaHeaderUrl", "the media header URL must use https")},
			{"media url with credentials", "POST", sendURL, k, `{"phoneNumber":"+14155552671","campaignId":"` + e.image + `","variables":["Ana","1"],"mediaHeaderUrl":"https://u:p@cdn.example.com/a.jpg"}`, 422,
				unprocessable("invalid_media_url", "Invalid media URL", "mediaHeaderUrl", "the media header URL must not carry credentials")},
			{"media url loopback", "POST", sendURL, k, `{"phoneNumber":"+14155552671","campaignId":"` + e.image + `","variables":["Ana","1"],"mediaHeaderUrl":"https://127.0.0.1/a.jpg"}`, 422,
				unprocessable("invalid_media_url", "Invalid media URL", "mediaHeaderUrl", "the media header URL must point to a public address")},
			{"dryRun not a boolean", "POST", sendURL + "?dryRun=yes", k, valid, 422,
				unprocessable("invalid_parameter", "Invalid parameter", "dryRun", "dryRun must be true or false")},
		})
	})
}

func TestSendCampaignAcceptsExactly64KiB(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	valid := sendBody(phone, e.active, "Ana", "1234")
	res, body := e.do(t, "POST", sendURL, e.keyed(e.key), valid+strings.Repeat(" ", 65536-len(valid)))
	if res.StatusCode != 202 {
		t.Fatalf("a body of exactly 64 KiB: status %d, want 202; %s", res.StatusCode, body)
	}
}

func TestSendCampaignToOptedOutContact(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	k := e.keyed(e.key)
	if res, body := e.do(t, "POST", "/v1/contacts/sync", k, `{"phoneNumber":"+14155552671","optedOut":true}`); res.StatusCode != 201 {
		t.Fatalf("sync: %d %s", res.StatusCode, body)
	}
	e.run(t, []scenario{
		{"send refused", "POST", sendURL, k, sendBody(phone, e.active, "Ana", "1234"), 409,
			problemBody(409, "contact_opted_out", "Contact opted out", "phoneNumber", "the recipient opted out of messages")},
		{"dry run refused too", "POST", sendURL + "?dryRun=true", k, sendBody(phone, e.active, "Ana", "1234"), 409,
			problemBody(409, "contact_opted_out", "Contact opted out", "phoneNumber", "the recipient opted out of messages")},
	})
}
