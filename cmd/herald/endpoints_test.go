package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/adapters/sqlstore"
	"github.com/heraldhq/herald/adapters/system"
	"github.com/heraldhq/herald/domain"
)

// endpoints create prints the secret once (-q: only it), list shows the
// endpoints without it, a refused URL or event type says why and makes
// nothing, and delete removes one.
func TestEndpointsCommands(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	// An address, not a name: nothing is resolved.
	code, secret, errOut := c.run("endpoints", "create", "--url", "https://8.8.8.8/herald", "--events", "message.delivered,message.failed", "-q")
	secret = strings.TrimSpace(secret)
	if code != 0 || !strings.HasPrefix(secret, "whsec_") || len(secret) != len("whsec_")+44 {
		t.Fatalf("endpoints create -q: exit %d, stdout %q, stderr %q", code, secret, errOut)
	}
	var live endpointJSON
	c.json(&live, "endpoints", "create", "--url", "https://8.8.4.4/h", "--mode", "live", "--description", "CRM")
	if live.Mode != "live" || live.Secret == "" || live.Secret == secret || strings.Join(live.Events, ",") != "*" || live.Status != "enabled" {
		t.Errorf("endpoints create --json: %+v", live)
	}

	var list []endpointJSON
	c.json(&list, "endpoints", "list")
	if len(list) != 2 || list[1].ID != live.ID || strings.Join(list[0].Events, ",") != "message.delivered,message.failed" {
		t.Fatalf("endpoints list: %+v", list)
	}
	for _, ep := range list {
		if ep.Secret != "" {
			t.Errorf("endpoints list shows a secret: %+v", ep)
		}
	}
	c.json(&list, "endpoints", "list", "--mode", "live")
	if len(list) != 1 || list[0].ID != live.ID {
		t.Errorf("endpoints list --mode live: %+v", list)
	}
	_, table, _ := c.run("endpoints", "list")
	if !strings.Contains(table, live.ID) || !strings.Contains(table, "https://8.8.4.4/h") || strings.Contains(table, "whsec_") {
		t.Errorf("endpoints list: %s", table)
	}

	for _, bad := range []struct{ args []string }{
		{[]string{"--url", "http://8.8.8.8/x"}},
		{[]string{"--url", "https://127.0.0.1/x"}},
		{[]string{"--url", "https://8.8.8.8/x", "--events", "message.bounced"}},
	} {
		code, out, errOut := c.run(append([]string{"endpoints", "create"}, bad.args...)...)
		if code != 1 || out != "" || errOut == "" {
			t.Errorf("endpoints create %v: exit %d, stdout %q, stderr %q; want a refusal", bad.args, code, out, errOut)
		}
	}
	if code, _, errOut := c.run("endpoints", "create"); code != 2 || !strings.Contains(errOut, "--url is required") {
		t.Errorf("endpoints create without --url: exit %d, %q", code, errOut)
	}

	if code, out, errOut := c.run("endpoints", "delete", live.ID); code != 0 || !strings.Contains(out, live.ID) {
		t.Fatalf("endpoints delete: exit %d %q %q", code, out, errOut)
	}
	c.json(&list, "endpoints", "list")
	if len(list) != 1 || list[0].ID == live.ID {
		t.Errorf("after delete: %+v", list)
	}
	if code, _, errOut := c.run("endpoints", "delete", live.ID); code != 1 || !strings.Contains(errOut, "no webhook endpoint with this id") {
		t.Errorf("delete twice: exit %d %q", code, errOut)
	}
}

// events list pages through the pull order with --after, filters by
// --types, and redeliver makes a delivery pending again.
func TestEventsCommands(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	var ep endpointJSON
	c.json(&ep, "endpoints", "create", "--url", "https://8.8.8.8/herald")

	ctx := context.Background()
	db, d, err := sqlstore.Open(ctx, sqlstore.Config{DatabaseURL: c.env("HERALD_DATABASE_URL")})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	st := sqlstore.New(db, d)
	ids := system.NewIDs()
	var written []string
	for i, typ := range []domain.EventType{domain.EventMessageSent, domain.EventMessageDelivered, domain.EventMessageSent} {
		id := ids.NewID(domain.PrefixEvent)
		ev, err := domain.NewEvent(domain.EventID(id), domain.WorkspaceID(ep.WorkspaceID), domain.ModeTest, typ,
			ids.NewID(domain.PrefixMessage), []byte(`{"n":`+string(rune('0'+i))+`}`), time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if err := st.AppendEvents(ctx, ev); err != nil {
			t.Fatal(err)
		}
		written = append(written, id)
	}
	if _, err := st.SequenceEvents(ctx, 100); err != nil {
		t.Fatal(err)
	}

	type page struct {
		Data       []eventJSON
		NextCursor string
		HasMore    bool
	}
	var p page
	c.json(&p, "events", "list", "--limit", "2")
	if len(p.Data) != 2 || p.Data[0].ID != written[0] || p.Data[1].ID != written[1] || !p.HasMore {
		t.Fatalf("events list --limit 2: %+v", p)
	}
	c.json(&p, "events", "list", "--after", p.NextCursor)
	if len(p.Data) != 1 || p.Data[0].ID != written[2] || p.HasMore || !strings.Contains(string(p.Data[0].Body), `"data":{"n":2}`) {
		t.Errorf("events list --after: %+v", p)
	}
	c.json(&p, "events", "list", "--types", "message.delivered")
	if len(p.Data) != 1 || p.Data[0].ID != written[1] {
		t.Errorf("events list --types: %+v", p)
	}
	c.json(&p, "events", "list", "--mode", "live")
	if len(p.Data) != 0 {
		t.Errorf("events list --mode live shows test events: %+v", p)
	}
	code, out, errOut := c.run("events", "list")
	if code != 0 || !strings.Contains(out, written[2]) || !strings.Contains(errOut, "next: --after ") {
		t.Errorf("events list: exit %d\n%s\n%s", code, out, errOut)
	}
	if code, _, errOut := c.run("events", "list", "--after", "nonsense"); code != 1 || !strings.Contains(errOut, "not a cursor") {
		t.Errorf("events list --after nonsense: exit %d %q", code, errOut)
	}

	// The delivery is pending already: redeliver leaves it so.
	var res struct{ Deliveries int }
	c.json(&res, "events", "redeliver", written[0], "--endpoint", ep.ID)
	if res.Deliveries != 0 {
		t.Errorf("redeliver a pending delivery: %d made pending", res.Deliveries)
	}
	if code, _, errOut := c.run("events", "redeliver", ids.NewID(domain.PrefixEvent)); code != 1 || !strings.Contains(errOut, "no event with this id") {
		t.Errorf("redeliver an unknown event: exit %d %q", code, errOut)
	}
}
