package httpapi_test

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/adapters/httpapi"
	"github.com/heraldhq/herald/adapters/system"
	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports/porttest"
	"github.com/heraldhq/herald/test/fakemeta"
)

// notConfigured is the exact answer to a live key on a server without
// Meta's Cloud API.
var notConfigured = problemBody(503, "whatsapp_not_configured", "WhatsApp not configured", "",
	"live keys send only through WhatsApp, and this server has no WhatsApp Cloud API number configured: "+
		"set HERALD_WHATSAPP_ACCESS_TOKEN and HERALD_WHATSAPP_PHONE_NUMBER_ID on the server, or send with an sk_test_ key "+
		"to use the sandbox; nothing was stored")

// TestLiveKeyWithoutWhatsApp: a live message only ever goes to Meta. On a
// server without the Cloud API a live key's send, dry run included, is
// 503 whatsapp_not_configured and stores nothing, while test keys still
// send in the sandbox; the campaign's statistics, each key reading its own
// mode's, say which mode sent what. On every engine.
func TestLiveKeyWithoutWhatsApp(t *testing.T) {
	t.Parallel()
	onEveryEngine(t, func(t *testing.T, e *apiEnv) {
		st := e.store
		e.deps.SendCampaign = app.NewSendCampaignMessageHandler(app.SendCampaignDeps{Tx: st, Campaigns: st, Contacts: st,
			Messages: st, Idempotency: st, SendCounts: st, Media: porttest.MediaByExtension(), Clock: system.Clock{},
			IDs: system.NewIDs(), Obs: usecase.NewObserver(nil), LiveSending: false})
		e.h = httpapi.NewHandler(e.deps, unlimited, nil)
		live := e.liveKey
		noContact := problemBody(404, "contact_not_found", "Contact not found", "", "no contact with this phone number or id")
		e.run(t, []scenario{
			{"live send", "POST", sendURL, e.keyed(live), sendBody(phone, e.active, "Ana", "1234"), 503, notConfigured},
			{"live dry run", "POST", sendURL + "?dryRun=true", e.keyed(live), sendBody(phone, e.active, "Ana", "1234"), 503, notConfigured},
			{"live send with a bad number", "POST", sendURL, e.keyed(live), sendBody("+1", e.active, "Ana", "1234"), 503, notConfigured},
			{"nothing stored for the live key", "GET", "/v1/contacts/by-phone/" + phone, e.keyed(live), "", 404, noContact},
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
		e.run(t, []scenario{
			{"the test send's contact is not the live key's", "GET", "/v1/contacts/by-phone/" + phone, e.keyed(live), "", 404, noContact},
		})
		wantModes(t, e, 0, 1)
	})
}

// TestLiveKeyWithWhatsApp: with the Cloud API configured (as the scenario
// tables' server is) a live key's send is accepted, and counted as live.
func TestLiveKeyWithWhatsApp(t *testing.T) {
	t.Parallel()
	onEveryEngine(t, func(t *testing.T, e *apiEnv) {
		for _, key := range []string{e.liveKey, e.key, e.key} {
			if res, body := e.do(t, "POST", sendURL, e.keyed(key), sendBody(phone, e.active, "Ana", "1234")); res.StatusCode != 202 {
				t.Fatalf("send: %d %s, want 202", res.StatusCode, body)
			}
		}
		wantModes(t, e, 1, 2)
	})
}

// wantModes checks the active campaign's totals, in its statistics and in
// the campaign itself, as each key reads them: the live key counts the
// live messages only and the test key the test ones (decision 0015), and
// neither is told the other mode's counts (no byMode).
func wantModes(t *testing.T, e *apiEnv, live, test int) {
	t.Helper()
	type stats struct{ Total int }
	for _, c := range []struct {
		name, key string
		want      int
	}{{"live key", e.liveKey, live}, {"test key", e.key, test}} {
		for _, path := range []string{"/v1/campaigns/" + e.active + "/stats", "/v1/campaigns/" + e.active} {
			res, body := e.do(t, "GET", path, e.keyed(c.key), "")
			var got stats
			if path == "/v1/campaigns/"+e.active {
				got = decode[struct{ Stats stats }](t, body).Stats
			} else {
				got = decode[stats](t, body)
			}
			if res.StatusCode != 200 || got.Total != c.want || strings.Contains(body, "byMode") {
				t.Errorf("%s, %s: %d %s; want %d messages, no split by mode", c.name, path, res.StatusCode, body, c.want)
			}
		}
	}
}

// TestIdempotencyKeyScopedByMode: a live send that reuses a test send's
// Idempotency-Key and body is sent (202, a new live message), never
// answered with the test message, which stayed in the sandbox. Each mode
// then replays its own first answer, byte for byte.
func TestIdempotencyKeyScopedByMode(t *testing.T) {
	t.Parallel()
	onEveryEngine(t, func(t *testing.T, e *apiEnv) {
		body := sendBody(phone, e.active, "Ana", "1234")
		keyed := func(key string) map[string]string {
			h := maps.Clone(e.keyed(key))
			h["Idempotency-Key"] = "order-7"
			return h
		}
		send := func(key string) (id, raw string, replayed bool) {
			t.Helper()
			res, raw := e.do(t, "POST", sendURL, keyed(key), body)
			if res.StatusCode != 202 {
				t.Fatalf("send: %d %s", res.StatusCode, raw)
			}
			return decode[map[string]string](t, raw)["id"], raw, res.Header.Get("Idempotent-Replayed") == "true"
		}
		testID, testRaw, replayed := send(e.key)
		if replayed {
			t.Fatal("the first test send was answered as a replay")
		}
		liveID, liveRaw, replayed := send(e.liveKey)
		if replayed || liveID == testID {
			t.Fatalf("the live send with the test send's key and body: %s (replayed %v), want a new message, not %s", liveRaw, replayed, testID)
		}
		if _, got := e.do(t, "GET", "/v1/messages/"+liveID, e.keyed(e.liveKey), ""); decode[map[string]any](t, got)["mode"] != "live" {
			t.Errorf("the live send's message: %s, want mode live", got)
		}
		for _, c := range []struct{ key, id, raw string }{{e.key, testID, testRaw}, {e.liveKey, liveID, liveRaw}} {
			id, raw, replayed := send(c.key)
			if !replayed || id != c.id || raw != c.raw {
				t.Errorf("retry: %s (replayed %v), want the first answer again: %s", raw, replayed, c.raw)
			}
		}
	})
}

// The mode matrix (docs/decisions/0015-test-mode.md): a key sees only its
// own mode's traffic. A message, a contact or a thread of the other mode
// answers exactly like a missing one; a number has a contact per mode, so
// each key finds its own, with nothing of the other's in it; lists and
// statistics count the key's mode only; and nothing a test key does changes
// what the live key sees. Every keyed route is a row;
// TestModeMatrixCoversEveryKeyedRoute keeps the rows in step with routes.go.

const (
	modeShared   = "+14155552671" // a live and a test contact
	modeLiveOnly = "+14155552672" // a live contact only
	modeTestOnly = "+14155552673" // a test contact only
)

// modeIDs are one mode's objects: its key, a message it sent and the
// contact of the shared number.
type modeIDs struct{ key, message, contact, endpoint, event string }

type modeFixture struct {
	e          *apiEnv
	live, test modeIDs
	missing    modeIDs // well-formed ids nobody has
}

type modeRow struct {
	name  string
	route string
	check func(t *testing.T, f *modeFixture)
}

// liveState is what the live key sees of the workspace: the shared
// number's contact and thread, the live-only contact, the campaign's
// counts. Nothing a test key does may change it.
func (f *modeFixture) liveState(t *testing.T) string {
	t.Helper()
	k := f.e.keyed(f.live.key)
	var s strings.Builder
	for _, u := range []string{
		"/v1/contacts/by-phone/" + modeShared,
		"/v1/contacts/by-phone/" + modeLiveOnly,
		"/v1/contacts/by-phone/" + modeTestOnly,
		"/v1/contacts/" + f.live.contact + "/conversation?limit=100",
		"/v1/messages/" + f.live.message,
		"/v1/webhook-endpoints/" + f.live.endpoint,
		"/v1/events/" + f.live.event,
	} {
		res, body := f.e.do(t, "GET", u, k, "")
		fmt.Fprintf(&s, "%s → %d %s\n", u, res.StatusCode, normalize(body))
	}
	_, body := f.e.do(t, "GET", "/v1/campaigns/"+f.e.active+"/stats", k, "")
	st := decode[struct {
		Total  int
		Counts map[string]int
	}](t, body)
	fmt.Fprintf(&s, "stats → %d %v", st.Total, st.Counts)
	return s.String()
}

// asTest runs fn, a test key's requests, and fails the test if the live
// key's view moved.
func (f *modeFixture) asTest(t *testing.T, fn func()) {
	t.Helper()
	before := f.liveState(t)
	fn()
	if after := f.liveState(t); after != before {
		t.Errorf("a test key's requests changed what the live key sees:\nbefore %s\nafter  %s", before, after)
	}
}

// otherMode returns the viewer's and the owner's ids for each direction:
// the test key looking at live objects, and the live key at test ones.
func (f *modeFixture) directions() []struct {
	name          string
	viewer, owner modeIDs
} {
	return []struct {
		name          string
		viewer, owner modeIDs
	}{
		{"test key, live object", f.test, f.live},
		{"live key, test object", f.live, f.test},
	}
}

// modeLookupRow: the other mode's object answers like a missing one, and
// the owner's key gets it.
func modeLookupRow(name, route, code string, url func(x modeIDs) string) modeRow {
	return modeRow{name: name, route: route, check: func(t *testing.T, f *modeFixture) {
		for _, d := range f.directions() {
			check := func() {
				theirs, theirsRaw := f.e.do(t, "GET", url(d.owner), f.e.keyed(d.viewer.key), "")
				missing, missingRaw := f.e.do(t, "GET", url(f.missing), f.e.keyed(d.viewer.key), "")
				assertLooksMissing(t, code, d.name+" "+url(d.owner), theirs, theirsRaw, "missing "+url(f.missing), missing, missingRaw)
			}
			if d.viewer == f.test {
				f.asTest(t, check)
			} else {
				check()
			}
			if res, body := f.e.do(t, "GET", url(d.owner), f.e.keyed(d.owner.key), ""); res.StatusCode != 200 {
				t.Errorf("the owner's key: GET %s → %d %s", url(d.owner), res.StatusCode, body)
			}
		}
	}}
}

var modeMatrix = []modeRow{
	modeLookupRow("message", "GET /v1/messages/{id}", "message_not_found",
		func(x modeIDs) string { return "/v1/messages/" + x.message }),
	modeLookupRow("conversation", "GET /v1/contacts/{id}/conversation", "contact_not_found",
		func(x modeIDs) string { return "/v1/contacts/" + x.contact + "/conversation" }),
	{"contact by phone", "GET /v1/contacts/by-phone/{phone}", checkModeContactByPhone},
	{"own conversation holds its mode's entries only", "GET /v1/contacts/{id}/conversation", checkModeThreads},
	{"campaign", "GET /v1/campaigns/{id}", checkModeCampaign},
	{"campaign stats", "GET /v1/campaigns/{id}/stats", checkModeCampaign},
	{"campaign list", "GET /v1/campaigns", checkModeCampaign},
	{"send", "POST /v1/messages/send-campaign", checkModeSend},
	{"session message to the other mode's contact", "POST /v1/messages", checkModeSession},
	{"mark the other mode's message read", "POST /v1/messages/{id}/read", checkModeMarkRead},
	{"upload media", "POST /v1/media", checkModeMedia},
	{"media of the other mode", "GET /v1/media/{id}", checkModeMedia},
	{"media content of the other mode", "GET /v1/media/{id}/content", checkModeMedia},
	{"sync", "POST /v1/contacts/sync", checkModeSync},
	{"create campaign", "POST /v1/campaigns", checkModeCampaignWrites},
	{"edit campaign", "PATCH /v1/campaigns/{id}", checkModeCampaignWrites},
	{"pause campaign", "POST /v1/campaigns/{id}/pause", checkModeCampaignWrites},
	{"activate campaign", "POST /v1/campaigns/{id}/activate", checkModeCampaignWrites},
	{"list templates", "GET /v1/templates", checkModeTemplates},
	{"list phone numbers", "GET /v1/phone-numbers", checkModePhoneNumbers},
	{"submit a template", "POST /v1/templates", checkModeTemplates},
	{"delete a template", "DELETE /v1/templates/{name}", checkModeTemplates},
	modeActionRow("webhook endpoint", "GET /v1/webhook-endpoints/{id}", "GET",
		func(x modeIDs) string { return "/v1/webhook-endpoints/" + x.endpoint }, "", 200, "webhook_endpoint_not_found"),
	modeActionRow("change a webhook endpoint", "PATCH /v1/webhook-endpoints/{id}", "PATCH",
		func(x modeIDs) string { return "/v1/webhook-endpoints/" + x.endpoint }, `{"description":"changed","status":"disabled"}`, 200, "webhook_endpoint_not_found"),
	modeActionRow("rotate a webhook endpoint's secret", "POST /v1/webhook-endpoints/{id}/rotate-secret", "POST",
		func(x modeIDs) string { return "/v1/webhook-endpoints/" + x.endpoint + "/rotate-secret" }, "", 200, "webhook_endpoint_not_found"),
	modeActionRow("test a webhook endpoint", "POST /v1/webhook-endpoints/{id}/test", "POST",
		func(x modeIDs) string { return "/v1/webhook-endpoints/" + x.endpoint + "/test" }, "", 202, "webhook_endpoint_not_found"),
	modeActionRow("recover a webhook endpoint", "POST /v1/webhook-endpoints/{id}/recover", "POST",
		func(x modeIDs) string { return "/v1/webhook-endpoints/" + x.endpoint + "/recover" }, `{"since":"2020-01-01T00:00:00Z"}`, 202, "webhook_endpoint_not_found"),
	modeActionRow("event", "GET /v1/events/{id}", "GET",
		func(x modeIDs) string { return "/v1/events/" + x.event }, "", 200, "event_not_found"),
	modeActionRow("redeliver an event", "POST /v1/events/{id}/redeliver", "POST",
		func(x modeIDs) string { return "/v1/events/" + x.event + "/redeliver" }, "", 202, "event_not_found"),
	{"create a webhook endpoint", "POST /v1/webhook-endpoints", checkModeLists},
	{"list webhook endpoints", "GET /v1/webhook-endpoints", checkModeLists},
	{"list events", "GET /v1/events", checkModeLists},
	{"list messages", "GET /v1/messages", checkModeLists},
	// Last: the endpoints are gone after it.
	modeActionRow("delete a webhook endpoint", "DELETE /v1/webhook-endpoints/{id}", "DELETE",
		func(x modeIDs) string { return "/v1/webhook-endpoints/" + x.endpoint }, "", 204, "webhook_endpoint_not_found"),
}

// checkModeCampaignWrites: a campaign is the workspace's, not a mode's: one
// a test key creates, renames, pauses and activates is the one the live
// key sees, and the other way round.
func checkModeCampaignWrites(t *testing.T, f *modeFixture) {
	for _, c := range []struct{ writer, reader modeIDs }{{f.test, f.live}, {f.live, f.test}} {
		res, body := f.e.do(t, "POST", "/v1/campaigns", f.e.keyed(c.writer.key),
			`{"name":"Modes","templateName":"modes","language":"en","body":"Hi {{1}}"}`)
		if res.StatusCode != 201 {
			t.Fatalf("create: %d %s", res.StatusCode, body)
		}
		id := decode[struct{ ID string }](t, body).ID
		steps := []struct{ method, url, body, status string }{
			{"PATCH", "/v1/campaigns/" + id, `{"name":"Renamed"}`, "draft"},
			{"POST", "/v1/campaigns/" + id + "/activate", "", "active"},
			{"POST", "/v1/campaigns/" + id + "/pause", "", "paused"},
		}
		for _, st := range steps {
			if res, body := f.e.do(t, st.method, st.url, f.e.keyed(c.writer.key), st.body); res.StatusCode != 200 {
				t.Fatalf("%s %s: %d %s", st.method, st.url, res.StatusCode, body)
			}
			_, got := f.e.do(t, "GET", "/v1/campaigns/"+id, f.e.keyed(c.reader.key), "")
			if v := decode[struct{ Name, Status string }](t, got); v.Name != "Renamed" || v.Status != st.status {
				t.Errorf("after %s %s the other mode sees %+v, want Renamed and %s", st.method, st.url, v, st.status)
			}
		}
	}
}

// modeActionRow: a request about the other mode's endpoint or event
// answers exactly like one about a missing id, and changes nothing the
// live key sees; the owner's key gets own.
func modeActionRow(name, route, method string, url func(x modeIDs) string, body string, own int, code string) modeRow {
	return modeRow{name: name, route: route, check: func(t *testing.T, f *modeFixture) {
		for _, d := range f.directions() {
			check := func() {
				theirs, theirsRaw := f.e.do(t, method, url(d.owner), f.e.keyed(d.viewer.key), body)
				missing, missingRaw := f.e.do(t, method, url(f.missing), f.e.keyed(d.viewer.key), body)
				assertLooksMissing(t, code, d.name+" "+method+" "+url(d.owner), theirs, theirsRaw, "missing "+url(f.missing), missing, missingRaw)
			}
			if d.viewer == f.test {
				f.asTest(t, check)
			} else {
				check()
			}
		}
		for _, x := range []modeIDs{f.test, f.live} {
			if res, got := f.e.do(t, method, url(x), f.e.keyed(x.key), body); res.StatusCode != own {
				t.Errorf("the owner's key: %s %s → %d %s, want %d", method, url(x), res.StatusCode, got, own)
			}
		}
	}}
}

// checkModeLists: each key's lists of endpoints, events and messages hold
// its own mode's only; an endpoint a test key makes is a test endpoint,
// which the live key never sees.
func checkModeLists(t *testing.T, f *modeFixture) {
	var made endpointJSON
	f.asTest(t, func() {
		made = f.e.createEndpoint(t, f.test.key, `{"url":"https://hooks.example.com/t2","events":["*"]}`)
	})
	if made.Mode != "test" {
		t.Errorf("a test key made an endpoint of mode %q", made.Mode)
	}
	sequence(t, f.e.store)
	for _, c := range []struct {
		ids, other modeIDs
		extra      []string
	}{{f.test, f.live, []string{made.ID}}, {f.live, f.test, nil}} {
		for _, u := range []string{"/v1/webhook-endpoints", "/v1/events?limit=1000", "/v1/messages?limit=100"} {
			_, raw := f.e.do(t, "GET", u, f.e.keyed(c.ids.key), "")
			for _, id := range []string{c.other.endpoint, c.other.event, c.other.message} {
				if strings.Contains(raw, id) {
					t.Errorf("%s's %s shows the other mode's %s", c.ids.key[:8], u, id)
				}
			}
			if c.ids == f.live && strings.Contains(raw, made.ID) {
				t.Errorf("the live key's %s shows the test key's new endpoint", u)
			}
			own := map[string]string{"/v1/webhook-endpoints": c.ids.endpoint, "/v1/events?limit=1000": c.ids.event,
				"/v1/messages?limit=100": c.ids.message}[u]
			if !strings.Contains(raw, own) {
				t.Errorf("%s's %s lacks its own %s: %s", c.ids.key[:8], u, own, raw)
			}
		}
	}
}

// checkModeContactByPhone: a number only the other mode knows answers like
// a number nobody has; the shared number gives each key its own contact,
// with nothing of the other's.
func checkModeContactByPhone(t *testing.T, f *modeFixture) {
	for _, c := range []struct {
		viewer       modeIDs
		theirs, mine string
	}{{f.test, modeLiveOnly, modeTestOnly}, {f.live, modeTestOnly, modeLiveOnly}} {
		check := func() {
			theirs, theirsRaw := f.e.do(t, "GET", "/v1/contacts/by-phone/"+c.theirs, f.e.keyed(c.viewer.key), "")
			missing, missingRaw := f.e.do(t, "GET", "/v1/contacts/by-phone/"+isoPhoneNobody, f.e.keyed(c.viewer.key), "")
			assertLooksMissing(t, "contact_not_found", c.theirs, theirs, theirsRaw, isoPhoneNobody, missing, missingRaw)
			if res, body := f.e.do(t, "GET", "/v1/contacts/by-phone/"+c.mine, f.e.keyed(c.viewer.key), ""); res.StatusCode != 200 {
				t.Errorf("own number %s: %d %s", c.mine, res.StatusCode, body)
			}
		}
		if c.viewer == f.test {
			f.asTest(t, check)
		} else {
			check()
		}
	}
	_, testBody := f.e.do(t, "GET", "/v1/contacts/by-phone/"+modeShared, f.e.keyed(f.test.key), "")
	_, liveBody := f.e.do(t, "GET", "/v1/contacts/by-phone/"+modeShared, f.e.keyed(f.live.key), "")
	testC, liveC := decode[map[string]any](t, testBody), decode[map[string]any](t, liveBody)
	if testC["id"] != f.test.contact || testC["name"] != "Test Ana" || testC["waId"] != nil || testC["profileName"] != nil ||
		testC["optedOut"] != false || fmt.Sprint(testC["attributes"]) != "map[]" {
		t.Errorf("the test key's contact for the shared number: %s", testBody)
	}
	for _, live := range []string{f.live.contact, "Ana Live", "Ana Lima", "gold", `"waId":"`} {
		if strings.Contains(testBody, live) {
			t.Errorf("the test key's contact shows live data %q: %s", live, testBody)
		}
	}
	if liveC["id"] != f.live.contact || liveC["name"] != "Ana Live" || liveC["profileName"] != "Ana Lima" || liveC["optedOut"] != true {
		t.Errorf("the live key's contact for the shared number: %s", liveBody)
	}
}

// checkModeThreads: each key's thread of the shared number holds its own
// mode's entries: the test key's its test message, the live key's its live
// message and what the person wrote.
func checkModeThreads(t *testing.T, f *modeFixture) {
	for _, c := range []struct {
		ids  modeIDs
		want string
	}{
		{f.test, "[outbound " + f.test.message + "]"},
		{f.live, "[inbound  inbound  outbound " + f.live.message + "]"},
	} {
		_, body := f.e.do(t, "GET", "/v1/contacts/"+c.ids.contact+"/conversation?limit=100", f.e.keyed(c.ids.key), "")
		var got []string
		for _, en := range decode[struct {
			Data []struct {
				Direction string
				MessageID *string
			}
		}](t, body).Data {
			id := ""
			if en.MessageID != nil {
				id = *en.MessageID
			}
			got = append(got, en.Direction+" "+id)
		}
		if fmt.Sprint(got) != c.want {
			t.Errorf("%s's thread: %v, want %s", c.ids.key[:8], got, c.want)
		}
	}
}

// checkModeCampaign: the campaign, its statistics and the list count each
// key's mode only: the test key one queued message, the live key one read.
func checkModeCampaign(t *testing.T, f *modeFixture) {
	for _, c := range []struct {
		ids    modeIDs
		counts string
	}{{f.test, "map[delivered:0 failed:0 queued:1 read:0 sending:0 sent:0]"}, {f.live, "map[delivered:0 failed:0 queued:0 read:1 sending:0 sent:0]"}} {
		type stats struct {
			Total  int
			Counts map[string]int
		}
		_, one := f.e.do(t, "GET", "/v1/campaigns/"+f.e.active, f.e.keyed(c.ids.key), "")
		_, st := f.e.do(t, "GET", "/v1/campaigns/"+f.e.active+"/stats", f.e.keyed(c.ids.key), "")
		_, list := f.e.do(t, "GET", "/v1/campaigns?limit=100", f.e.keyed(c.ids.key), "")
		got := []stats{decode[struct{ Stats stats }](t, one).Stats, decode[stats](t, st)}
		for _, cp := range decode[struct {
			Data []struct {
				ID    string
				Stats stats
			}
		}](t, list).Data {
			if cp.ID == f.e.active {
				got = append(got, cp.Stats)
			}
		}
		for i, s := range got {
			if s.Total != 1 || fmt.Sprint(s.Counts) != c.counts {
				t.Errorf("%s: statistics %d of the campaign (one, stats, list): %+v, want 1 message, %s", c.ids.key[:8], i, s, c.counts)
			}
		}
		if len(got) != 3 {
			t.Errorf("%s: the campaign list lacks the campaign: %s", c.ids.key[:8], list)
		}
	}
}

// checkModeSend: a live STOP refuses live sends, not test ones (the sandbox
// reaches no one); a test key's opt-out refuses test sends, not live ones.
// A test send changes nothing the live key sees.
func checkModeSend(t *testing.T, f *modeFixture) {
	optedOut := problemBody(409, "contact_opted_out", "Contact opted out", "phoneNumber", "the recipient opted out of messages")
	send := func(key, phone string) (*http.Response, string) {
		return f.e.do(t, "POST", sendURL, f.e.keyed(key), sendBody(phone, f.e.active, "Ana", "1234"))
	}
	if res, body := send(f.live.key, modeShared); res.StatusCode != 409 || canonicalString(normalize(body)) != optedOut {
		t.Errorf("live send to the number that wrote STOP: %d %s", res.StatusCode, body)
	}
	f.asTest(t, func() {
		res, body := send(f.test.key, modeShared)
		if res.StatusCode != 202 || decode[map[string]string](t, body)["contactId"] != f.test.contact {
			t.Errorf("test send to the number that wrote STOP: %d %s, want 202 to the test contact", res.StatusCode, body)
		}
		if res, body := f.e.do(t, "POST", "/v1/contacts/sync", f.e.keyed(f.test.key),
			`{"phoneNumber":"`+modeLiveOnly+`","optedOut":true}`); res.StatusCode != 201 {
			t.Errorf("test sync opting the live-only number out: %d %s", res.StatusCode, body)
		}
		if res, body := send(f.test.key, modeLiveOnly); res.StatusCode != 409 {
			t.Errorf("test send after the test key's opt-out: %d %s", res.StatusCode, body)
		}
	})
	if res, body := send(f.live.key, modeLiveOnly); res.StatusCode != 202 {
		t.Errorf("live send after a test key's opt-out of the number: %d %s, want 202", res.StatusCode, body)
	}
}

// checkModeSync: a test key's sync of a number only live knows makes a test
// contact, answered like a sync of a number nobody has, and changes nothing
// the live key sees; syncing the shared number changes the test contact.
func checkModeSync(t *testing.T, f *modeFixture) {
	f.asTest(t, func() {
		body := func(phone string) string {
			return `{"phoneNumber":"` + phone + `","name":"Mallory","attributes":{"x":"y"}}`
		}
		theirs, theirsRaw := f.e.do(t, "POST", "/v1/contacts/sync", f.e.keyed(f.test.key), body("+14155552674"))
		fresh, freshRaw := f.e.do(t, "POST", "/v1/contacts/sync", f.e.keyed(f.test.key), body("+14155552675"))
		if theirs.StatusCode != 201 || fresh.StatusCode != 201 {
			t.Fatalf("test syncs: %d %s; %d %s", theirs.StatusCode, theirsRaw, fresh.StatusCode, freshRaw)
		}
		shared, sharedRaw := f.e.do(t, "POST", "/v1/contacts/sync", f.e.keyed(f.test.key),
			`{"phoneNumber":"`+modeShared+`","tags":["ci"]}`)
		if shared.StatusCode != 200 || decode[map[string]any](t, sharedRaw)["id"] != f.test.contact || strings.Contains(sharedRaw, "Ana Live") {
			t.Errorf("test sync of the shared number: %d %s, want the test contact", shared.StatusCode, sharedRaw)
		}
	})
}

// newModeFixture sends, syncs and receives in the default workspace with
// its live and test keys.
func newModeFixture(t *testing.T, e *apiEnv) *modeFixture {
	t.Helper()
	f := &modeFixture{e: e}
	send := func(key string) modeIDs {
		res, body := e.do(t, "POST", sendURL, e.keyed(key), sendBody(modeShared, e.active, "Ana", "1234"))
		if res.StatusCode != 202 {
			t.Fatalf("send: %d %s", res.StatusCode, body)
		}
		m := decode[map[string]string](t, body)
		return modeIDs{key: key, message: m["id"], contact: m["contactId"]}
	}
	f.live, f.test = send(e.liveKey), send(e.key)
	if f.live.contact == f.test.contact {
		t.Fatalf("a live and a test send share contact %s", f.live.contact)
	}
	for _, s := range []struct{ key, body string }{
		{e.liveKey, `{"phoneNumber":"` + modeShared + `","name":"Ana Live","attributes":{"plan":"gold"}}`},
		{e.key, `{"phoneNumber":"` + modeShared + `","name":"Test Ana"}`},
		{e.liveKey, `{"phoneNumber":"` + modeLiveOnly + `"}`},
		{e.key, `{"phoneNumber":"` + modeTestOnly + `"}`},
	} {
		if res, body := e.do(t, "POST", "/v1/contacts/sync", e.keyed(s.key), s.body); res.StatusCode/100 != 2 {
			t.Fatalf("sync %s: %d %s", s.body, res.StatusCode, body)
		}
	}
	now := time.Now().UTC().Truncate(time.Second)
	e.signed(t, fakemeta.StatusPayload(wabaID, phoneID, fakemeta.StatusUpdate{WAMID: "wamid.LIVE", Status: "read",
		BizOpaque: f.live.message, RecipientID: modeShared[1:], At: now}))
	e.signed(t, fakemeta.InboundPayload(wabaID, phoneID,
		fakemeta.Inbound{From: modeShared[1:], ProfileName: "Ana Lima", Type: "text", Text: "hello", At: now.Add(time.Second)},
		fakemeta.Inbound{From: modeShared[1:], ProfileName: "Ana Lima", Type: "text", Text: "STOP", At: now.Add(2 * time.Second)}))
	for _, x := range []*modeIDs{&f.live, &f.test} {
		iso := isoIDs{key: x.key}
		seedEndpoint(t, e, &iso)
		x.endpoint, x.event = iso.endpoint, iso.event
	}
	ids := system.NewIDs()
	f.missing = modeIDs{message: ids.NewID(domain.PrefixMessage), contact: ids.NewID(domain.PrefixContact),
		endpoint: ids.NewID(domain.PrefixWebhookEndpoint), event: ids.NewID(domain.PrefixEvent)}
	return f
}

func TestModeMatrix(t *testing.T) {
	t.Parallel()
	onEveryEngine(t, func(t *testing.T, e *apiEnv) {
		f := newModeFixture(t, e)
		for _, row := range modeMatrix {
			t.Run(row.name, func(t *testing.T) { row.check(t, f) })
		}
	})
}

// TestModeMatrixCoversEveryKeyedRoute: the mode matrix has a row for every
// keyed route of routes.go, so a new keyed route fails here until it says
// what each mode sees.
func TestModeMatrixCoversEveryKeyedRoute(t *testing.T) {
	t.Parallel()
	var keyedRoutes []string
	for _, r := range specRoutes(t) {
		if _, tmpl, _ := strings.Cut(r, " "); keyed(tmpl) {
			keyedRoutes = append(keyedRoutes, r)
		}
	}
	covered := map[string]bool{}
	for _, row := range modeMatrix {
		covered[row.route] = true
	}
	got := slices.Sorted(maps.Keys(covered))
	slices.Sort(keyedRoutes)
	if !slices.Equal(got, keyedRoutes) {
		t.Errorf("the mode matrix covers %v;\nthe keyed routes are %v", got, keyedRoutes)
	}
}

// checkModeSession: a session message to the other mode's contact, by id,
// answers like one to a missing contact; the owner's key reaches it once
// the contact has written.
func checkModeSession(t *testing.T, f *modeFixture) {
	body := func(contact string) string { return withRecipient(sessionBodies["text"], "contactId", contact) }
	for _, d := range f.directions() {
		check := func() {
			theirs, theirsRaw := f.e.do(t, "POST", sessionURL, f.e.keyed(d.viewer.key), body(d.owner.contact))
			missing, missingRaw := f.e.do(t, "POST", sessionURL, f.e.keyed(d.viewer.key), body(f.missing.contact))
			assertLooksMissing(t, "contact_not_found", d.name+" session to "+d.owner.contact, theirs, theirsRaw,
				"missing "+f.missing.contact, missing, missingRaw)
		}
		if d.viewer == f.test {
			f.asTest(t, check)
		} else {
			check()
		}
	}
	f.e.wrote(t, f.test.key, f.test.contact, time.Now().Add(-time.Minute))
	if res, got := f.e.do(t, "POST", sessionURL, f.e.keyed(f.test.key), body(f.test.contact)); res.StatusCode != 202 {
		t.Errorf("the owner's session message: %d %s", res.StatusCode, got)
	}
}

// checkModeMarkRead: marking the other mode's inbound message read answers
// like an unknown one; the owner's key marks it.
func checkModeMarkRead(t *testing.T, f *modeFixture) {
	wamids := map[string]string{f.live.key: f.e.inbound(t, f.live.key, f.live.contact), f.test.key: f.e.inbound(t, f.test.key, f.test.contact)}
	for _, d := range f.directions() {
		check := func() {
			theirs, theirsRaw := f.e.do(t, "POST", "/v1/messages/"+wamids[d.owner.key]+"/read", f.e.keyed(d.viewer.key), "")
			missing, missingRaw := f.e.do(t, "POST", "/v1/messages/wamid.MISSING/read", f.e.keyed(d.viewer.key), "")
			assertLooksMissing(t, "message_not_found", d.name+" read", theirs, theirsRaw, "missing", missing, missingRaw)
		}
		if d.viewer == f.test {
			f.asTest(t, check)
		} else {
			check()
		}
		if res, got := f.e.do(t, "POST", "/v1/messages/"+wamids[d.owner.key]+"/read", f.e.keyed(d.owner.key), ""); res.StatusCode != 200 {
			t.Errorf("the owner's key: %d %s", res.StatusCode, got)
		}
	}
}
