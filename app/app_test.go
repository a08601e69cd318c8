package app_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/heraldhq/herald/adapters/memstore"
	"github.com/heraldhq/herald/adapters/system"
	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports/portsmock"
)

// clock is a settable clock for tests.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// fixture is a memstore with a default workspace, a test key and an active
// campaign "Hi {{1}}, your code is {{2}}".
type fixture struct {
	st        *memstore.Store
	clock     *clock
	ids       *system.IDs
	principal domain.Principal
	token     domain.Token
	campaign  domain.Campaign
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	ctx := context.Background()
	f := &fixture{st: memstore.New(), clock: newClock(), ids: system.NewIDs()}
	def := app.NewEnsureDefaultWorkspaceHandler(f.st, f.clock, f.ids)
	k, err := app.NewCreateKeyHandler(f.st, f.st, def, f.clock, f.ids).Handle(ctx, app.CreateKey{Name: "t"})
	if err != nil {
		t.Fatal(err)
	}
	f.token = k.Token
	f.principal = domain.Principal{Workspace: k.Key.Workspace, Key: k.Key.ID, Mode: k.Key.Mode}
	f.campaign, err = app.NewCreateCampaignHandler(f.st, f.st, def, f.clock, f.ids).Handle(ctx, app.CreateCampaign{
		Name: "Welcome", TemplateName: "welcome", Language: "en_US", Body: "Hi {{1}}, your code is {{2}}", Activate: true})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *fixture) sender(wake *app.Wakeup) *app.SendCampaignMessageHandler {
	return app.NewSendCampaignMessageHandler(f.st, f.st, f.st, f.clock, f.ids, wake, nil)
}

func (f *fixture) send(t *testing.T, phone string) domain.Message {
	t.Helper()
	res, err := f.sender(nil).Handle(context.Background(), app.SendCampaignMessage{
		Principal: f.principal, PhoneNumber: phone, CampaignID: string(f.campaign.ID), Variables: []string{"Ana", "1234"}})
	if err != nil {
		t.Fatal(err)
	}
	return res.Message
}

var _ = portsmock.ClockMock{}
