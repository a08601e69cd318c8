package main

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/heraldhq/herald/adapters/sqlstore"
	"github.com/heraldhq/herald/adapters/system"
	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// herald sandbox inbound makes a customer's message arrive in test mode:
// the workspace's test contact gets it in their thread, their window
// opens, and a test key's session reply is accepted; a number that never
// wrote is still refused, and bad input is a usage error that stores
// nothing.
func TestSandboxInbound(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	var ws map[string]string
	c.json(&ws, "workspaces", "create", "--name", "Acme")
	before := time.Now().UTC()
	var got map[string]string
	c.json(&got, "sandbox", "inbound", "--to-workspace", ws["id"], "--from", "+14155550181", "--text", "Can I change the address?")
	exp, err := time.Parse(time.RFC3339Nano, got["serviceWindowExpiresAt"])
	if err != nil || got["workspaceId"] != ws["id"] || got["mode"] != "test" || exp.Before(before.Add(24*time.Hour)) {
		t.Fatalf("sandbox inbound: %v (%v)", got, err)
	}
	if code, _, errOut := c.run("sandbox", "inbound", "--from", "4155550181", "--text", "x"); code == 0 {
		t.Fatalf("a number without + was accepted: %s", errOut)
	}
	if code, _, _ := c.run("sandbox", "inbound", "--from", "+14155550181"); code == 0 {
		t.Fatal("no --text was accepted")
	}

	ctx := context.Background()
	db, d, err := sqlstore.Open(ctx, sqlstore.Config{DatabaseURL: c.env("HERALD_DATABASE_URL")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	st := sqlstore.New(db, d)
	wsID := domain.WorkspaceID(ws["id"])
	thread, _, err := st.ListEntries(ctx, wsID, domain.ContactID(got["contactId"]), domain.ModeTest, ports.Page{Limit: 10})
	if err != nil || len(thread) != 1 || thread[0].Body != "Can I change the address?" || thread[0].Direction != domain.Inbound ||
		thread[0].Mode != domain.ModeTest {
		t.Fatalf("thread: %+v, %v", thread, err)
	}
	h := app.NewSendSessionMessageHandler(app.SendSessionDeps{Tx: st, Messages: st, Idempotency: st, Clock: system.Clock{},
		IDs: system.NewIDs(), Obs: usecase.NewObserver(nil)})
	p := domain.Principal{Workspace: wsID, Mode: domain.ModeTest}
	text := domain.SessionContent{Type: domain.KindText, Text: &domain.SessionText{Body: "Yes: send it here"}}
	res, err := h.Handle(ctx, app.SendSessionMessage{Principal: p, ContactID: got["contactId"], Content: text})
	if err != nil || !res.Message.IsSession() || res.Message.Mode != domain.ModeTest {
		t.Fatalf("reply inside the window: %+v, %v", res.Message, err)
	}
	_, err = h.Handle(ctx, app.SendSessionMessage{Principal: p, To: "+14155550182", Content: text})
	if !errors.Is(err, domain.ErrOutsideServiceWindow) {
		t.Fatalf("reply to a number that never wrote: %v", err)
	}
	if _, err := st.GetContactByPhone(ctx, wsID, domain.ModeLive, domain.MustPhoneNumber("+14155550181")); !errors.Is(err, domain.ErrContactNotFound) {
		t.Fatalf("a live contact was made: %v", err)
	}
}
