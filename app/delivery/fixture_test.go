package delivery_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/heraldhq/herald/adapters/httpapi"
	"github.com/heraldhq/herald/adapters/memstore"
	"github.com/heraldhq/herald/adapters/system"
	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/app/delivery"
	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/ports/portsmock"
	"github.com/heraldhq/herald/ports/porttest"
)

// The fixture's messages arrive as in the server, through app's use cases
// (create key and campaign, send-campaign); delivery takes them from there.

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// phone is the number most tests send to.
const phone = "+14155552671"

// account is the business account of the tests' templates.
const account = "102290129340398"

// metaTemplates is a template source whose list a test can change between
// syncs, like templates reviewed at Meta.
type metaTemplates struct {
	*portsmock.TemplateSourceMock
	mu   sync.Mutex
	list []domain.SyncedTemplate
}

func newMetaTemplates(list ...domain.SyncedTemplate) *metaTemplates {
	m := &metaTemplates{list: list}
	m.TemplateSourceMock = &portsmock.TemplateSourceMock{
		AccountFunc: func() string { return account },
		ListTemplatesFunc: func(ctx context.Context) ([]domain.SyncedTemplate, error) {
			m.mu.Lock()
			defer m.mu.Unlock()
			return append([]domain.SyncedTemplate(nil), m.list...), nil
		},
	}
	return m
}

// clock is a portsmock.ClockMock that stands still at t0 until a test moves
// it.
type clock struct {
	*portsmock.ClockMock
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock {
	c := &clock{now: t0}
	c.ClockMock = &portsmock.ClockMock{NowFunc: func() time.Time {
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.now
	}}
	return c
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// cmpDomain compares domain values, whose enums have unexported fields.
var cmpDomain = cmp.Options{cmp.AllowUnexported(domain.MessageStatus{}, domain.KeyMode{}, domain.PhoneNumber{},
	domain.HeaderFormat{}, domain.SlotKind{}, domain.ButtonKind{}, domain.Direction{}, domain.CampaignStatus{}, domain.TemplateStatus{}, domain.TemplateCategory{})}

// fixture is a memstore with a default workspace holding a test key and an
// active campaign "Hi {{1}}, your code is {{2}}"; the clock stands at t0.
type fixture struct {
	st        *memstore.Store
	clock     *clock
	ids       *system.IDs
	events    *usecase.Events // writes events as the server does
	def       *app.EnsureDefaultWorkspaceHandler
	principal domain.Principal
	token     domain.Token
	campaign  domain.Campaign
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{st: memstore.New(), clock: newClock(), ids: system.NewIDs()}
	f.events = usecase.NewEvents(f.ids, httpapi.NewEventRenderer())
	f.def = app.NewEnsureDefaultWorkspaceHandler(f.st, f.clock, f.ids)
	k, err := app.NewCreateKeyHandler(f.st, f.st, f.def, f.clock, f.ids).Handle(context.Background(), app.CreateKey{Name: "test key"})
	if err != nil {
		t.Fatal(err)
	}
	f.token = k.Token
	f.principal = domain.Principal{Workspace: k.Key.Workspace, Key: k.Key.ID, Mode: k.Key.Mode}
	f.campaign = f.createCampaign(t, f.principal.Workspace, app.CreateCampaign{Name: "Welcome", TemplateName: "welcome",
		Language: "en_US", Body: "Hi {{1}}, your code is {{2}}", VariableLabels: []string{"First name", "Code"}, Activate: true})
	return f
}

// createCampaign stores a campaign in ws.
func (f *fixture) createCampaign(t *testing.T, ws domain.WorkspaceID, cmd app.CreateCampaign) domain.Campaign {
	t.Helper()
	cmd.Workspace = string(ws)
	c, err := app.NewCreateCampaignHandler(f.st, f.st, f.st, nil, f.def, f.clock, f.ids).Handle(context.Background(), cmd)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// otherWorkspace creates a second workspace and returns it with an active
// campaign of its own.
func (f *fixture) otherWorkspace(t *testing.T) (domain.WorkspaceID, domain.Campaign) {
	t.Helper()
	w, err := app.NewCreateWorkspaceHandler(f.st, f.clock, f.ids).Handle(context.Background(), app.CreateWorkspace{Name: "Other"})
	if err != nil {
		t.Fatal(err)
	}
	return w.ID, f.createCampaign(t, w.ID, app.CreateCampaign{Name: "Theirs", TemplateName: "welcome",
		Language: "en_US", Body: "Hi {{1}}, your code is {{2}}", Activate: true})
}

// sender is the send-campaign handler of a server whose Cloud API is
// configured: live keys send too.
func (f *fixture) sender(tx ports.Transactor, wake *delivery.Wakeup) *app.SendCampaignMessageHandler {
	return app.NewSendCampaignMessageHandler(app.SendCampaignDeps{Tx: tx, Campaigns: f.st, Contacts: f.st,
		Messages: f.st, Idempotency: f.st, SendCounts: f.st, Media: porttest.MediaByExtension(),
		Clock: f.clock, IDs: f.ids, Wake: wake, Obs: usecase.NewObserver(nil), LiveSending: true})
}

// send accepts a message to phone on the fixture's campaign.
func (f *fixture) send(t *testing.T, p domain.Principal, phone string) domain.Message {
	t.Helper()
	res, err := f.sender(f.st, nil).Handle(context.Background(), app.SendCampaignMessage{
		Principal: p, PhoneNumber: phone, CampaignID: string(f.campaign.ID), Variables: []string{"Ana", "1234"}})
	if err != nil {
		t.Fatalf("send to %s: %v", phone, err)
	}
	return res.Message
}

func (f *fixture) message(t *testing.T, id domain.MessageID) domain.Message {
	t.Helper()
	m, err := f.st.GetMessage(context.Background(), f.principal.Workspace, id)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// contact is ws's contact of the fixture principal's mode (test) with
// phone: the one its sends reach.
func (f *fixture) contact(t *testing.T, ws domain.WorkspaceID, phone string) domain.Contact {
	t.Helper()
	return f.contactOf(t, ws, f.principal.Mode, phone)
}

// contactOf is ws's contact of mode with phone. What people write reaches
// live contacts.
func (f *fixture) contactOf(t *testing.T, ws domain.WorkspaceID, mode domain.KeyMode, phone string) domain.Contact {
	t.Helper()
	c, err := f.st.GetContactByPhone(context.Background(), ws, mode, domain.MustPhoneNumber(phone))
	if err != nil {
		t.Fatalf("%s contact %s in %s: %v", mode, phone, ws, err)
	}
	return c
}

func history(at time.Time, statuses ...domain.MessageStatus) []domain.StatusChange {
	h := make([]domain.StatusChange, len(statuses))
	for i, s := range statuses {
		h[i] = domain.StatusChange{Status: s, At: at}
	}
	return h
}

// wantCode fails unless err is a domain error with code whose detail says
// detail.
func wantCode(t *testing.T, err error, code domain.Code, detail string) {
	t.Helper()
	var de *domain.Error
	if !errors.As(err, &de) || de.Code != code || !strings.Contains(de.Detail, detail) {
		t.Fatalf("error %v, want %s saying %q", err, code, detail)
	}
}

func ptr[T any](v T) *T { return &v }
