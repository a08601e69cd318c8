package dashboard_test

import (
	"context"
	"crypto/rand"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/adapters/dashboard"
	"github.com/heraldhq/herald/adapters/memstore"
	"github.com/heraldhq/herald/adapters/system"
	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/app/events"
	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/ports/portsmock"
)

// newWebhookDeps are the Webhooks page's use cases over st, with a poster
// that resolves no name (every URL that passes the rules is accepted) and
// a renderer of test events.
func newWebhookDeps(st *memstore.Store) dashboard.WebhookDeps {
	clock, ids, obs := system.Clock{}, system.NewIDs(), usecase.NewObserver(nil)
	poster := &portsmock.EventPosterMock{CheckURLFunc: func(context.Context, string) error { return nil }}
	render := &portsmock.EventRendererMock{RenderTestFunc: func(e domain.WebhookEndpoint) ([]byte, error) {
		return []byte(`{"endpoint":{"id":"` + string(e.ID) + `"}}`), nil
	}}
	list := events.NewListEndpointsHandler(st, st, obs)
	return dashboard.WebhookDeps{
		CreateEndpoint: events.NewCreateEndpointHandler(st, poster, domain.WebhookPolicy{}, clock, ids, rand.Reader, obs),
		ListEndpoints:  list,
		GetEndpoint:    events.NewGetEndpointHandler(st, obs),
		UpdateEndpoint: events.NewUpdateEndpointHandler(st, poster, domain.WebhookPolicy{}, clock, obs),
		DeleteEndpoint: events.NewDeleteEndpointHandler(st, obs),
		RotateSecret:   events.NewRotateEndpointSecretHandler(st, clock, rand.Reader, obs),
		SendTest:       events.NewSendTestEventHandler(st, st, render, clock, ids, obs),
		Redeliver:      events.NewRedeliverEventHandler(st, st, clock, obs),
	}
}

// defaultWorkspace is the operator's workspace.
func (e *env) defaultWorkspace(t *testing.T) domain.WorkspaceID {
	t.Helper()
	ks, err := e.createKey.Handle(context.Background(), app.CreateKey{Name: "probe", Mode: domain.ModeTest})
	if err != nil {
		t.Fatal(err)
	}
	return ks.Key.Workspace
}

var secretPattern = regexp.MustCompile(`whsec_[A-Za-z0-9+/]{43}=`)

// TestWebhooksPage: an operator adds an endpoint (its secret shown once),
// sees it with its mode and events, sends it a test event, sees the
// attempt with its answer and redelivers it, disables and re-enables it
// (a disabled endpoint says why and since when), rotates its secret
// (shown once) and deletes it; a refused URL keeps what was entered.
func TestWebhooksPage(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dashboard.Config{})
	b := e.browser(t)
	b.login()
	res, body := b.get("/dashboard/webhooks")
	wantStatus(t, res, body, http.StatusOK)
	if !strings.Contains(body, "No endpoints yet.") || !strings.Contains(body, `value="message.delivered"`) || strings.Contains(body, `value="webhook.test"`) {
		t.Fatalf("the empty Webhooks page:\n%s", body)
	}

	res, body = b.post("/dashboard/webhooks", url.Values{"url": {"http://hooks.example.com/x"}, "description": {"CRM"},
		"mode": {"live"}, "events": {"message.failed"}})
	wantStatus(t, res, body, http.StatusUnprocessableEntity)
	if !strings.Contains(body, "must use https") || !strings.Contains(body, `value="http://hooks.example.com/x"`) ||
		!regexp.MustCompile(`value="message.failed"\s+checked`).MatchString(body) {
		t.Errorf("a refused URL: the page does not say why or lost the form:\n%s", body)
	}

	res, body = b.post("/dashboard/webhooks", url.Values{"url": {"https://hooks.example.com/herald"}, "description": {"CRM"},
		"mode": {"live"}, "events": {"message.failed", "message.delivered"}})
	wantStatus(t, res, body, http.StatusCreated)
	secret := secretPattern.FindString(body)
	if secret == "" || res.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("the new endpoint's page shows no secret, or may be cached:\n%s", body)
	}
	eps, err := e.deps.Webhooks.ListEndpoints.Handle(context.Background(), events.ListEndpoints{Workspace: e.defaultWorkspace(t)})
	if err != nil || len(eps) != 1 {
		t.Fatalf("endpoints: %v %v", eps, err)
	}
	ep := eps[0]
	if ep.Mode != domain.ModeLive || strings.Join(ep.Events.Names(), ",") != "message.delivered,message.failed" || ep.Description != "CRM" {
		t.Errorf("the endpoint made: %+v", ep)
	}
	_, body = b.get("/dashboard/webhooks")
	if strings.Contains(body, secret) || strings.Contains(body, secret[6:20]) || !strings.Contains(body, "https://hooks.example.com/herald") {
		t.Errorf("the Webhooks page shows the secret again, or not the endpoint:\n%s", body)
	}

	page := "/dashboard/webhooks/" + string(ep.ID)
	res, body = b.get(page)
	wantStatus(t, res, body, http.StatusOK)
	if !strings.Contains(body, "No attempts yet.") || strings.Contains(body, secret) {
		t.Errorf("the endpoint's page:\n%s", body)
	}
	res, body = b.post(page+"/test", url.Values{})
	wantStatus(t, res, body, http.StatusOK)
	if !strings.Contains(body, "webhook.test event was sent") {
		t.Errorf("after the test:\n%s", body)
	}

	// The worker's attempt (recorded here as it would be): a 500 with a
	// body, shown with its status and answer, and redelivered.
	e.recordAttempt(t, 500, "upstream said no <b>")
	_, body = b.get(page)
	if !strings.Contains(body, ">500<") || !strings.Contains(body, "upstream said no <b>") || !strings.Contains(body, "1.5 ms") {
		t.Errorf("the attempt is not shown with its status, answer and time:\n%s", body)
	}
	evID := regexp.MustCompile(`name="event" value="(evt_[0-9a-z]+)"`).FindStringSubmatch(body)
	if evID == nil {
		t.Fatalf("no redeliver form:\n%s", body)
	}
	res, body = b.post(page+"/redeliver", url.Values{"event": {evID[1]}})
	wantStatus(t, res, body, http.StatusOK)
	if !strings.Contains(body, "is sent again now") {
		t.Errorf("after redeliver:\n%s", body)
	}
	d, err := e.store.ListDeliveries(context.Background(), e.defaultWorkspace(t), domain.ModeLive, domain.EventID(evID[1]))
	if err != nil || len(d) != 1 || d[0].State != domain.DeliveryPending || d[0].NextAttemptAt == nil {
		t.Errorf("the redelivered delivery: %+v %v", d, err)
	}

	res, body = b.post(page+"/status", url.Values{"status": {"disabled"}})
	wantStatus(t, res, body, http.StatusOK)
	if !regexp.MustCompile(`disabled</span> <small>by hand, since \d{4}-\d\d-\d\d \d\d:\d\d UTC`).MatchString(body) {
		t.Errorf("a disabled endpoint does not say why and since when:\n%s", body)
	}
	_, body = b.get("/dashboard/webhooks")
	if !strings.Contains(body, "by hand, since") || !strings.Contains(body, `value="enabled"`) {
		t.Errorf("the list does not show the disabled endpoint with a way to enable it:\n%s", body)
	}
	res, body = b.post(page+"/status", url.Values{"status": {"enabled"}})
	wantStatus(t, res, body, http.StatusOK)
	if !strings.Contains(body, `<span class="badge on">enabled</span>`) {
		t.Errorf("after enabling:\n%s", body)
	}
	res, body = b.post(page+"/status", url.Values{"status": {"paused"}})
	wantStatus(t, res, body, http.StatusUnprocessableEntity)

	res, body = b.post(page+"/rotate", url.Values{})
	wantStatus(t, res, body, http.StatusOK)
	rotated := secretPattern.FindString(body)
	if rotated == "" || rotated == secret || res.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("the rotated secret is not shown once:\n%s", body)
	}
	if _, body = b.get(page); strings.Contains(body, rotated) {
		t.Error("the endpoint's page shows the rotated secret again")
	}

	res, _ = b.post(page+"/delete", url.Values{})
	wantRedirect(t, res, "/dashboard/webhooks")
	res, body = b.get(page)
	wantStatus(t, res, body, http.StatusNotFound)
}

// recordAttempt claims the one due delivery and records an attempt that
// the endpoint answered with status and body, as the worker does.
func (e *env) recordAttempt(t *testing.T, status int, answer string) {
	t.Helper()
	ctx := context.Background()
	now := time.Now()
	claimed, err := e.store.ClaimDeliveries(ctx, ports.DeliveryClaim{Owner: "w", Now: now.Add(time.Second), LeaseUntil: now.Add(time.Minute), Limit: 1})
	if err != nil || len(claimed) != 1 {
		t.Fatalf("claim: %d %v", len(claimed), err)
	}
	c := claimed[0]
	if _, err := e.store.RecordAttempt(ctx, ports.AttemptRecord{Owner: "w", Attempt: c.Attempt, State: domain.DeliveryGivenUp,
		DeliveryAttempt: domain.DeliveryAttempt{Event: c.Event.ID, Endpoint: c.Endpoint.ID, At: now, Status: status,
			Duration: 1500 * time.Microsecond, ResponseHead: []byte(answer)}}, nil); err != nil {
		t.Fatal(err)
	}
}

// TestAnotherWorkspacesEndpointIsNotFound: an endpoint of another
// workspace has no page, and its forms change nothing.
func TestAnotherWorkspacesEndpointIsNotFound(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dashboard.Config{})
	theirs, err := e.deps.Webhooks.CreateEndpoint.Handle(context.Background(), events.CreateEndpoint{Workspace: e.other,
		Mode: domain.ModeTest, URL: "https://hooks.example.com/theirs", Events: []string{"*"}})
	if err != nil {
		t.Fatal(err)
	}
	b := e.browser(t)
	b.login()
	b.get("/dashboard/webhooks")
	page := "/dashboard/webhooks/" + string(theirs.Endpoint.ID)
	res, body := b.get(page)
	wantStatus(t, res, body, http.StatusNotFound)
	for _, action := range []string{"/status", "/test", "/rotate", "/delete"} {
		res, body := b.post(page+action, url.Values{"status": {"disabled"}})
		wantStatus(t, res, body, http.StatusNotFound)
	}
	got, err := e.deps.Webhooks.GetEndpoint.Handle(context.Background(), events.GetEndpoint{Workspace: e.other, ID: string(theirs.Endpoint.ID)})
	if err != nil || got.Status != domain.EndpointEnabled || len(got.Secrets) != 1 {
		t.Errorf("the other workspace's endpoint changed: %+v %v", got, err)
	}
}
