package domain_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/heraldhq/herald/domain"
)

func TestCheckWebhookURL(t *testing.T) {
	t.Parallel()
	strict := domain.WebhookPolicy{}
	httpOK := domain.WebhookPolicy{AllowHTTP: true}
	local := domain.WebhookPolicy{AllowHTTP: true, AllowedHosts: []string{"127.0.0.1", "receiver.internal:8080"}}
	cases := []struct {
		policy domain.WebhookPolicy
		url    string
		detail string // empty: accepted
	}{
		{strict, "https://hooks.example.com/herald", ""},
		{strict, "https://hooks.example.com:8443/herald?token=abc", ""},
		{strict, "https://bücher.example/hook", ""},
		{strict, "https://93.184.215.14/hook", ""},
		{strict, "http://hooks.example.com/herald", "the webhook URL must use https"},
		{httpOK, "http://hooks.example.com/herald", ""},
		{strict, "ftp://hooks.example.com/", "must use https"},
		{strict, "hooks.example.com/herald", "must be an absolute https URL"},
		{strict, "/herald", "must be an absolute https URL"},
		{strict, "https:///herald", "must be an absolute https URL"},
		{strict, "", "must be an absolute https URL"},
		{strict, "https://user:pass@hooks.example.com/", "must not carry credentials"},
		{strict, "https://token@hooks.example.com/", "must not carry credentials"},
		{strict, "https://hooks.example.com/herald#part", "must not have a fragment"},
		{strict, "https://hooks.example.com/herald#", "must not have a fragment"},
		{strict, "https://hooks.example.com/" + strings.Repeat("a", 2048), "longer than 2048 characters"},
		{strict, "https://127.0.0.1/hook", "must point to a public address"},
		{strict, "https://10.1.2.3/hook", "must point to a public address"},
		{strict, "https://169.254.169.254/latest/meta-data/", "must point to a public address"},
		{strict, "https://[::1]/hook", "must point to a public address"},
		{strict, "https://[fd00:ec2::254]/hook", "must point to a public address"},
		{strict, "https://[::ffff:127.0.0.1]/hook", "must point to a public address"},
		{strict, "https://0.0.0.0/hook", "must point to a public address"},
		{strict, "https://localhost/hook", "must point to a public host"},
		{strict, "https://api.localhost/hook", "must point to a public host"},
		{strict, "https://2130706433/hook", "standard dotted form"},
		{strict, "https://0x7f.1/hook", "standard dotted form"},
		{strict, "https://１２７.０.０.１/hook", "must point to a public address"},
		// The allowed list exempts its hosts, on any port or the one given.
		{local, "http://127.0.0.1:9000/hook", ""},
		{local, "http://receiver.internal:8080/hook", ""},
		{local, "http://receiver.internal:8081/hook", ""}, // a name: where it leads is the dial guard's business
		{local, "http://127.0.0.2:9000/hook", "must point to a public address"},
		{local, "http://user:pw@127.0.0.1:9000/hook", "must not carry credentials"},
		{local, "http://127.0.0.1:9000/hook#x", "must not have a fragment"},
	}
	for _, c := range cases {
		err := domain.CheckWebhookURL(c.url, c.policy)
		if c.detail == "" {
			if err != nil {
				t.Errorf("CheckWebhookURL(%q, %+v): %v", c.url, c.policy, err)
			}
			continue
		}
		var de *domain.Error
		if !errors.As(err, &de) || de.Code != domain.CodeInvalidWebhookURL || de.Param != "url" || !strings.Contains(de.Detail, c.detail) {
			t.Errorf("CheckWebhookURL(%q, %+v) = %v, want invalid_webhook_url on url saying %q", c.url, c.policy, err, c.detail)
		}
	}
}

// TestWebhookAndMediaURLRulesAgree: a URL Herald calls is judged alike
// whether it is a media header or a webhook endpoint, fragments apart.
func TestWebhookAndMediaURLRulesAgree(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{"https://ok.example/x", "http://ok.example/x", "https://127.0.0.1/x", "https://localhost/x",
		"https://u:p@ok.example/x", "https://017700000001/x", "https://[::1]:8443/x", "http://10.0.0.7/x", "x", "https://ok.example:99999/x"} {
		for _, allowHTTP := range []bool{false, true} {
			hosts := []string{"10.0.0.7"}
			m := domain.CheckMediaURL(raw, domain.MediaPolicy{AllowHTTP: allowHTTP, AllowedHosts: hosts})
			w := domain.CheckWebhookURL(raw, domain.WebhookPolicy{AllowHTTP: allowHTTP, AllowedHosts: hosts})
			if (m == nil) != (w == nil) {
				t.Errorf("%q (http %v): media %v, webhook %v", raw, allowHTTP, m, w)
			}
		}
	}
}

func TestWebhookPolicyAllows(t *testing.T) {
	t.Parallel()
	p := domain.WebhookPolicy{AllowedHosts: []string{"receiver.internal", "127.0.0.1:9000", "::1"}}
	for hostport, want := range map[string]bool{
		"receiver.internal:443":   true,
		"RECEIVER.internal.:8080": true,
		"127.0.0.1:9000":          true,
		"127.0.0.1:9001":          false,
		"[::1]:1":                 true,
		"other.internal:443":      false,
		"receiver.internal":       false,
	} {
		if got := p.Allows(hostport); got != want {
			t.Errorf("Allows(%q) = %v, want %v", hostport, got, want)
		}
	}
}

var (
	key1 = bytes.Repeat([]byte{1}, 32)
	key2 = bytes.Repeat([]byte{2}, 32)
	key3 = bytes.Repeat([]byte{3}, 32)
)

func newEndpoint(t *testing.T) domain.WebhookEndpoint {
	t.Helper()
	sub, err := domain.ParseEventSubscription([]string{"message.delivered", "message.failed"})
	if err != nil {
		t.Fatal(err)
	}
	e, err := domain.NewWebhookEndpoint("whe_1", "wsp_1", domain.ModeLive,
		domain.EndpointSpec{URL: " https://hooks.example.com/herald ", Events: sub, Description: "  CRM sync "}, key1, domain.WebhookPolicy{}, t0)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

var endpointCmp = cmp.Options{
	cmp.AllowUnexported(domain.KeyMode{}, domain.EndpointStatus{}, domain.DisabledReason{}),
	cmpopts.EquateEmpty(),
}

func TestNewWebhookEndpoint(t *testing.T) {
	t.Parallel()
	got := newEndpoint(t)
	sub, _ := domain.ParseEventSubscription([]string{"message.delivered", "message.failed"})
	want := domain.WebhookEndpoint{ID: "whe_1", Workspace: "wsp_1", Mode: domain.ModeLive, URL: "https://hooks.example.com/herald",
		Events: sub, Description: "CRM sync", Status: domain.EndpointEnabled,
		Secrets: []domain.EndpointSecret{{Key: key1, CreatedAt: t0}}, CreatedAt: t0, UpdatedAt: t0}
	if diff := cmp.Diff(want, got, endpointCmp); diff != "" {
		t.Fatalf("NewWebhookEndpoint (-want +got):\n%s", diff)
	}

	ok := domain.EndpointSpec{URL: "https://hooks.example.com/", Events: domain.AllEvents()}
	cases := []struct {
		name  string
		mode  domain.KeyMode
		spec  domain.EndpointSpec
		key   []byte
		code  domain.Code
		param string
	}{
		{"a private URL", domain.ModeLive, domain.EndpointSpec{URL: "https://192.168.1.1/", Events: domain.AllEvents()}, key1, domain.CodeInvalidWebhookURL, "url"},
		{"no URL", domain.ModeLive, domain.EndpointSpec{Events: domain.AllEvents()}, key1, domain.CodeInvalidWebhookURL, "url"},
		{"no events", domain.ModeLive, domain.EndpointSpec{URL: ok.URL}, key1, domain.CodeInvalidEventType, "events"},
		{"a long description", domain.ModeLive, domain.EndpointSpec{URL: ok.URL, Events: ok.Events, Description: strings.Repeat("é", 501)}, key1, domain.CodeInvalidParameter, "description"},
		{"a NUL in the description", domain.ModeLive, domain.EndpointSpec{URL: ok.URL, Events: ok.Events, Description: "a\x00b"}, key1, domain.CodeInvalidParameter, "description"},
		{"no mode", domain.KeyMode{}, ok, key1, domain.CodeInvalidParameter, "mode"},
		{"a short key", domain.ModeLive, ok, key1[:16], domain.CodeInvalidParameter, "secret"},
	}
	for _, c := range cases {
		_, err := domain.NewWebhookEndpoint("whe_1", "wsp_1", c.mode, c.spec, c.key, domain.WebhookPolicy{}, t0)
		var de *domain.Error
		if !errors.As(err, &de) || de.Code != c.code || de.Param != c.param {
			t.Errorf("%s: %v, want %s on %s", c.name, err, c.code, c.param)
		}
	}
	if _, err := domain.NewWebhookEndpoint("whe_1", "wsp_1", domain.ModeTest, domain.EndpointSpec{URL: "http://127.0.0.1:9000/", Events: domain.AllEvents(),
		Description: strings.Repeat("é", 500)}, key1, domain.WebhookPolicy{AllowHTTP: true, AllowedHosts: []string{"127.0.0.1"}}, t0); err != nil {
		t.Errorf("an allowed local receiver with the longest description: %v", err)
	}
	// The endpoint holds its own copy of the key.
	k := bytes.Clone(key1)
	e, _ := domain.NewWebhookEndpoint("whe_1", "wsp_1", domain.ModeLive, ok, k, domain.WebhookPolicy{}, t0)
	k[0] = 9
	if e.Secrets[0].Key[0] != 1 {
		t.Error("the endpoint shares the caller's key slice")
	}
}

func TestWebhookEndpointChange(t *testing.T) {
	t.Parallel()
	later := t0.Add(time.Hour)
	url, desc := "https://other.example.com/h", "new"
	sub := domain.AllEvents()
	e := newEndpoint(t)
	if err := e.Change(domain.EndpointChange{URL: &url, Events: &sub, Description: &desc}, domain.WebhookPolicy{}, later); err != nil {
		t.Fatal(err)
	}
	if e.URL != url || !e.Events.All() || e.Description != desc || !e.UpdatedAt.Equal(later) || !e.CreatedAt.Equal(t0) {
		t.Fatalf("after Change: %+v", e)
	}

	// Nothing changes unless every field is valid.
	before := newEndpoint(t)
	e = before
	bad := "https://127.0.0.1/"
	if err := e.Change(domain.EndpointChange{URL: &bad, Description: &desc}, domain.WebhookPolicy{}, later); !errors.Is(err, domain.ErrInvalidWebhookURL) {
		t.Fatalf("a private URL: %v", err)
	}
	empty := domain.EventSubscription{}
	if err := e.Change(domain.EndpointChange{URL: &url, Events: &empty}, domain.WebhookPolicy{}, later); !errors.Is(err, domain.ErrInvalidEventType) {
		t.Fatalf("no events: %v", err)
	}
	long := strings.Repeat("x", 501)
	if err := e.Change(domain.EndpointChange{URL: &url, Description: &long}, domain.WebhookPolicy{}, later); !errors.Is(err, domain.ErrInvalidParameter) {
		t.Fatalf("a long description: %v", err)
	}
	if diff := cmp.Diff(before, e, endpointCmp); diff != "" {
		t.Fatalf("a refused change changed the endpoint (-before +after):\n%s", diff)
	}
	// An empty change keeps everything but the update time.
	if err := e.Change(domain.EndpointChange{}, domain.WebhookPolicy{}, later); err != nil || e.URL != before.URL {
		t.Fatalf("an empty change: %v, %+v", err, e)
	}
}

func TestWebhookEndpointRotate(t *testing.T) {
	t.Parallel()
	e := newEndpoint(t)
	r1 := t0.Add(10 * time.Hour)
	if err := e.Rotate(key2, r1); err != nil {
		t.Fatal(err)
	}
	exp1 := r1.Add(24 * time.Hour)
	want := []domain.EndpointSecret{{Key: key2, CreatedAt: r1}, {Key: key1, CreatedAt: t0, ExpiresAt: &exp1}}
	if diff := cmp.Diff(want, e.Secrets); diff != "" {
		t.Fatalf("after the first rotation (-want +got):\n%s", diff)
	}
	if !e.UpdatedAt.Equal(r1) {
		t.Errorf("UpdatedAt = %v", e.UpdatedAt)
	}

	// A second rotation within the day: key1 keeps its earlier expiry,
	// key2 now expires a day after this rotation.
	r2 := r1.Add(2 * time.Hour)
	if err := e.Rotate(key3, r2); err != nil {
		t.Fatal(err)
	}
	exp2 := r2.Add(24 * time.Hour)
	want = []domain.EndpointSecret{{Key: key3, CreatedAt: r2}, {Key: key2, CreatedAt: r1, ExpiresAt: &exp2}, {Key: key1, CreatedAt: t0, ExpiresAt: &exp1}}
	if diff := cmp.Diff(want, e.Secrets); diff != "" {
		t.Fatalf("after the second rotation (-want +got):\n%s", diff)
	}
	// Signing at r2 uses all three, newest first.
	if n := len(strings.Fields(domain.SignWebhook(e.Secrets, "evt_1", r2, []byte("{}")))); n != 3 {
		t.Errorf("%d signatures during two overlaps, want 3", n)
	}
	// After key1's expiry only two sign; a day after r2, one.
	if n := len(strings.Fields(domain.SignWebhook(e.Secrets, "evt_1", exp1, []byte("{}")))); n != 2 {
		t.Errorf("%d signatures at key1's expiry, want 2", n)
	}
	if n := len(strings.Fields(domain.SignWebhook(e.Secrets, "evt_1", exp2, []byte("{}")))); n != 1 {
		t.Errorf("%d signatures at key2's expiry, want 1", n)
	}

	// A rotation after the overlaps ended drops the expired secrets.
	r3 := exp2.Add(time.Minute)
	if err := e.Rotate(key1, r3); err != nil {
		t.Fatal(err)
	}
	exp3 := r3.Add(24 * time.Hour)
	want = []domain.EndpointSecret{{Key: key1, CreatedAt: r3}, {Key: key3, CreatedAt: r2, ExpiresAt: &exp3}}
	if diff := cmp.Diff(want, e.Secrets); diff != "" {
		t.Fatalf("after the third rotation (-want +got):\n%s", diff)
	}

	before := e
	if err := e.Rotate([]byte("short"), r3.Add(time.Hour)); !errors.Is(err, domain.ErrInvalidParameter) {
		t.Fatalf("a short key: %v", err)
	}
	if diff := cmp.Diff(before.Secrets, e.Secrets); diff != "" || !e.UpdatedAt.Equal(before.UpdatedAt) {
		t.Fatalf("a refused rotation changed the secrets:\n%s", diff)
	}
}

func TestWebhookEndpointDisableEnable(t *testing.T) {
	t.Parallel()
	e := newEndpoint(t)
	t1, t2, t3 := t0.Add(time.Hour), t0.Add(2*time.Hour), t0.Add(3*time.Hour)
	if e.Enable(t1) {
		t.Error("enabling an enabled endpoint changed it")
	}
	if !e.Disable(t1) || e.Status != domain.EndpointDisabled || e.DisabledReason != domain.DisabledManually || !e.DisabledAt.Equal(t1) || !e.UpdatedAt.Equal(t1) {
		t.Fatalf("after Disable: %+v", e)
	}
	if e.Disable(t2) || !e.DisabledAt.Equal(t1) {
		t.Error("disabling a disabled endpoint changed it")
	}
	// A failure while disabled is recorded but keeps the first reason.
	if e.RecordAttempt(410, t2, 5*24*time.Hour) || e.DisabledReason != domain.DisabledManually {
		t.Errorf("a 410 on a disabled endpoint: reason %v", e.DisabledReason)
	}
	if !e.Enable(t3) || e.Status != domain.EndpointEnabled || !e.DisabledReason.IsZero() || e.DisabledAt != nil || e.FailingSince != nil || !e.UpdatedAt.Equal(t3) {
		t.Fatalf("after Enable: %+v", e)
	}
}

// TestRecordAttemptDisablingRule walks one endpoint through sequences of
// attempts: 410 disables at once, a run of failures disables once it has
// lasted disableAfter, and a success ends the run.
func TestRecordAttemptDisablingRule(t *testing.T) {
	t.Parallel()
	const after = 5 * 24 * time.Hour
	type step struct {
		status   int
		at       time.Duration // after t0
		disables bool
	}
	cases := []struct {
		name    string
		steps   []step
		status  domain.EndpointStatus
		reason  domain.DisabledReason
		failing time.Duration // FailingSince after t0; -1: nil
	}{
		{"successes only", []step{{200, 0, false}, {204, time.Hour, false}}, domain.EndpointEnabled, domain.DisabledReason{}, -1},
		{"one failure starts a run", []step{{500, time.Hour, false}}, domain.EndpointEnabled, domain.DisabledReason{}, time.Hour},
		{"no answer is a failure", []step{{0, time.Hour, false}}, domain.EndpointEnabled, domain.DisabledReason{}, time.Hour},
		{"a redirect is a failure", []step{{302, time.Hour, false}}, domain.EndpointEnabled, domain.DisabledReason{}, time.Hour},
		{"a run keeps its start", []step{{500, time.Hour, false}, {503, 2 * time.Hour, false}}, domain.EndpointEnabled, domain.DisabledReason{}, time.Hour},
		{"a success ends the run", []step{{500, time.Hour, false}, {200, 2 * time.Hour, false}}, domain.EndpointEnabled, domain.DisabledReason{}, -1},
		{"410 disables at once", []step{{410, time.Hour, true}}, domain.EndpointDisabled, domain.DisabledGone, time.Hour},
		{"410 after successes", []step{{200, 0, false}, {410, time.Hour, true}}, domain.EndpointDisabled, domain.DisabledGone, time.Hour},
		{"failing for just under the limit", []step{{500, 0, false}, {500, after - time.Second, false}}, domain.EndpointEnabled, domain.DisabledReason{}, 0},
		{"failing for the limit disables", []step{{500, 0, false}, {500, after, true}}, domain.EndpointDisabled, domain.DisabledFailing, 0},
		{"failing past the limit disables", []step{{500, 0, false}, {0, 2 * after, true}}, domain.EndpointDisabled, domain.DisabledFailing, 0},
		{"a success in between restarts the clock", []step{{500, 0, false}, {200, after - time.Hour, false}, {500, after, false}, {500, after + after/2, false}},
			domain.EndpointEnabled, domain.DisabledReason{}, after},
		{"a success after disabling does not enable", []step{{410, 0, true}, {200, time.Hour, false}}, domain.EndpointDisabled, domain.DisabledGone, -1},
	}
	for _, c := range cases {
		e := newEndpoint(t)
		for i, s := range c.steps {
			if got := e.RecordAttempt(s.status, t0.Add(s.at), after); got != s.disables {
				t.Errorf("%s: step %d (%d at +%v) disabled = %v, want %v", c.name, i, s.status, s.at, got, s.disables)
			}
		}
		if e.Status != c.status || e.DisabledReason != c.reason {
			t.Errorf("%s: status %v (%v), want %v (%v)", c.name, e.Status, e.DisabledReason, c.status, c.reason)
		}
		switch {
		case c.failing < 0 && e.FailingSince != nil:
			t.Errorf("%s: FailingSince = %v, want nil", c.name, e.FailingSince)
		case c.failing >= 0 && (e.FailingSince == nil || !e.FailingSince.Equal(t0.Add(c.failing))):
			t.Errorf("%s: FailingSince = %v, want +%v", c.name, e.FailingSince, c.failing)
		}
	}

	// Without a limit, failing never disables; 410 still does.
	e := newEndpoint(t)
	if e.RecordAttempt(500, t0, 0) || e.RecordAttempt(500, t0.Add(100*after), 0) || e.Status != domain.EndpointEnabled {
		t.Error("a zero limit disabled the endpoint")
	}
	if !e.RecordAttempt(410, t0.Add(101*after), 0) {
		t.Error("a 410 did not disable with a zero limit")
	}
}

func TestEndpointEnums(t *testing.T) {
	t.Parallel()
	for _, s := range []domain.EndpointStatus{domain.EndpointEnabled, domain.EndpointDisabled} {
		if got, err := domain.ParseEndpointStatus(s.String()); err != nil || got != s || s.IsZero() {
			t.Errorf("ParseEndpointStatus(%q) = %v, %v", s, got, err)
		}
	}
	if _, err := domain.ParseEndpointStatus("paused"); !errors.Is(err, domain.ErrInvalidParameter) {
		t.Errorf("an unknown status: %v", err)
	}
	for _, r := range []domain.DisabledReason{domain.DisabledManually, domain.DisabledGone, domain.DisabledFailing} {
		if got, err := domain.ParseDisabledReason(r.String()); err != nil || got != r || r.IsZero() {
			t.Errorf("ParseDisabledReason(%q) = %v, %v", r, got, err)
		}
	}
	if _, err := domain.ParseDisabledReason(""); err == nil {
		t.Error("the empty reason parses")
	}
}

func TestNormalizeHosts(t *testing.T) {
	t.Parallel()
	got := domain.NormalizeHosts([]string{" Hooks.Intranet.Example. ", "", "  ", "CDN.example:8443", "[::1]", "[FD00::1]:9000", "10.0.0.7", "receiver.:80"})
	want := []string{"hooks.intranet.example", "cdn.example:8443", "::1", "[fd00::1]:9000", "10.0.0.7", "receiver:80"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("NormalizeHosts (-want +got):\n%s", diff)
	}
	if domain.NormalizeHosts(nil) != nil {
		t.Error("no hosts normalise to some")
	}
}
