package dashboard_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/adapters/dashboard"
	"github.com/heraldhq/herald/adapters/system"
	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/ports/porttest"
)

// TestNumberHealthPage: the page lists the numbers the workspace may use
// with their quality, tier, recipients reached against the limit and
// their history; a campaign Herald paused for RED says so.
func TestNumberHealthPage(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dashboard.Config{})
	ctx := context.Background()
	def, err := app.NewEnsureDefaultWorkspaceHandler(e.store, system.Clock{}, system.NewIDs()).Handle(ctx)
	if err != nil {
		t.Fatal(err)
	}
	n := porttest.NewNumber(t, def.ID)
	n.Quality, n.Tier = domain.QualityRed, domain.Tier250
	if err := e.store.CreateNumber(ctx, n); err != nil {
		t.Fatal(err)
	}
	hidden := porttest.NewNumber(t, e.other)
	if err := e.store.CreateNumber(ctx, hidden); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	if _, _, err := e.store.RecordPhoneHealth(ctx, n.MetaID, domain.HealthReading{Quality: domain.QualityRed,
		Source: domain.HealthFromWebhook, Event: "FLAGGED", At: now}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.ReachRecipients(ctx, n.WABAID, []ports.Reach{{Recipient: "+14155552671", At: now}}); err != nil {
		t.Fatal(err)
	}
	c, err := e.createCampaign.Handle(ctx, app.CreateCampaign{Name: "Sale", TemplateName: "sale", Language: "en_US",
		Body: "Hi {{1}}", Activate: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.UpdateCampaign(ctx, def.ID, c.ID, func(c *domain.Campaign) error {
		c.PauseFor(domain.PausedQualityRed, now)
		return nil
	}); err != nil {
		t.Fatal(err)
	}

	b := e.browser(t)
	b.login()
	res, body := b.get("/dashboard/number-health")
	wantStatus(t, res, body, 200)
	for _, want := range []string{
		`<span class="badge quality-RED" id="quality-` + string(n.ID) + `">RED</span>`,
		`<span id="tier-` + string(n.ID) + `">TIER_250</span>`,
		`<span id="reached-` + string(n.ID) + `">1 of 250</span>`,
		`<td>RED</td><td></td><td>webhook (FLAGGED)</td>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %s:\n%s", want, body)
		}
	}
	if strings.Contains(body, string(hidden.ID)) {
		t.Error("the page shows another workspace's number")
	}
	_, body = b.get("/dashboard/campaigns/" + string(c.ID))
	if !strings.Contains(body, `id="paused-reason"`) {
		t.Errorf("the campaign page does not say Herald paused it:\n%s", body)
	}
}
