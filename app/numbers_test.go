package app_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/heraldhq/herald/adapters/system"
	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/app/delivery"
	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
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

// readMarks records which number marked which message read.
type readMarks struct {
	mu    sync.Mutex
	marks []string // "phone number id/wamid"
}

func (m *readMarks) ForNumber(n ports.NumberCredentials) ports.NumberClient {
	return markClient{m: m, n: n}
}

type markClient struct {
	m *readMarks
	n ports.NumberCredentials
}

func (markClient) Send(context.Context, ports.OutboundMessage) (ports.SendResult, error) {
	return ports.SendResult{}, errors.New("not sending")
}
func (c markClient) MarkRead(_ context.Context, wamid string, _ bool) error {
	c.m.mu.Lock()
	defer c.m.mu.Unlock()
	c.m.marks = append(c.m.marks, c.n.PhoneNumberID+"/"+wamid)
	return nil
}
func (c markClient) Account() string { return c.n.WABAID }
func (markClient) SubmitTemplate(context.Context, domain.TemplateDraft) (ports.SubmittedTemplate, error) {
	return ports.SubmittedTemplate{}, errors.New("not submitting")
}
func (markClient) DeleteTemplate(context.Context, string) error { return errors.New("not deleting") }
func (markClient) ListTemplates(context.Context) ([]domain.SyncedTemplate, error) {
	return nil, nil
}

// A contact's message is marked read from the number they wrote to, with
// that number's token, on a server whose only numbers are stored ones.
func TestMarkReadFromTheContactsNumber(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	ws := f.principal.Workspace
	key, err := system.NewSecretKey()
	if err != nil {
		t.Fatal(err)
	}
	sealer, err := system.NewSecrets(system.SecretKeyConfig{Key: key})
	if err != nil {
		t.Fatal(err)
	}
	marks := &readMarks{}
	reg := delivery.NewNumbers(f.st, sealer, marks, nil, delivery.NumbersConfig{}, delivery.Config{}, f.clock)
	numbers := app.NewNumbersHandler(f.st, f.st, sealer, reg, f.clock, f.ids)
	var added []domain.BusinessNumber
	for _, meta := range []string{"7001", "7002"} {
		n, err := numbers.Add(ctx, app.AddNumber{Spec: domain.NumberSpec{MetaID: meta, AllWorkspaces: true},
			AccessToken: "EAAtoken-" + meta + "-xyz"})
		if err != nil {
			t.Fatal(err)
		}
		added = append(added, n)
	}
	ct := porttest.NewContact(t, ws)
	ct.Mode = domain.ModeLive
	ct.LastNumber = added[1].ID
	if err := f.st.CreateContact(ctx, ct); err != nil {
		t.Fatal(err)
	}
	in := domain.InboundEntry(domain.EntryID(f.ids.NewID(domain.PrefixEntry)), ct,
		domain.InboundMessage{ProviderID: "wamid.IN1", Kind: domain.KindText, Text: "hi", At: f.clock.Now()}, "")
	if err := f.st.AppendEntries(ctx, in); err != nil {
		t.Fatal(err)
	}
	h := app.NewMarkReadHandler(f.st, delivery.Senders{Numbers: reg}, usecase.NewObserver(nil)).WithContacts(f.st)
	live := domain.Principal{Workspace: ws, Key: f.principal.Key, Mode: domain.ModeLive}
	if _, err := h.Handle(ctx, app.MarkRead{Principal: live, ID: "wamid.IN1"}); err != nil {
		t.Fatalf("MarkRead: %v", err)
	}
	if len(marks.marks) != 1 || marks.marks[0] != "7002/wamid.IN1" {
		t.Fatalf("marks %v, want 7002/wamid.IN1", marks.marks)
	}
}
