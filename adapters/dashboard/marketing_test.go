package dashboard_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/adapters/dashboard"
	"github.com/heraldhq/herald/adapters/system"
	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/domain"
)

// TestContactShowsMarketingState: a contact's page says whether they
// stopped the business's marketing messages, apart from the opt-out.
func TestContactShowsMarketingState(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dashboard.Config{})
	ctx := context.Background()
	def, err := app.NewEnsureDefaultWorkspaceHandler(e.store, system.Clock{}, system.NewIDs()).Handle(ctx)
	if err != nil {
		t.Fatal(err)
	}
	r, err := e.syncContact.Handle(ctx, app.SyncContact{Principal: domain.Principal{Workspace: def.ID, Mode: domain.ModeLive},
		PhoneNumber: "+14155552671"})
	if err != nil {
		t.Fatal(err)
	}
	b := e.browser(t)
	b.login()
	path := "/dashboard/contacts/" + string(r.Contact.ID)
	_, body := b.get(path)
	if !strings.Contains(body, `<dd id="marketing-state"><span class="badge on">receiving</span></dd>`) {
		t.Errorf("a contact who never stopped marketing is not shown receiving it:\n%s", body)
	}
	if _, err := e.store.UpdateContact(ctx, def.ID, r.Contact.ID, func(c *domain.Contact) error {
		c.SetMarketingOptOut(true, time.Now(), time.Now())
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	_, body = b.get(path)
	if !strings.Contains(body, `<dd id="marketing-state"><span class="badge off">stopped</span> utility and authentication templates still go</dd>`) ||
		!strings.Contains(body, `<dd id="opt-state"><span class="badge on">receiving</span></dd>`) {
		t.Errorf("a contact who stopped marketing only is not shown so:\n%s", body)
	}
}

// TestCampaignCategoryFromTheForm: a campaign defined in the dashboard
// takes the category chosen, and its page shows it.
func TestCampaignCategoryFromTheForm(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dashboard.Config{})
	b := e.browser(t)
	b.login()
	_, page := b.get("/dashboard/campaigns/new")
	if !strings.Contains(page, `<option value="MARKETING" selected>MARKETING</option>`) {
		t.Fatalf("the new-campaign form does not offer the category, marketing first:\n%s", page)
	}
	res, body := b.post("/dashboard/campaigns", url.Values{"name": {"Receipts"}, "source": {"local"}, "templateName": {"receipt"},
		"language": {"en_US"}, "headerFormat": {"none"}, "body": {"Order {{1}} is paid"}, "category": {"UTILITY"}})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("creating answered %d:\n%s", res.StatusCode, body)
	}
	_, body = b.get(res.Header.Get("Location"))
	if !strings.Contains(body, `Category: <span id="campaign-category">UTILITY</span>`) {
		t.Errorf("the campaign page does not show its category:\n%s", body)
	}
	res, body = b.post("/dashboard/campaigns", url.Values{"name": {"Odd"}, "source": {"local"}, "templateName": {"odd"},
		"language": {"en_US"}, "body": {"Hi"}, "category": {"not a category"}})
	wantStatus(t, res, body, http.StatusUnprocessableEntity)
}
