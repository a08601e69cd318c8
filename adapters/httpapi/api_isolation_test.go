package httpapi_test

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/adapters/httpapi"
	"github.com/heraldhq/herald/adapters/system"
	"github.com/heraldhq/herald/domain"
)

// The tenant isolation matrix (DESIGN.md §2): a key sees only its own
// workspace, and another workspace's object answers exactly like a missing
// one. Every keyed route is a row; each row runs, with workspace A's key,
// on A's own objects (they succeed), on workspace B's real objects and on
// well-formed ids nobody has (the two answers must be byte for byte the same
// but for the request id), and then on B's objects with B's key (they are
// real). Around the two foreign calls, B's state read with B's key must not
// move. TestIsolationMatrixCoversEveryKeyedRoute keeps the rows in step with
// routes.go.

const (
	isoPhoneA        = "+14155552671" // A's contact
	isoPhoneB        = "+14155552672" // B's contact; A has none (until the sync row)
	isoPhoneNobody   = "+14155550000" // nobody's, the "missing" phone
	isoPhoneStranger = "+14155550123" // nobody's until the sends; B's snapshot watches it
)

// isoIDs names one workspace's objects, or well-formed ids nobody has.
type isoIDs struct {
	key, campaign, contact, message, phone string
	endpoint, event                        string // a webhook endpoint and its test event
}

// isoFixture is the matrix's world: A looks, B owns.
type isoFixture struct {
	e       *apiEnv
	a, b    isoIDs // a.key is the viewer's key in every foreign call
	missing isoIDs // same prefixes and lengths as b's, stored nowhere

	bMessages map[string]bool // every campaign message B sent itself
	bSessions map[string]bool // every session message B sent itself
}

// isolationRow is one row of the matrix: the routes.go pattern it covers
// and the check it runs, in order (rows share one world per engine).
type isolationRow struct {
	name  string
	route string
	check func(t *testing.T, f *isoFixture)
}

// isolationMatrix lists the rows. Order matters: the lookups run before the
// sends and the sync, which create contacts.
var isolationMatrix = []isolationRow{
	lookupRow("message", "GET /v1/messages/{id}", "GET",
		func(x isoIDs) string { return "/v1/messages/" + x.message }, nil, 200, "message_not_found"),
	lookupRow("contact by phone", "GET /v1/contacts/by-phone/{phone}", "GET",
		func(x isoIDs) string { return "/v1/contacts/by-phone/%2B" + x.phone[1:] }, nil, 200, "contact_not_found"),
	lookupRow("contact by phone, raw plus", "GET /v1/contacts/by-phone/{phone}", "GET",
		func(x isoIDs) string { return "/v1/contacts/by-phone/" + x.phone }, nil, 200, "contact_not_found"),
	lookupRow("conversation", "GET /v1/contacts/{id}/conversation", "GET",
		func(x isoIDs) string { return "/v1/contacts/" + x.contact + "/conversation" }, nil, 200, "contact_not_found"),
	lookupRow("conversation, paged", "GET /v1/contacts/{id}/conversation", "GET",
		func(x isoIDs) string { return "/v1/contacts/" + x.contact + "/conversation?limit=1" }, nil, 200, "contact_not_found"),
	lookupRow("campaign", "GET /v1/campaigns/{id}", "GET",
		func(x isoIDs) string { return "/v1/campaigns/" + x.campaign }, nil, 200, "campaign_not_found"),
	lookupRow("campaign stats", "GET /v1/campaigns/{id}/stats", "GET",
		func(x isoIDs) string { return "/v1/campaigns/" + x.campaign + "/stats" }, nil, 200, "campaign_not_found"),
	lookupRow("send to the campaign's own contact", "POST /v1/messages/send-campaign", "POST",
		func(isoIDs) string { return sendURL },
		func(x isoIDs) string { return sendBody(x.phone, x.campaign, "Ana", "1234") }, 202, "campaign_not_found"),
	lookupRow("send to the campaign's own contact, dry run", "POST /v1/messages/send-campaign", "POST",
		func(isoIDs) string { return sendURL + "?dryRun=true" },
		func(x isoIDs) string { return sendBody(x.phone, x.campaign, "Ana", "1234") }, 200, "campaign_not_found"),
	lookupRow("send to a number nobody has, dry run", "POST /v1/messages/send-campaign", "POST",
		func(isoIDs) string { return sendURL + "?dryRun=true" },
		func(x isoIDs) string { return sendBody(isoPhoneStranger, x.campaign, "Ana", "1234") }, 200, "campaign_not_found"),
	lookupRow("send to a number nobody has", "POST /v1/messages/send-campaign", "POST",
		func(isoIDs) string { return sendURL },
		func(x isoIDs) string { return sendBody(isoPhoneStranger, x.campaign, "Ana", "1234") }, 202, "campaign_not_found"),
	{"session message to the other workspace's contact", "POST /v1/messages", func(t *testing.T, f *isoFixture) {
		f.e.wrote(t, f.a.key, f.a.contact, time.Now().Add(-time.Minute))
		f.e.wrote(t, f.b.key, f.b.contact, time.Now().Add(-time.Minute))
		before := maps.Clone(f.bMessages)
		lookupRow("", "", "POST", func(isoIDs) string { return sessionURL },
			func(x isoIDs) string { return withRecipient(sessionBodies["text"], "contactId", x.contact) }, 202, "contact_not_found").check(t, f)
		for id := range f.bMessages {
			if !before[id] { // a session message: B's campaign does not count it
				delete(f.bMessages, id)
				f.bSessions[id] = true
			}
		}
	}},
	{"mark the other workspace's message read", "POST /v1/messages/{id}/read", func(t *testing.T, f *isoFixture) {
		a, b := f.e.inbound(t, f.a.key, f.a.contact), f.e.inbound(t, f.b.key, f.b.contact)
		wamid := func(x isoIDs) string {
			switch x.contact {
			case f.a.contact:
				return a
			case f.b.contact:
				return b
			}
			return "wamid.MISSING"
		}
		lookupRow("", "", "POST", func(x isoIDs) string { return "/v1/messages/" + wamid(x) + "/read" }, nil, 200,
			"message_not_found").check(t, f)
	}},
	{"upload media", "POST /v1/media", checkMediaIsolation},
	{"the other workspace's media", "GET /v1/media/{id}", checkMediaIsolation},
	{"the other workspace's media content", "GET /v1/media/{id}/content", checkMediaIsolation},
	{"sync a number only the other workspace has", "POST /v1/contacts/sync", checkSyncIsolation},
	{"list campaigns", "GET /v1/campaigns", checkListIsolation},
	lookupRow("edit campaign", "PATCH /v1/campaigns/{id}", "PATCH",
		func(x isoIDs) string { return "/v1/campaigns/" + x.campaign },
		func(isoIDs) string { return `{"labels":{"body.1":"First name"}}` }, 200, "campaign_not_found"),
	lookupRow("pause campaign", "POST /v1/campaigns/{id}/pause", "POST",
		func(x isoIDs) string { return "/v1/campaigns/" + x.campaign + "/pause" }, nil, 200, "campaign_not_found"),
	lookupRow("activate campaign", "POST /v1/campaigns/{id}/activate", "POST",
		func(x isoIDs) string { return "/v1/campaigns/" + x.campaign + "/activate" }, nil, 200, "campaign_not_found"),
	{"create campaign", "POST /v1/campaigns", checkCreateIsolation},
	{"list templates", "GET /v1/templates", checkTemplatesIsolation},
	{"list phone numbers", "GET /v1/phone-numbers", checkPhoneNumbersIsolation},
	{"submit a template", "POST /v1/templates", checkTemplatesIsolation},
	{"delete a template", "DELETE /v1/templates/{name}", checkTemplatesIsolation},
	lookupRow("webhook endpoint", "GET /v1/webhook-endpoints/{id}", "GET",
		func(x isoIDs) string { return "/v1/webhook-endpoints/" + x.endpoint }, nil, 200, "webhook_endpoint_not_found"),
	lookupRow("change a webhook endpoint", "PATCH /v1/webhook-endpoints/{id}", "PATCH",
		func(x isoIDs) string { return "/v1/webhook-endpoints/" + x.endpoint },
		func(isoIDs) string { return `{"description":"mine now","status":"disabled"}` }, 200, "webhook_endpoint_not_found"),
	lookupRow("rotate a webhook endpoint's secret", "POST /v1/webhook-endpoints/{id}/rotate-secret", "POST",
		func(x isoIDs) string { return "/v1/webhook-endpoints/" + x.endpoint + "/rotate-secret" }, nil, 200, "webhook_endpoint_not_found"),
	lookupRow("test a webhook endpoint", "POST /v1/webhook-endpoints/{id}/test", "POST",
		func(x isoIDs) string { return "/v1/webhook-endpoints/" + x.endpoint + "/test" }, nil, 202, "webhook_endpoint_not_found"),
	lookupRow("recover a webhook endpoint", "POST /v1/webhook-endpoints/{id}/recover", "POST",
		func(x isoIDs) string { return "/v1/webhook-endpoints/" + x.endpoint + "/recover" },
		func(isoIDs) string { return `{"since":"2020-01-01T00:00:00Z"}` }, 202, "webhook_endpoint_not_found"),
	lookupRow("event", "GET /v1/events/{id}", "GET",
		func(x isoIDs) string { return "/v1/events/" + x.event }, nil, 200, "event_not_found"),
	lookupRow("redeliver an event", "POST /v1/events/{id}/redeliver", "POST",
		func(x isoIDs) string { return "/v1/events/" + x.event + "/redeliver" }, nil, 202, "event_not_found"),
	{"create a webhook endpoint", "POST /v1/webhook-endpoints", checkEventListsIsolation},
	{"list webhook endpoints", "GET /v1/webhook-endpoints", checkEventListsIsolation},
	{"list events", "GET /v1/events", checkEventListsIsolation},
	{"list messages", "GET /v1/messages", checkEventListsIsolation},
	// Last: the endpoints are gone after it.
	lookupRow("delete a webhook endpoint", "DELETE /v1/webhook-endpoints/{id}", "DELETE",
		func(x isoIDs) string { return "/v1/webhook-endpoints/" + x.endpoint }, nil, 204, "webhook_endpoint_not_found"),
}

// checkCreateIsolation: a campaign a key creates is its workspace's: the
// other workspace's key neither lists nor finds it.
func checkCreateIsolation(t *testing.T, f *isoFixture) {
	res, body := f.e.do(t, "POST", "/v1/campaigns", f.e.keyed(f.a.key), `{"name":"Mine","templateName":"mine","language":"en","body":"Hi"}`)
	if res.StatusCode != 201 {
		t.Fatalf("create: %d %s", res.StatusCode, body)
	}
	id := decode[struct{ ID string }](t, body).ID
	if res, got := f.e.do(t, "GET", "/v1/campaigns/"+id, f.e.keyed(f.b.key), ""); res.StatusCode != 404 {
		t.Errorf("the other workspace's key reads the new campaign: %d %s", res.StatusCode, got)
	}
	_, list := f.e.do(t, "GET", "/v1/campaigns?limit=100", f.e.keyed(f.b.key), "")
	if strings.Contains(list, id) {
		t.Errorf("the other workspace's list has the new campaign: %s", list)
	}
}

// checkEventListsIsolation: the lists of endpoints, events and messages
// show each workspace its own only, and an endpoint A makes is A's alone.
func checkEventListsIsolation(t *testing.T, f *isoFixture) {
	before := f.ownerState(t)
	made := f.e.createEndpoint(t, f.a.key, `{"url":"https://hooks.example.com/a2","events":["*"]}`)
	sequence(t, f.e.store)
	for _, u := range []string{"/v1/webhook-endpoints", "/v1/events?limit=1000", "/v1/messages?limit=100"} {
		_, aRaw := f.e.do(t, "GET", u, f.e.keyed(f.a.key), "")
		_, bRaw := f.e.do(t, "GET", u, f.e.keyed(f.b.key), "")
		for _, id := range []string{f.b.endpoint, f.b.event, f.b.message, f.b.campaign} {
			if strings.Contains(aRaw, id) {
				t.Errorf("A's %s shows B's %s", u, id)
			}
		}
		for _, id := range []string{f.a.endpoint, f.a.event, f.a.message, made.ID} {
			if strings.Contains(bRaw, id) {
				t.Errorf("B's %s shows A's %s", u, id)
			}
		}
		own := map[string][2]string{"/v1/webhook-endpoints": {f.a.endpoint, f.b.endpoint},
			"/v1/events?limit=1000": {f.a.event, f.b.event}, "/v1/messages?limit=100": {f.a.message, f.b.message}}[u]
		if !strings.Contains(aRaw, own[0]) || !strings.Contains(bRaw, own[1]) {
			t.Errorf("%s lacks the workspace's own:\nA %s\nB %s", u, aRaw, bRaw)
		}
	}
	if after := f.ownerState(t); after != before {
		t.Errorf("A's endpoint and lists changed B's state:\nbefore %s\nafter  %s", before, after)
	}
}

// seedEndpoint gives x a webhook endpoint made with its key and a test
// event sent to it, sequenced.
func seedEndpoint(t *testing.T, e *apiEnv, x *isoIDs) {
	t.Helper()
	x.endpoint = e.createEndpoint(t, x.key, `{"url":"https://hooks.example.com/h","events":["*"]}`).ID
	res, raw := e.do(t, "POST", "/v1/webhook-endpoints/"+x.endpoint+"/test", e.keyed(x.key), "")
	if res.StatusCode != 202 {
		t.Fatalf("test event: %d %s", res.StatusCode, raw)
	}
	x.event = decode[map[string]any](t, raw)["id"].(string)
	sequence(t, e.store)
}

// lookupRow builds a row whose foreign call must answer like a missing id:
// url and body (nil: none) build the request from one workspace's ids.
func lookupRow(name, route, method string, url func(isoIDs) string, body func(isoIDs) string, own int, code string) isolationRow {
	build := func(x isoIDs) (string, string) {
		if body == nil {
			return url(x), ""
		}
		return url(x), body(x)
	}
	return isolationRow{name: name, route: route, check: func(t *testing.T, f *isoFixture) {
		u, b := build(f.a)
		if res, got := f.e.do(t, method, u, f.e.keyed(f.a.key), b); res.StatusCode != own {
			t.Fatalf("own ids: %s %s answered %d, want %d: %s", method, u, res.StatusCode, own, got)
		}

		before := f.ownerState(t)
		theirURL, theirBody := build(f.b)
		theirs, theirsRaw := f.e.do(t, method, theirURL, f.e.keyed(f.a.key), theirBody)
		missURL, missBody := build(f.missing)
		missing, missingRaw := f.e.do(t, method, missURL, f.e.keyed(f.a.key), missBody)
		assertLooksMissing(t, code, method+" "+theirURL, theirs, theirsRaw, method+" "+missURL, missing, missingRaw)
		if after := f.ownerState(t); after != before {
			t.Errorf("%s %s with the other workspace's key changed the owner's state:\nbefore %s\nafter  %s", method, theirURL, before, after)
		}

		// B's ids are real: B's own key gets them.
		res, got := f.e.do(t, method, theirURL, f.e.keyed(f.b.key), theirBody)
		if res.StatusCode != own {
			t.Fatalf("owner's ids with the owner's key: %s %s answered %d, want %d: %s", method, theirURL, res.StatusCode, own, got)
		}
		if res.StatusCode == http.StatusAccepted {
			if id, _ := decode[map[string]any](t, got)["id"].(string); strings.HasPrefix(id, domain.PrefixMessage+"_") {
				f.bMessages[id] = true
			}
		}
	}}
}

// assertLooksMissing checks that the answer about another workspace's
// object is the answer about a missing one: same status, same headers but
// the request id, and the same bytes once the request id is blanked.
func assertLooksMissing(t *testing.T, code, theirReq string, theirs *http.Response, theirsRaw, missReq string, missing *http.Response, missingRaw string) {
	t.Helper()
	if theirs.StatusCode != http.StatusNotFound || missing.StatusCode != http.StatusNotFound {
		t.Fatalf("want 404 for both:\n%s → %d %s\n%s → %d %s", theirReq, theirs.StatusCode, theirsRaw, missReq, missing.StatusCode, missingRaw)
	}
	if got := decode[map[string]any](t, theirsRaw)["code"]; got != code {
		t.Errorf("%s: code %v, want %s", theirReq, got, code)
	}
	for _, raw := range []string{theirsRaw, missingRaw} {
		if strings.Count(normalize(raw), `"requestId":"REQ"`) != 1 {
			t.Errorf("the problem does not carry exactly one request id: %s", raw)
		}
	}
	if normalize(theirsRaw) != normalize(missingRaw) {
		t.Errorf("bodies differ (request id blanked):\n%s → %s\n%s → %s", theirReq, theirsRaw, missReq, missingRaw)
	}
	header := func(r *http.Response) http.Header {
		h := r.Header.Clone()
		h.Del("X-Request-Id")
		// What is left of the key's quota moves with each request and with
		// time, not with the object asked for (the key's bucket is charged
		// before routing); RateLimit-Policy is still compared.
		h.Del("RateLimit")
		return h
	}
	if th, mh := header(theirs), header(missing); fmt.Sprint(th) != fmt.Sprint(mh) {
		t.Errorf("headers differ:\n%s → %v\n%s → %v", theirReq, th, missReq, mh)
	}
	for name, r := range map[string]*http.Response{theirReq: theirs, missReq: missing} {
		if ct := r.Header.Get("Content-Type"); ct != problemCT {
			t.Errorf("%s: Content-Type %q, want %s", name, ct, problemCT)
		}
		if cc := r.Header.Get("Cache-Control"); cc != "no-store" {
			t.Errorf("%s: Cache-Control %q, want no-store", name, cc)
		}
		if wa, ok := r.Header["Www-Authenticate"]; ok {
			t.Errorf("%s: WWW-Authenticate %q on a 404: the key was accepted", name, wa)
		}
	}
}

// ownerState is what B sees of its own workspace, with B's key: its
// campaign, the campaign's counts, its contact, the contact's thread, and
// whether it has a contact for the stranger's number.
func (f *isoFixture) ownerState(t *testing.T) string {
	t.Helper()
	k := f.e.keyed(f.b.key)
	var s strings.Builder
	for _, u := range []string{
		"/v1/campaigns/" + f.b.campaign,
		"/v1/contacts/by-phone/" + f.b.phone,
		"/v1/contacts/" + f.b.contact + "/conversation?limit=100",
		"/v1/contacts/by-phone/" + isoPhoneStranger,
		"/v1/webhook-endpoints/" + f.b.endpoint,
		"/v1/events/" + f.b.event,
	} {
		res, body := f.e.do(t, "GET", u, k, "")
		fmt.Fprintf(&s, "%s → %d %s", u, res.StatusCode, normalize(body))
	}
	// The stats carry a moving timeline window; keep the counts.
	res, body := f.e.do(t, "GET", "/v1/campaigns/"+f.b.campaign+"/stats", k, "")
	stats := decode[struct {
		Total  int
		Counts map[string]int
	}](t, body)
	fmt.Fprintf(&s, "stats → %d total %d counts %v", res.StatusCode, stats.Total, stats.Counts)
	return s.String()
}

// checkSyncIsolation: A syncing a number that exists only in B creates A's
// own contact, answers exactly as for a number nobody has, and leaves B's
// contact alone.
func checkSyncIsolation(t *testing.T, f *isoFixture) {
	k := f.e.keyed(f.a.key)
	sync := func(phone string) string {
		return `{"phoneNumber":"` + phone + `","name":"Mallory","email":"m@example.com","attributes":{"plan":"free"},"tags":["x"],"optedOut":true}`
	}
	// Own: A's existing contact is updated.
	if res, body := f.e.do(t, "POST", "/v1/contacts/sync", k, `{"phoneNumber":"`+f.a.phone+`"}`); res.StatusCode != 200 ||
		decode[map[string]any](t, body)["id"] != f.a.contact {
		t.Fatalf("own sync: %d %s", res.StatusCode, body)
	}

	before := f.ownerState(t)
	theirs, theirsRaw := f.e.do(t, "POST", "/v1/contacts/sync", k, sync(f.b.phone))
	missing, missingRaw := f.e.do(t, "POST", "/v1/contacts/sync", k, sync(f.missing.phone))
	if theirs.StatusCode != 201 || missing.StatusCode != 201 {
		t.Fatalf("syncing B's number and nobody's: %d %s; %d %s, want 201 (created in A) for both",
			theirs.StatusCode, theirsRaw, missing.StatusCode, missingRaw)
	}
	// The two answers differ only in what is new: ids, number and times.
	strip := func(raw string) string {
		m := decode[map[string]any](t, raw)
		for _, field := range []string{"id", "conversationId", "phoneNumber", "createdAt", "updatedAt"} {
			delete(m, field)
		}
		return canonical(m)
	}
	if strip(theirsRaw) != strip(missingRaw) {
		t.Errorf("syncing B's number answers unlike syncing nobody's:\n%s\n%s", theirsRaw, missingRaw)
	}
	created := decode[map[string]any](t, theirsRaw)
	if created["id"] == f.b.contact || created["conversationId"] == "" || created["phoneNumber"] != f.b.phone {
		t.Errorf("A's sync of B's number returned B's contact or a broken one: %s (B's contact is %s)", theirsRaw, f.b.contact)
	}
	// Again: A's own contact is updated, B's still untouched.
	again, againRaw := f.e.do(t, "POST", "/v1/contacts/sync", k, `{"phoneNumber":"`+f.b.phone+`","name":"Mallory 2"}`)
	if again.StatusCode != 200 || decode[map[string]any](t, againRaw)["id"] != created["id"] {
		t.Errorf("second sync by A: %d %s, want 200 on A's contact %v", again.StatusCode, againRaw, created["id"])
	}
	if after := f.ownerState(t); after != before {
		t.Errorf("A's sync of B's number changed B's state:\nbefore %s\nafter  %s", before, after)
	}
	// A now finds its own contact for the number, never B's.
	if res, body := f.e.do(t, "GET", "/v1/contacts/by-phone/"+f.b.phone, k, ""); res.StatusCode != 200 ||
		decode[map[string]any](t, body)["id"] != created["id"] {
		t.Errorf("A's lookup of the number after its sync: %d %s, want A's contact %v", res.StatusCode, body, created["id"])
	}
	// B's number is real in B: B's key syncs its own contact.
	if res, body := f.e.do(t, "POST", "/v1/contacts/sync", f.e.keyed(f.b.key), `{"phoneNumber":"`+f.b.phone+`"}`); res.StatusCode != 200 ||
		decode[map[string]any](t, body)["id"] != f.b.contact {
		t.Errorf("B's sync of its own number: %d %s, want 200 on %s", res.StatusCode, body, f.b.contact)
	}
}

// checkListIsolation: every page of A's list holds A's campaigns and none
// of B's, and the other way round.
func checkListIsolation(t *testing.T, f *isoFixture) {
	list := func(key string) (ids []string, raw string) {
		url := "/v1/campaigns?limit=1"
		for range 20 {
			res, body := f.e.do(t, "GET", url, f.e.keyed(key), "")
			if res.StatusCode != 200 {
				t.Fatalf("%s: %d %s", url, res.StatusCode, body)
			}
			raw += body
			page := decode[struct {
				Data       []struct{ ID string }
				NextCursor *string
			}](t, body)
			for _, c := range page.Data {
				ids = append(ids, c.ID)
			}
			if page.NextCursor == nil {
				return ids, raw
			}
			url = "/v1/campaigns?limit=1&cursor=" + *page.NextCursor
		}
		t.Fatal("the campaign list never ends")
		return nil, ""
	}
	before := f.ownerState(t)
	aList, aRaw := list(f.a.key)
	bList, bRaw := list(f.b.key)
	if !slices.Contains(aList, f.a.campaign) || !slices.Contains(bList, f.b.campaign) {
		t.Fatalf("own campaigns missing from their lists: A %v (has %s), B %v (has %s)", aList, f.a.campaign, bList, f.b.campaign)
	}
	for _, id := range []string{f.b.campaign, f.b.contact, f.b.message} {
		if strings.Contains(aRaw, id) {
			t.Errorf("A's campaign list shows B's %s", id)
		}
	}
	for _, id := range []string{f.a.campaign, f.a.contact, f.a.message} {
		if strings.Contains(bRaw, id) {
			t.Errorf("B's campaign list shows A's %s", id)
		}
	}
	if after := f.ownerState(t); after != before {
		t.Errorf("listing changed B's state:\nbefore %s\nafter  %s", before, after)
	}
}

// seedWorkspace sends one message with key through campaign, so the
// workspace has a key, an active campaign, a contact with a thread and a
// message.
func seedWorkspace(t *testing.T, e *apiEnv, key, campaign, phone string) isoIDs {
	t.Helper()
	res, body := e.do(t, "POST", sendURL, e.keyed(key), sendBody(phone, campaign, "Ana", "1234"))
	if res.StatusCode != 202 {
		t.Fatalf("seeding send: %d %s", res.StatusCode, body)
	}
	m := decode[map[string]string](t, body)
	return isoIDs{key: key, campaign: campaign, contact: m["contactId"], message: m["id"], phone: phone}
}

func TestIsolationMatrix(t *testing.T) {
	t.Parallel()
	onEveryEngine(t, func(t *testing.T, e *apiEnv) {
		f := &isoFixture{e: e, bMessages: map[string]bool{}, bSessions: map[string]bool{}}
		f.a = seedWorkspace(t, e, e.key, e.active, isoPhoneA)
		f.b = seedWorkspace(t, e, e.otherKey, e.otherCampaign, isoPhoneB)
		f.bMessages[f.b.message] = true
		seedEndpoint(t, e, &f.a)
		seedEndpoint(t, e, &f.b)
		ids := system.NewIDs()
		f.missing = isoIDs{key: f.a.key, campaign: ids.NewID(domain.PrefixCampaign), contact: ids.NewID(domain.PrefixContact),
			message: ids.NewID(domain.PrefixMessage), phone: isoPhoneNobody,
			endpoint: ids.NewID(domain.PrefixWebhookEndpoint), event: ids.NewID(domain.PrefixEvent)}
		// The missing ids are fair twins of B's: same prefix, same length,
		// well formed.
		for _, p := range [][2]string{{f.b.campaign, f.missing.campaign}, {f.b.contact, f.missing.contact}, {f.b.message, f.missing.message}} {
			if len(p[0]) != len(p[1]) || p[0][:4] != p[1][:4] {
				t.Fatalf("missing id %s is not shaped like %s", p[1], p[0])
			}
		}
		if _, err := domain.ParseMessageID(f.missing.message); err != nil {
			t.Fatal(err)
		}
		if _, err := domain.ParseContactID(f.missing.contact); err != nil {
			t.Fatal(err)
		}
		if _, err := domain.ParseCampaignID(f.missing.campaign); err != nil {
			t.Fatal(err)
		}

		for _, row := range isolationMatrix {
			t.Run(row.name, func(t *testing.T) { row.check(t, f) })
		}

		// Afterwards B holds exactly the messages it sent itself, and its
		// thread names only those.
		k := e.keyed(f.b.key)
		_, body := e.do(t, "GET", "/v1/campaigns/"+f.b.campaign+"/stats", k, "")
		if total := decode[struct{ Total int }](t, body).Total; total != len(f.bMessages) {
			t.Errorf("B's campaign counts %d messages; B sent %d itself", total, len(f.bMessages))
		}
		_, body = e.do(t, "GET", "/v1/contacts/"+f.b.contact+"/conversation?limit=100", k, "")
		for _, en := range decode[struct{ Data []struct{ MessageID string } }](t, body).Data {
			if en.MessageID != "" && !f.bMessages[en.MessageID] && !f.bSessions[en.MessageID] { // "": what B's contact wrote
				t.Errorf("B's thread holds message %s, which B did not send", en.MessageID)
			}
		}
	})
}

// TestIsolationMatrixCoversEveryKeyedRoute: the routes the matrix covers are
// exactly the keyed routes of routes.go (a route is keyed when it answers
// missing_api_key without a key), so a new keyed route fails here until it
// has a row.
func TestIsolationMatrixCoversEveryKeyedRoute(t *testing.T) {
	t.Parallel()
	// One request per route without a key: more than the default
	// allowance of failed authentications per address.
	e := newEnv(t)
	e.h = httpapi.NewHandler(e.deps, httpapi.Config{RateLimit: 1e9, RateBurst: 1 << 30, AuthFailuresPerMinute: 1000}, nil)
	samples := strings.NewReplacer("{phone}", "%2B14155552671", "{id}", "x")
	var keyedRoutes []string
	for _, r := range specRoutes(t) {
		method, tmpl, _ := strings.Cut(r, " ")
		res, body := e.do(t, method, samples.Replace(tmpl), map[string]string{"Content-Type": "application/json"}, "")
		isKeyed := res.StatusCode == http.StatusUnauthorized && strings.Contains(body, `"code":"missing_api_key"`)
		if isKeyed != keyed(tmpl) {
			t.Errorf("%s: answers %d without a key, yet keyed(%q) = %v", r, res.StatusCode, tmpl, keyed(tmpl))
		}
		if isKeyed {
			keyedRoutes = append(keyedRoutes, r)
		}
	}
	covered := map[string]bool{}
	for _, row := range isolationMatrix {
		covered[row.route] = true
	}
	got := slices.Collect(maps.Keys(covered))
	sort.Strings(got)
	sort.Strings(keyedRoutes)
	if !slices.Equal(got, keyedRoutes) {
		t.Errorf("the isolation matrix covers %v;\nthe keyed routes are %v", got, keyedRoutes)
	}
}
