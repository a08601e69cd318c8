package httpapi_test

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/adapters/httpapi"
	"github.com/heraldhq/herald/adapters/system"
	"github.com/heraldhq/herald/app/events"
	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/ports/portsmock"
	"github.com/heraldhq/herald/ports/porttest"
)

// inwardHost is a name the fake poster says resolves to a private address.
const inwardHost = "inward.example.com"

// newEventDeps are the endpoint and event use cases over st, with a poster
// whose name check refuses inwardHost (no name is resolved in these tests)
// and a renderer of test events.
func newEventDeps(st porttest.Store) httpapi.EventDeps {
	clock, ids, obs := system.Clock{}, system.NewIDs(), usecase.NewObserver(nil)
	poster := &portsmock.EventPosterMock{CheckURLFunc: func(_ context.Context, raw string) error {
		if strings.Contains(raw, inwardHost) {
			return &domain.Error{Code: domain.CodeInvalidWebhookURL, Param: "url",
				Detail: "the webhook URL's host resolves to an address that may not be called (loopback, private, link-local or otherwise not public)"}
		}
		return nil
	}}
	render := httpapi.NewEventRenderer()
	policy := domain.WebhookPolicy{}
	return httpapi.EventDeps{
		CreateEndpoint: events.NewCreateEndpointHandler(st, poster, policy, clock, ids, rand.Reader, obs),
		ListEndpoints:  events.NewListEndpointsHandler(st, st, obs),
		GetEndpoint:    events.NewGetEndpointHandler(st, obs),
		UpdateEndpoint: events.NewUpdateEndpointHandler(st, poster, policy, clock, obs),
		DeleteEndpoint: events.NewDeleteEndpointHandler(st, obs),
		RotateSecret:   events.NewRotateEndpointSecretHandler(st, clock, rand.Reader, obs),
		SendTest:       events.NewSendTestEventHandler(st, st, render, clock, ids, obs),
		Recover:        events.NewRecoverEndpointHandler(st, st, clock, obs),
		ListEvents:     events.NewListEventsHandler(st, obs),
		GetEvent:       events.NewGetEventHandler(st, st, obs),
		Redeliver:      events.NewRedeliverEventHandler(st, st, clock, obs),
	}
}

var secretPattern = regexp.MustCompile(`^whsec_[A-Za-z0-9+/]{43}=$`)

type endpointJSON struct {
	ID, URL, Description, Mode, Status string
	Events                             []string
	DisabledReason, DisabledAt         *string
	Secret                             *string
}

// createEndpoint makes an endpoint with key and returns it.
func (e *apiEnv) createEndpoint(t *testing.T, key, body string) endpointJSON {
	t.Helper()
	res, raw := e.do(t, "POST", "/v1/webhook-endpoints", e.keyed(key), body)
	if res.StatusCode != 201 {
		t.Fatalf("create endpoint: %d %s", res.StatusCode, raw)
	}
	return decode[endpointJSON](t, raw)
}

// sequence gives the committed events their place in the pull order, as
// the delivery worker does after each commit.
func sequence(t *testing.T, st porttest.Store) {
	t.Helper()
	if _, err := st.SequenceEvents(context.Background(), 10_000); err != nil {
		t.Fatal(err)
	}
}

// TestWebhookEndpointLifecycle: an endpoint is made with its secret shown
// once, read, changed, disabled and enabled again, its secret rotated (the
// old one keeps signing), sent a test event whose delivery GET
// /v1/events/{id} shows, recovered, and deleted; every refusal names its
// code and parameter. On every engine.
func TestWebhookEndpointLifecycle(t *testing.T) {
	t.Parallel()
	onEveryEngine(t, func(t *testing.T, e *apiEnv) {
		k := e.keyed(e.key)
		res, raw := e.do(t, "POST", "/v1/webhook-endpoints", k,
			`{"url":" https://hooks.example.com/herald ","events":["message.failed","message.delivered","message.failed"],"description":"CRM"}`)
		if res.StatusCode != 201 {
			t.Fatalf("create: %d %s", res.StatusCode, raw)
		}
		ep := decode[endpointJSON](t, raw)
		if ep.Secret == nil || !secretPattern.MatchString(*ep.Secret) {
			t.Fatalf("create: secret %v, want whsec_ and the base64 of 32 bytes", ep.Secret)
		}
		if res.Header.Get("Location") != "/v1/webhook-endpoints/"+ep.ID || res.Header.Get("Cache-Control") != "no-store" {
			t.Errorf("create: Location %q, Cache-Control %q", res.Header.Get("Location"), res.Header.Get("Cache-Control"))
		}
		if ep.URL != "https://hooks.example.com/herald" || fmt.Sprint(ep.Events) != "[message.delivered message.failed]" ||
			ep.Status != "enabled" || ep.Mode != "test" || ep.Description != "CRM" || ep.DisabledReason != nil {
			t.Errorf("create: %s", raw)
		}
		path := "/v1/webhook-endpoints/" + ep.ID
		_, raw = e.do(t, "GET", path, k, "")
		if strings.Contains(raw, "secret") || strings.Contains(raw, (*ep.Secret)[6:]) {
			t.Errorf("GET shows the secret: %s", raw)
		}
		_, raw = e.do(t, "GET", "/v1/webhook-endpoints", k, "")
		if list := decode[struct{ Data []endpointJSON }](t, raw).Data; len(list) != 1 || list[0].ID != ep.ID || list[0].Secret != nil {
			t.Errorf("list: %s", raw)
		}

		problem := func(status int, code, param, detail string) string {
			return problemBody(status, code, map[int]string{400: "Missing parameter", 404: "Webhook endpoint not found",
				422: map[string]string{"invalid_webhook_url": "Invalid webhook URL", "invalid_event_type": "Invalid event type",
					"invalid_parameter": "Invalid parameter"}[code]}[status], param, detail)
		}
		e.run(t, []scenario{
			{"plain http", "POST", "/v1/webhook-endpoints", k, `{"url":"http://hooks.example.com/x","events":["*"]}`, 422,
				problem(422, "invalid_webhook_url", "url", "the webhook URL must use https")},
			{"a name that resolves inward", "POST", "/v1/webhook-endpoints", k, `{"url":"https://` + inwardHost + `/x","events":["*"]}`, 422,
				problem(422, "invalid_webhook_url", "url", "the webhook URL's host resolves to an address that may not be called (loopback, private, link-local or otherwise not public)")},
			{"a fragment", "POST", "/v1/webhook-endpoints", k, `{"url":"https://hooks.example.com/x#y","events":["*"]}`, 422,
				problem(422, "invalid_webhook_url", "url", "the webhook URL must not have a fragment (#…): it is never sent")},
			{"no events", "POST", "/v1/webhook-endpoints", k, `{"url":"https://hooks.example.com/x","events":[]}`, 422,
				problem(422, "invalid_event_type", "events", `give at least one event type, or ["*"] for every type`)},
			{"star and types", "POST", "/v1/webhook-endpoints", k, `{"url":"https://hooks.example.com/x","events":["*","message.read"]}`, 422,
				problem(422, "invalid_event_type", "events", `"*" already subscribes to every type; give either ["*"] or a list of types`)},
			{"webhook.test", "POST", "/v1/webhook-endpoints", k, `{"url":"https://hooks.example.com/x","events":["webhook.test"]}`, 422,
				problem(422, "invalid_event_type", "events", "webhook.test cannot be subscribed to: it is sent to one endpoint when its test is requested")},
			{"events left out", "POST", "/v1/webhook-endpoints", k, `{"url":"https://hooks.example.com/x"}`, 400,
				problem(400, "missing_parameter", "events", "events is required")},
			{"a long description", "POST", "/v1/webhook-endpoints", k, `{"url":"https://hooks.example.com/x","events":["*"],"description":"` + strings.Repeat("é", 501) + `"}`, 422,
				problem(422, "invalid_parameter", "description", "the description is at most 500 characters")},
			{"patch an unknown status", "PATCH", path, k, `{"status":"paused"}`, 422,
				problem(422, "invalid_parameter", "status", `status must be "enabled" or "disabled"`)},
			{"patch a refused URL", "PATCH", path, k, `{"url":"https://10.0.0.1/x","description":"changed"}`, 422,
				problem(422, "invalid_webhook_url", "url", "the webhook URL must point to a public address")},
			{"unknown endpoint", "GET", "/v1/webhook-endpoints/whe_nope", k, "", 404,
				problem(404, "webhook_endpoint_not_found", "", "no webhook endpoint with this id")},
			{"recover without since", "POST", path + "/recover", k, `{}`, 400,
				problem(400, "missing_parameter", "since", "since is required")},
			{"recover from a malformed time", "POST", path + "/recover", k, `{"since":"yesterday"}`, 422,
				problem(422, "invalid_parameter", "since", "since must be a time in RFC 3339 form, such as 2026-11-22T10:00:00Z")},
		})
		if _, raw := e.do(t, "GET", path, k, ""); decode[endpointJSON](t, raw).Description != "CRM" {
			t.Errorf("a refused PATCH changed the endpoint: %s", raw)
		}

		// Disabled by hand, it says so and since when; enabled again, it
		// does not.
		res, raw = e.do(t, "PATCH", path, k, `{"status":"disabled","description":"paused for maintenance"}`)
		got := decode[endpointJSON](t, raw)
		if res.StatusCode != 200 || got.Status != "disabled" || got.DisabledReason == nil || *got.DisabledReason != "manual" ||
			got.DisabledAt == nil || got.Description != "paused for maintenance" {
			t.Errorf("disable: %d %s", res.StatusCode, raw)
		}
		res, raw = e.do(t, "PATCH", path, k, `{"status":"enabled","events":["*"]}`)
		got = decode[endpointJSON](t, raw)
		if res.StatusCode != 200 || got.Status != "enabled" || got.DisabledReason != nil || got.DisabledAt != nil || fmt.Sprint(got.Events) != "[*]" {
			t.Errorf("enable: %d %s", res.StatusCode, raw)
		}

		// Rotation: a new secret, shown once; both sign for a day.
		res, raw = e.do(t, "POST", path+"/rotate-secret", k, "")
		rot := decode[endpointJSON](t, raw)
		if res.StatusCode != 200 || rot.Secret == nil || !secretPattern.MatchString(*rot.Secret) || *rot.Secret == *ep.Secret {
			t.Fatalf("rotate: %d %s", res.StatusCode, raw)
		}
		stored, err := e.store.GetEndpoint(context.Background(), domain.WorkspaceID(""), domain.KeyMode{}, domain.WebhookEndpointID(ep.ID))
		if err == nil {
			t.Errorf("an endpoint was found outside its workspace: %v", stored.ID)
		}
		list, err := e.store.ListEndpoints(context.Background(), wsOf(t, e), domain.ModeTest)
		if err != nil || len(list) != 1 {
			t.Fatalf("ListEndpoints: %v %v", list, err)
		}
		signing := 0
		for _, s := range list[0].Secrets {
			if s.ActiveAt(time.Now().Add(23 * time.Hour)) {
				signing++
			}
		}
		if len(list[0].Secrets) != 2 || signing != 2 || list[0].Secrets[0].Plaintext() != *rot.Secret || list[0].Secrets[1].Plaintext() != *ep.Secret {
			t.Errorf("after rotation the secrets are %d (%d signing in 23 h), want the new then the old, both signing", len(list[0].Secrets), signing)
		}

		// The test event: written with one delivery, to this endpoint.
		res, raw = e.do(t, "POST", path+"/test", k, "")
		ev := decode[struct {
			ID, Type, Mode, Timestamp string
			Data                      struct{ Endpoint struct{ ID string } }
		}](t, raw)
		if res.StatusCode != 202 || ev.Type != "webhook.test" || ev.Mode != "test" || ev.Data.Endpoint.ID != ep.ID ||
			res.Header.Get("Location") != "/v1/events/"+ev.ID {
			t.Fatalf("test: %d %s", res.StatusCode, raw)
		}
		res, raw = e.do(t, "GET", "/v1/events/"+ev.ID, k, "")
		detail := decode[struct {
			ID         string
			Deliveries []struct {
				EndpointID, State string
				NextAttemptAt     *string
				Attempts          []any
			}
		}](t, raw)
		if res.StatusCode != 200 || len(detail.Deliveries) != 1 || detail.Deliveries[0].EndpointID != ep.ID ||
			detail.Deliveries[0].State != "pending" || detail.Deliveries[0].NextAttemptAt == nil || len(detail.Deliveries[0].Attempts) != 0 {
			t.Errorf("the test event: %d %s", res.StatusCode, raw)
		}

		// Recover from a past time: nothing given up, nothing missed (the
		// test event is pending already).
		res, raw = e.do(t, "POST", path+"/recover", k, `{"since":"2020-01-01T00:00:00Z"}`)
		if res.StatusCode != 202 || normalize(raw) != `{"deliveries":0}`+"\n" {
			t.Errorf("recover: %d %s", res.StatusCode, raw)
		}
		future := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
		e.run(t, []scenario{{"recover from the future", "POST", path + "/recover", k, `{"since":"` + future + `"}`, 422,
			problem(422, "invalid_parameter", "since", "since is in the future: nothing happened after it yet")}})

		res, raw = e.do(t, "DELETE", path, k, "")
		if res.StatusCode != 204 || raw != "" {
			t.Errorf("delete: %d %q", res.StatusCode, raw)
		}
		notFound := problem(404, "webhook_endpoint_not_found", "", "no webhook endpoint with this id")
		e.run(t, []scenario{
			{"get after delete", "GET", path, k, "", 404, notFound},
			{"delete twice", "DELETE", path, k, "", 404, notFound},
			{"test after delete", "POST", path + "/test", k, "", 404, notFound},
		})
		// The event stays, for the pull API; its delivery went with the
		// endpoint.
		if res, raw := e.do(t, "GET", "/v1/events/"+ev.ID, k, ""); res.StatusCode != 200 || !strings.Contains(raw, `"deliveries":[]`) {
			t.Errorf("the test event after its endpoint was deleted: %d %s", res.StatusCode, raw)
		}
	})
}

// wsOf is the default workspace's id.
func wsOf(t *testing.T, e *apiEnv) domain.WorkspaceID {
	t.Helper()
	ws, err := e.store.EnsureDefaultWorkspace(context.Background(), porttest.NewWorkspace(t))
	if err != nil {
		t.Fatal(err)
	}
	return ws.ID
}

// TestPullEvents: GET /v1/events lists the key's mode's events oldest
// first, in pages that neither skip nor repeat one, and resumes from the
// last cursor once more events are written; types filters; a cursor this
// API did not make, a limit out of range and an unknown type are refused.
// On every engine.
func TestPullEvents(t *testing.T) {
	t.Parallel()
	onEveryEngine(t, func(t *testing.T, e *apiEnv) {
		ctx := context.Background()
		ws := wsOf(t, e)
		ids := system.NewIDs()
		var written []string
		appendEvent := func(mode domain.KeyMode, typ domain.EventType) string {
			t.Helper()
			id := ids.NewID(domain.PrefixEvent)
			ev, err := messageEvent(t, domain.EventID(id), ws, mode, typ)
			if err != nil {
				t.Fatal(err)
			}
			if err := e.store.AppendEvents(ctx, ev); err != nil {
				t.Fatal(err)
			}
			if mode == domain.ModeTest {
				written = append(written, id)
			}
			return id
		}
		for i := range 5 {
			appendEvent(domain.ModeTest, []domain.EventType{domain.EventMessageSent, domain.EventMessageDelivered}[i%2])
		}
		live := appendEvent(domain.ModeLive, domain.EventMessageSent)
		k := e.keyed(e.key)

		// Not sequenced yet: not listed.
		_, raw := e.do(t, "GET", "/v1/events", k, "")
		first := decode[struct {
			Data       []struct{ ID string }
			NextCursor string
			HasMore    bool
		}](t, raw)
		if len(first.Data) != 0 || first.NextCursor == "" || first.HasMore {
			t.Errorf("before sequencing: %s", raw)
		}
		sequence(t, e.store)

		pull := func(cursor, extra string) (got []string, next string) {
			t.Helper()
			for range 20 {
				res, raw := e.do(t, "GET", "/v1/events?limit=2&after="+url.QueryEscape(cursor)+extra, k, "")
				page := decode[struct {
					Data []struct {
						ID, Type, Mode string
						Data           struct{ Mode, TemplateName string }
					}
					NextCursor string
					HasMore    bool
				}](t, raw)
				if res.StatusCode != 200 {
					t.Fatalf("pull: %d %s", res.StatusCode, raw)
				}
				for _, ev := range page.Data {
					if ev.Mode != "test" || ev.Data.Mode != "test" || ev.Data.TemplateName != "welcome" {
						t.Errorf("pulled %+v", ev)
					}
					got = append(got, ev.ID)
				}
				cursor = page.NextCursor
				if !page.HasMore {
					return got, cursor
				}
			}
			t.Fatal("the pull never ends")
			return nil, ""
		}
		got, cursor := pull(first.NextCursor, "")
		if !slices.Equal(got, written) || slices.Contains(got, live) {
			t.Errorf("pulled %v, want the test events %v in order", got, written)
		}
		sent, _ := pull("", "&types=message.sent&types=message.sent")
		if len(sent) != 3 || sent[0] != written[0] || sent[1] != written[2] || sent[2] != written[4] {
			t.Errorf("message.sent only: %v of %v", sent, written)
		}
		both, _ := pull("", "&types=message.sent,message.delivered")
		if !slices.Equal(both, written) {
			t.Errorf("two types: %v, want %v", both, written)
		}

		// From the last cursor, only what came after.
		later := appendEvent(domain.ModeTest, domain.EventMessageRead)
		sequence(t, e.store)
		if got, _ := pull(cursor, ""); !slices.Equal(got, []string{later}) {
			t.Errorf("resumed pull: %v, want [%s]", got, later)
		}

		badAfter := problemBody(422, "invalid_parameter", "Invalid parameter", "after",
			"after is not a cursor this API returned: pass the nextCursor of a previous page, or nothing to start from the oldest event kept")
		e.run(t, []scenario{
			{"a made-up cursor", "GET", "/v1/events?after=12", k, "", 422, badAfter},
			{"another list's cursor", "GET", "/v1/events?after=" + written[0], k, "", 422, badAfter},
			{"a negative place", "GET", "/v1/events?after=" + base64.RawURLEncoding.EncodeToString([]byte("seq:-1")), k, "", 422, badAfter},
			{"limit 0", "GET", "/v1/events?limit=0", k, "", 422,
				problemBody(422, "invalid_parameter", "Invalid parameter", "limit", "limit must be between 1 and 1000")},
			{"limit 1001", "GET", "/v1/events?limit=1001", k, "", 422,
				problemBody(422, "invalid_parameter", "Invalid parameter", "limit", "limit must be between 1 and 1000")},
			{"limit x", "GET", "/v1/events?limit=x", k, "", 422,
				problemBody(422, "invalid_parameter", "Invalid parameter", "limit", "limit must be a whole number between 1 and 1000")},
			{"an unknown type", "GET", "/v1/events?types=message.sent,message.bounced", k, "", 422,
				problemBody(422, "invalid_event_type", "Invalid event type", "types",
					`unknown event type "message.bounced"; the types are message.sent, message.delivered, message.read, message.failed, message.received, contact.opted_out, contact.opted_in, template.status_changed, campaign.status_changed, phone_number.quality_changed, webhook.test`)},
		})
	})
}

// messageEvent is an event of type typ about a new message of the
// workspace and mode, its data rendered as the app renders it.
func messageEvent(t *testing.T, id domain.EventID, ws domain.WorkspaceID, mode domain.KeyMode, typ domain.EventType) (domain.Event, error) {
	t.Helper()
	ids := system.NewIDs()
	now := time.Now().UTC().Truncate(time.Microsecond)
	msg := domain.Message{ID: domain.MessageID(ids.NewID(domain.PrefixMessage)), Workspace: ws, Mode: mode,
		CampaignID: domain.CampaignID(ids.NewID(domain.PrefixCampaign)), ContactID: domain.ContactID(ids.NewID(domain.PrefixContact)),
		Phone: domain.MustPhoneNumber("+14155550100"), TemplateName: "welcome", Language: "en_US", RenderedBody: "Hi",
		Status: domain.StatusSent, History: []domain.StatusChange{{Status: domain.StatusSent, At: now}}, CreatedAt: now, UpdatedAt: now}
	data, err := httpapi.NewEventRenderer().RenderMessage(msg)
	if err != nil {
		t.Fatal(err)
	}
	return domain.NewEvent(id, ws, mode, typ, string(msg.ID), data, now)
}

// TestEventAttemptsAndRedeliver: GET /v1/events/{id} shows each attempt
// (time, status, duration, error, the head of the answer); a given-up
// delivery is sent again by redeliver, to every matching endpoint or to
// the one named. On every engine.
func TestEventAttemptsAndRedeliver(t *testing.T) {
	t.Parallel()
	onEveryEngine(t, func(t *testing.T, e *apiEnv) {
		ctx := context.Background()
		k := e.keyed(e.key)
		ep := e.createEndpoint(t, e.key, `{"url":"https://hooks.example.com/a","events":["message.failed"]}`)
		other := e.createEndpoint(t, e.key, `{"url":"https://hooks.example.com/b","events":["*"]}`)
		ids := system.NewIDs()
		evID := ids.NewID(domain.PrefixEvent)
		ev, err := messageEvent(t, domain.EventID(evID), wsOf(t, e), domain.ModeTest, domain.EventMessageFailed)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.store.AppendEvents(ctx, ev); err != nil {
			t.Fatal(err)
		}
		// One attempt each: the first endpoint answers 500 and is given up,
		// the second does not answer at all.
		now := time.Now()
		claimed, err := e.store.ClaimDeliveries(ctx, ports.DeliveryClaim{Owner: "w", Now: now.Add(time.Second), LeaseUntil: now.Add(time.Minute), Limit: 10})
		if err != nil || len(claimed) != 2 {
			t.Fatalf("claim: %d, %v", len(claimed), err)
		}
		for _, c := range claimed {
			rec := ports.AttemptRecord{Owner: "w", Attempt: c.Attempt, State: domain.DeliveryGivenUp,
				DeliveryAttempt: domain.DeliveryAttempt{Event: c.Event.ID, Endpoint: c.Endpoint.ID, At: now, Duration: 1500 * time.Microsecond}}
			if string(c.Endpoint.ID) == ep.ID {
				rec.Status, rec.ResponseHead = 500, []byte("oops \xff")
			} else {
				rec.Error = "no answer within 15 s"
			}
			if _, err := e.store.RecordAttempt(ctx, rec, nil); err != nil {
				t.Fatal(err)
			}
		}
		res, raw := e.do(t, "GET", "/v1/events/"+evID, k, "")
		type attempt struct {
			At         string
			StatusCode *int
			DurationMs float64
			Error      *string
			Response   string
		}
		type delivery struct {
			EndpointID, State string
			Attempts          []attempt
		}
		detail := decode[struct{ Deliveries []delivery }](t, raw)
		if res.StatusCode != 200 || len(detail.Deliveries) != 2 {
			t.Fatalf("event: %d %s", res.StatusCode, raw)
		}
		for _, d := range detail.Deliveries {
			if d.State != "given_up" || len(d.Attempts) != 1 || d.Attempts[0].DurationMs != 1.5 {
				t.Errorf("delivery %+v", d)
				continue
			}
			a := d.Attempts[0]
			switch d.EndpointID {
			case ep.ID:
				if a.StatusCode == nil || *a.StatusCode != 500 || a.Error != nil || a.Response != "oops \uFFFD" {
					t.Errorf("the 500's attempt: %s", raw)
				}
			case other.ID:
				if a.StatusCode != nil || a.Error == nil || *a.Error != "no answer within 15 s" || a.Response != "" {
					t.Errorf("the silent endpoint's attempt: %s", raw)
				}
			}
		}

		redeliver := func(body string) string {
			t.Helper()
			h := k
			if body == "" {
				h = map[string]string{"X-API-KEY": e.key}
			}
			res, raw := e.do(t, "POST", "/v1/events/"+evID+"/redeliver", h, body)
			if res.StatusCode != 202 {
				t.Fatalf("redeliver %s: %d %s", body, res.StatusCode, raw)
			}
			return strings.TrimSpace(raw)
		}
		if got := redeliver(`{"endpointId":"` + ep.ID + `"}`); got != `{"deliveries":1}` {
			t.Errorf("redeliver to one endpoint: %s", got)
		}
		if got := redeliver(""); got != `{"deliveries":1}` {
			t.Errorf("redeliver to every endpoint, one still pending: %s", got)
		}
		_, raw = e.do(t, "GET", "/v1/events/"+evID, k, "")
		for _, d := range decode[struct{ Deliveries []delivery }](t, raw).Deliveries {
			if d.State != "pending" || len(d.Attempts) != 1 {
				t.Errorf("after redelivery: %+v, want pending with its past attempt kept", d)
			}
		}
		e.run(t, []scenario{
			{"redeliver an unknown event", "POST", "/v1/events/evt_nope/redeliver", k, "", 404,
				problemBody(404, "event_not_found", "Event not found", "", "no event with this id")},
			{"redeliver to an unknown endpoint", "POST", "/v1/events/" + evID + "/redeliver", k, `{"endpointId":"whe_nope"}`, 404,
				problemBody(404, "webhook_endpoint_not_found", "Webhook endpoint not found", "", "no webhook endpoint with this id")},
			{"get an unknown event", "GET", "/v1/events/" + ids.NewID(domain.PrefixEvent), k, "", 404,
				problemBody(404, "event_not_found", "Event not found", "", "no event with this id")},
		})
	})
}

// TestListMessages: GET /v1/messages lists the key's mode's messages
// newest first, each exactly as GET /v1/messages/{id} shows it, in pages;
// the filters combine; bad filters are refused. On every engine.
func TestListMessages(t *testing.T) {
	t.Parallel()
	onEveryEngine(t, func(t *testing.T, e *apiEnv) {
		send := func(key, phone, campaign string) string {
			t.Helper()
			res, raw := e.do(t, "POST", sendURL, e.keyed(key), sendBody(phone, campaign, "Ana", "1234"))
			if res.StatusCode != 202 {
				t.Fatalf("send: %d %s", res.StatusCode, raw)
			}
			return decode[map[string]string](t, raw)["id"]
		}
		var test []string
		for i := range 5 {
			campaign := e.active
			if i == 2 {
				campaign = e.image
			}
			if i == 2 {
				res, raw := e.do(t, "POST", sendURL, e.keyed(e.key), `{"phoneNumber":"+14155552672","campaignId":"`+campaign+
					`","variables":["Ana","1234"],"mediaHeaderUrl":"https://cdn.example.com/a.png"}`)
				if res.StatusCode != 202 {
					t.Fatalf("send: %d %s", res.StatusCode, raw)
				}
				test = append(test, decode[map[string]string](t, raw)["id"])
				continue
			}
			test = append(test, send(e.key, phone, campaign))
		}
		liveID := send(e.liveKey, phone, e.active)
		slices.Reverse(test) // newest first

		list := func(key, query string) []string {
			t.Helper()
			var ids []string
			u := "/v1/messages?limit=2" + query
			for range 20 {
				res, raw := e.do(t, "GET", u, e.keyed(key), "")
				if res.StatusCode != 200 {
					t.Fatalf("GET %s: %d %s", u, res.StatusCode, raw)
				}
				page := decode[struct {
					Data       []map[string]any
					NextCursor *string
				}](t, raw)
				for _, m := range page.Data {
					id := m["id"].(string)
					ids = append(ids, id)
					_, one := e.do(t, "GET", "/v1/messages/"+id, e.keyed(key), "")
					if fmt.Sprint(decode[map[string]any](t, one)) != fmt.Sprint(m) {
						t.Errorf("listed %v, but GET /v1/messages/%s shows %s", m, id, one)
					}
				}
				if page.NextCursor == nil {
					return ids
				}
				u = "/v1/messages?limit=2" + query + "&cursor=" + url.QueryEscape(*page.NextCursor)
			}
			t.Fatal("the list never ends")
			return nil
		}
		if got := list(e.key, ""); !slices.Equal(got, test) {
			t.Errorf("test key: %v, want %v", got, test)
		}
		if got := list(e.liveKey, ""); !slices.Equal(got, []string{liveID}) {
			t.Errorf("live key: %v, want [%s]", got, liveID)
		}
		if got := list(e.key, "&campaignId="+e.image); !slices.Equal(got, []string{test[2]}) {
			t.Errorf("by campaign: %v", got)
		}
		if got := list(e.key, "&phoneNumber=%2B14155552672"); !slices.Equal(got, []string{test[2]}) {
			t.Errorf("by phone: %v", got)
		}
		if got := list(e.key, "&status=queued&campaignId="+e.active); !slices.Equal(got, []string{test[0], test[1], test[3], test[4]}) {
			t.Errorf("by status and campaign: %v", got)
		}
		if got := list(e.key, "&status=delivered"); len(got) != 0 {
			t.Errorf("delivered: %v", got)
		}
		future := url.QueryEscape(time.Now().Add(time.Hour).UTC().Format(time.RFC3339))
		past := url.QueryEscape(time.Now().Add(-time.Hour).UTC().Format(time.RFC3339))
		if got := list(e.key, "&since="+past+"&until="+future); !slices.Equal(got, test) {
			t.Errorf("since an hour ago until in an hour: %v", got)
		}
		if got := list(e.key, "&since="+future); len(got) != 0 {
			t.Errorf("since in an hour: %v", got)
		}
		k := e.keyed(e.key)
		e.run(t, []scenario{
			{"an unknown status", "GET", "/v1/messages?status=lost", k, "", 422,
				problemBody(422, "invalid_parameter", "Invalid parameter", "status", "status must be one of queued, sending, sent, delivered, read, failed")},
			{"a malformed campaign id", "GET", "/v1/messages?campaignId=x", k, "", 422,
				problemBody(422, "invalid_parameter", "Invalid parameter", "campaignId", "campaignId is not a campaign id (cmp_…)")},
			{"a malformed number", "GET", "/v1/messages?phoneNumber=12", k, "", 422,
				problemBody(422, "invalid_phone_number", "Invalid phone number", "phoneNumber", `the phone number must be in E.164 form, starting with "+" and the country code`)},
			{"a malformed since", "GET", "/v1/messages?since=monday", k, "", 422,
				problemBody(422, "invalid_parameter", "Invalid parameter", "since", "since must be a time in RFC 3339 form, such as 2026-11-22T10:00:00Z")},
			{"until before since", "GET", "/v1/messages?since=" + future + "&until=" + past, k, "", 422,
				problemBody(422, "invalid_parameter", "Invalid parameter", "until", "until must be after since")},
			{"limit 101", "GET", "/v1/messages?limit=101", k, "", 422,
				problemBody(422, "invalid_parameter", "Invalid parameter", "limit", "limit must be between 1 and 100")},
			{"another workspace's campaign", "GET", "/v1/messages?campaignId=" + e.otherCampaign, k, "", 200, `{"data":[],"nextCursor":null}`},
		})
	})
}
