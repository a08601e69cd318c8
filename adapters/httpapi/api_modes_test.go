package httpapi_test

import (
	"context"
	"testing"

	"github.com/heraldhq/herald/adapters/httpapi"
	"github.com/heraldhq/herald/adapters/system"
	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports/porttest"
)

// notConfigured is the exact answer to a live key on a server without
// Meta's Cloud API.
var notConfigured = problemBody(503, "whatsapp_not_configured", "WhatsApp not configured", "",
	"live keys send only through WhatsApp, and this server has no WhatsApp Cloud API number configured: "+
		"set HERALD_WHATSAPP_ACCESS_TOKEN and HERALD_WHATSAPP_PHONE_NUMBER_ID on the server, or send with an sk_test_ key "+
		"to use the sandbox; nothing was stored")

// liveKey makes a live key in the workspace of the environment's active
// campaign.
func liveKey(t *testing.T, e *apiEnv) string {
	t.Helper()
	clock, ids := system.Clock{}, system.NewIDs()
	k, err := app.NewCreateKeyHandler(e.store, e.store, app.NewEnsureDefaultWorkspaceHandler(e.store, clock, ids), clock, ids).
		Handle(context.Background(), app.CreateKey{Workspace: string(principalWorkspace(t, e)), Name: "live", Mode: domain.ModeLive})
	if err != nil {
		t.Fatal(err)
	}
	return k.Token.Plaintext()
}

// TestLiveKeyWithoutWhatsApp: a live message only ever goes to Meta. On a
// server without the Cloud API a live key's send, dry run included, is
// 503 whatsapp_not_configured and stores nothing, while test keys still
// send in the sandbox; the campaign's statistics say which mode sent what.
// On every engine.
func TestLiveKeyWithoutWhatsApp(t *testing.T) {
	t.Parallel()
	onEveryEngine(t, func(t *testing.T, e *apiEnv) {
		live := liveKey(t, e)
		e.run(t, []scenario{
			{"live send", "POST", sendURL, e.keyed(live), sendBody(phone, e.active, "Ana", "1234"), 503, notConfigured},
			{"live dry run", "POST", sendURL + "?dryRun=true", e.keyed(live), sendBody(phone, e.active, "Ana", "1234"), 503, notConfigured},
			{"live send with a bad number", "POST", sendURL, e.keyed(live), sendBody("+1", e.active, "Ana", "1234"), 503, notConfigured},
			{"nothing stored for the live key", "GET", "/v1/contacts/by-phone/" + phone, e.keyed(live), "", 404,
				problemBody(404, "contact_not_found", "Contact not found", "", "no contact with this phone number or id")},
		})
		res, body := e.do(t, "POST", sendURL, e.keyed(e.key), sendBody(phone, e.active, "Ana", "1234"))
		if res.StatusCode != 202 {
			t.Fatalf("test key: %d %s, want 202", res.StatusCode, body)
		}
		if res.Header.Get("Retry-After") != "" {
			t.Errorf("a 202 carries Retry-After")
		}
		res, _ = e.do(t, "POST", sendURL, e.keyed(live), sendBody(phone, e.active, "Ana", "1234"))
		if res.Header.Get("Retry-After") != "" {
			t.Errorf("whatsapp_not_configured carries Retry-After %q: retrying cannot help until the server is configured", res.Header.Get("Retry-After"))
		}
		wantModes(t, e, 0, 1)
	})
}

// TestLiveKeyWithWhatsApp: with the Cloud API configured a live key's send
// is accepted, and counted as live.
func TestLiveKeyWithWhatsApp(t *testing.T) {
	t.Parallel()
	onEveryEngine(t, func(t *testing.T, e *apiEnv) {
		live := liveKey(t, e)
		st := e.store
		e.deps.SendCampaign = app.NewSendCampaignMessageHandler(app.SendCampaignDeps{Tx: st, Campaigns: st, Contacts: st,
			Messages: st, Idempotency: st, SendCounts: st, Media: porttest.MediaByExtension(), Clock: system.Clock{},
			IDs: system.NewIDs(), Obs: app.NewObserver(nil), LiveSending: true})
		e.h = httpapi.NewHandler(e.deps, unlimited, nil)
		for _, key := range []string{live, e.key} {
			if res, body := e.do(t, "POST", sendURL, e.keyed(key), sendBody(phone, e.active, "Ana", "1234")); res.StatusCode != 202 {
				t.Fatalf("send: %d %s, want 202", res.StatusCode, body)
			}
		}
		wantModes(t, e, 1, 1)
	})
}

// wantModes checks the active campaign's live and test totals, in its
// statistics and in the campaign itself.
func wantModes(t *testing.T, e *apiEnv, live, test int) {
	t.Helper()
	type modes struct {
		ByMode struct{ Live, Test struct{ Total int } }
		Total  int
	}
	for _, path := range []string{"/v1/campaigns/" + e.active + "/stats", "/v1/campaigns/" + e.active} {
		res, body := e.do(t, "GET", path, e.keyed(e.key), "")
		var got modes
		if path == "/v1/campaigns/"+e.active {
			got = decode[struct{ Stats modes }](t, body).Stats
		} else {
			got = decode[modes](t, body)
		}
		if res.StatusCode != 200 || got.ByMode.Live.Total != live || got.ByMode.Test.Total != test || got.Total != live+test {
			t.Errorf("%s: %d %s; want %d live and %d test", path, res.StatusCode, body, live, test)
		}
	}
}
