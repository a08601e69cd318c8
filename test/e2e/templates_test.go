package e2e

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/test/fakemeta"
)

// TestTemplateSubmissionEndToEnd: the CLI prints every lint finding and
// submits nothing; a template submitted over the API reaches (the fake
// of) Meta, is PENDING, and a campaign on it cannot go live; Meta's review
// approves it, its status webhook reaches Herald, and the campaign goes
// live. Deleting it reaches Meta too.
func TestTemplateSubmissionEndToEnd(t *testing.T) {
	t.Parallel()
	fake := fakemeta.New(t)
	fake.AppSecret = fakeAppSecret
	in := newInstance(t, "sqlite")
	in.env = append(in.env, "HERALD_WHATSAPP_API_URL="+fake.URL, "HERALD_WHATSAPP_ACCESS_TOKEN="+fake.Token,
		"HERALD_WHATSAPP_PHONE_NUMBER_ID="+fake.PhoneNumberID, "HERALD_WHATSAPP_WABA_ID="+fake.WABAID,
		"HERALD_WHATSAPP_APP_SECRET="+fake.AppSecret, "HERALD_WHATSAPP_VERIFY_TOKEN="+verifyToken)

	cmd := exec.Command(binary, "templates", "create", "--name", "Bad Name", "--body", "{{1}} {{2}}", "--footer", strings.Repeat("f", 61))
	cmd.Env = in.env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err == nil {
		t.Fatal("herald templates create accepted a template Meta would refuse")
	}
	for _, want := range []string{"name: ", "components[0].text: ", "(placeholders_adjacent)", "components[0].example.bodyText: ", "components[1].text: "} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("the findings lack %q:\n%s", want, stderr.String())
		}
	}
	if n := len(fake.Submissions()); n != 0 {
		t.Fatalf("%d submissions reached Meta from a refused template", n)
	}

	var live struct{ Token string }
	in.cli(&live, "keys", "create", "--name", "live", "--mode", "live")
	srv := in.serve()
	fake.WebhookURL = srv.Base + "/v1/webhooks/whatsapp"
	// The server syncs templates once as it starts. A submission stored
	// while that sync's listing is in flight is replaced by it (a race the
	// sync has yet to close); the test submits after the sync.
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(srv.Logs(), "templates synced"); {
		if time.Now().After(deadline) {
			t.Fatalf("the start-up template sync never finished\n%s", srv.Logs())
		}
		select {
		case <-time.After(20 * time.Millisecond): // the server is another process: its log is the signal
		case <-srv.Done:
			t.Fatalf("the server stopped\n%s", srv.Logs())
		}
	}

	var tmpl struct{ Status, ProviderID string }
	draft := map[string]any{"name": "order_shipped", "language": "en_US", "category": "UTILITY", "components": []any{
		map[string]any{"type": "BODY", "text": "Hello {{1}}, your order ships today.", "example": map[string]any{"bodyText": []string{"Ana"}}},
		map[string]any{"type": "BUTTONS", "buttons": []any{map[string]any{"type": "QUICK_REPLY", "text": "Thanks"}}},
	}}
	if code := srv.call(t, "POST", "/v1/templates", live.Token, draft, &tmpl); code != 201 || tmpl.Status != "PENDING" || tmpl.ProviderID == "" {
		t.Fatalf("submit: %d %+v\n%s", code, tmpl, srv.Logs())
	}
	var subs = fake.Submissions()
	if len(subs) != 1 || !json.Valid(subs[0].Body) {
		t.Fatalf("submissions: %+v", subs)
	}

	var camp struct{ ID, Status string }
	if code := srv.call(t, "POST", "/v1/campaigns", live.Token,
		map[string]any{"name": "Shipping", "templateName": "order_shipped", "language": "en_US"}, &camp); code != 201 {
		t.Fatalf("create campaign: %d\n%s", code, srv.Logs())
	}
	var refused struct{ Code string }
	if code := srv.call(t, "POST", "/v1/campaigns/"+camp.ID+"/activate", live.Token, nil, &refused); code != 409 {
		t.Fatalf("a campaign on a PENDING template went live: %d %+v", code, refused)
	}

	if status, err := fake.Review("order_shipped", "en_US", "APPROVED", ""); err != nil || status != 200 {
		t.Fatalf("the status webhook: %d %v\n%s", status, err, srv.Logs())
	}
	var list struct {
		Data []struct {
			Name, Status string
			Sendable     bool
		}
	}
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		srv.call(t, "GET", "/v1/templates?name=order_shipped", live.Token, nil, &list)
		if len(list.Data) == 1 && list.Data[0].Sendable {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(list.Data) != 1 || list.Data[0].Status != "APPROVED" || !list.Data[0].Sendable {
		t.Fatalf("after Meta's approval: %+v\n%s", list.Data, srv.Logs())
	}
	if code := srv.call(t, "POST", "/v1/campaigns/"+camp.ID+"/activate", live.Token, nil, &camp); code != 200 || camp.Status != "active" {
		t.Fatalf("activate after approval: %d %+v\n%s", code, camp, srv.Logs())
	}

	if code := srv.call(t, "DELETE", "/v1/templates/order_shipped", live.Token, nil, nil); code != 204 {
		t.Fatalf("delete: %d\n%s", code, srv.Logs())
	}
	if d := fake.Deleted(); len(d) != 1 || d[0] != "order_shipped" {
		t.Errorf("Meta's deletes: %q", d)
	}
	srv.Stop(t)
}
