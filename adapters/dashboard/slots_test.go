package dashboard_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/heraldhq/herald/adapters/dashboard"
	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/domain"
)

// The mapping editor lists every slot of a template with buttons, saves
// where each takes its value from and its label, and gives a refused edit
// back as typed, with the rule it broke.
func TestMappingEditorCoversEverySlot(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dashboard.Config{})
	c, err := e.createCampaign.Handle(context.Background(), app.CreateCampaign{Name: "Deals", TemplateName: "deals", Language: "en_US",
		HeaderFormat: domain.HeaderImage, Body: "Hi {{1}}, here is your deal.", Buttons: []domain.ButtonDef{
			{Kind: domain.ButtonQuickReply, Text: "Stop"}, {Kind: domain.ButtonURL, Text: "Shop", URL: "https://shop.example/d/{{1}}"},
			{Kind: domain.ButtonCopyCode}}})
	if err != nil {
		t.Fatal(err)
	}
	b := e.browser(t)
	b.login()
	loc := "/dashboard/campaigns/" + string(c.ID)
	_, page := b.get(loc)
	for _, want := range []string{`value="body.1"`, `value="header"`, `value="buttons.0"`, `value="buttons.1"`, `value="buttons.2"`,
		`the payload of quick-reply button 0 ("Stop")`, `the suffix of URL button 1 ("Shop")`, "the code of copy-code button 2",
		`<option value="media" selected>`, `"variables":["value 1","value 2","value 3"]`} {
		if !strings.Contains(page, want) {
			t.Errorf("the campaign page lacks %q", want)
		}
	}

	// body.1, header, buttons.0, buttons.1, buttons.2 in this order.
	form := url.Values{"name": {"Deals"},
		"slot":          {"body.1", "header", "buttons.0", "buttons.1", "buttons.2"},
		"describes":     {"", "", "", "", ""},
		"media-allowed": {"", "1", "", "", ""},
		"label":         {"First name", "Banner", "Opt-out payload", "Deal id", "Coupon"},
		"source":        {"position", "value", "position", "position", "position"},
		"position":      {"1", "", "4", "2", "3"},
		"value":         {"", "https://cdn.example.com/banner.png", "", "", ""}}
	res, body := b.post(loc, form)
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("saving the mapping: %d %s", res.StatusCode, body)
	}
	got, err := e.store.GetCampaign(context.Background(), c.Workspace, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	var summary []string
	for _, s := range got.Template.AllSlots() {
		summary = append(summary, s.Key+":"+s.Label+":"+strings.Repeat("$", s.Source.Position)+s.Source.Value)
	}
	if want := "body.1:First name:$ header:Banner:https://cdn.example.com/banner.png buttons.0:Opt-out payload:$$$$ buttons.1:Deal id:$$ buttons.2:Coupon:$$$"; strings.Join(summary, " ") != want {
		t.Fatalf("stored mapping\n got %s\nwant %s", strings.Join(summary, " "), want)
	}
	_, page = b.get(loc + "?saved=1")
	if !strings.Contains(page, `"variables":["First name","Deal id","Coupon","Opt-out payload"]`) || strings.Contains(page, `"mediaHeaderUrl"`) {
		t.Errorf("the send example does not follow the mapping")
	}

	form.Set("name", "Deals")
	form["source"] = []string{"position", "value", "position", "position", "value"}
	form["value"] = []string{"", "https://cdn.example.com/banner.png", "", "", "WAYTOOLONGCOUPON1"}
	form["position"] = []string{"1", "", "3", "2", ""}
	res, body = b.post(loc, form)
	wantStatus(t, res, body, http.StatusUnprocessableEntity)
	if !strings.Contains(body, "15 characters Meta allows in a coupon code") || !strings.Contains(body, `value="WAYTOOLONGCOUPON1"`) {
		t.Errorf("the refused edit does not say why or lost what was typed:\n%s", body)
	}
	res, body = b.post(loc, url.Values{"name": {"Deals"}, "slot": {"buttons.1"}, "label": {""}, "source": {"position"}, "position": {"9"}})
	wantStatus(t, res, body, http.StatusUnprocessableEntity)
	if !strings.Contains(body, "positions must run from 1 without gaps") {
		t.Errorf("a gap in the positions is not explained:\n%s", body)
	}
}
