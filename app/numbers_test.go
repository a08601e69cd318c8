package app_test

import (
	"context"
	"errors"
	"testing"

	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports/porttest"
)

// A session message leaves from the number the contact last wrote to,
// unless from names another the workspace may use; a number it may not
// use is not found.
func TestSessionMessageLeavesFromTheContactsNumber(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	ws := f.principal.Workspace
	one, two, foreign := porttest.NewNumber(t, ws), porttest.NewNumber(t, ws), porttest.NewNumber(t, f.otherWorkspaceID(t))
	for _, n := range []domain.BusinessNumber{one, two, foreign} {
		if err := f.st.CreateNumber(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	ct := porttest.NewContact(t, ws)
	ct.Mode = domain.ModeLive
	now := f.clock.Now()
	ct.RecordInbound("", "", now, now)
	ct.LastNumber = two.ID
	if err := f.st.CreateContact(ctx, ct); err != nil {
		t.Fatal(err)
	}
	h := app.NewSendSessionMessageHandler(app.SendSessionDeps{Tx: f.st, Messages: f.st, Idempotency: f.st,
		Clock: f.clock, IDs: f.ids, Obs: usecase.NewObserver(nil), LiveSending: true, Numbers: f.st})
	live := domain.Principal{Workspace: ws, Key: f.principal.Key, Mode: domain.ModeLive}
	send := func(from string) (domain.Message, error) {
		res, err := h.Handle(ctx, app.SendSessionMessage{Principal: live, ContactID: string(ct.ID), From: from,
			Content: domain.SessionContent{Type: domain.KindText, Text: &domain.SessionText{Body: "Hello"}}})
		return res.Message, err
	}
	m, err := send("")
	if err != nil || m.Number != two.ID {
		t.Fatalf("without from: %v, number %q, want %s", err, m.Number, two.ID)
	}
	m, err = send(string(one.ID))
	if err != nil || m.Number != one.ID {
		t.Fatalf("from number one: %v, number %q", err, m.Number)
	}
	_, err = send(string(foreign.ID))
	var de *domain.Error
	if !errors.As(err, &de) || de.Code != domain.CodePhoneNumberNotFound || de.Param != "from" {
		t.Fatalf("from another workspace's number: %v", err)
	}
}

func (f *fixture) otherWorkspaceID(t *testing.T) domain.WorkspaceID {
	t.Helper()
	w, err := app.NewCreateWorkspaceHandler(f.st, f.clock, f.ids).Handle(context.Background(), app.CreateWorkspace{Name: "Other"})
	if err != nil {
		t.Fatal(err)
	}
	return w.ID
}
