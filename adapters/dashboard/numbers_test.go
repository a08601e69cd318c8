package dashboard_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/heraldhq/herald/adapters/dashboard"
	"github.com/heraldhq/herald/adapters/system"
	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// newNumbersEnv is the dashboard with its Numbers page, sealing with a
// fresh key.
func newNumbersEnv(t *testing.T) *env {
	t.Helper()
	e := newEnv(t, dashboard.Config{})
	key, err := system.NewSecretKey()
	if err != nil {
		t.Fatal(err)
	}
	sealer, err := system.NewSecrets(system.SecretKeyConfig{Key: key})
	if err != nil {
		t.Fatal(err)
	}
	e.deps.Numbers = app.NewNumbersHandler(e.store, e.store, sealer, nil, system.Clock{}, system.NewIDs())
	e.deps.PhoneNumbers = app.NewListPhoneNumbersHandler(e.store)
	e.deps.CreateCampaign = e.createCampaign.WithNumbers(e.store)
	e.srv.Config.Handler = dashboard.NewHandler(e.deps, dashboard.Config{}, nil)
	return e
}

var numberRow = regexp.MustCompile(`id="number-(pn_[0-9a-z]+)"`)

// An operator adds, edits, disables and removes a number; its token and
// app secret never appear on a page, only the token's last four
// characters.
func TestNumbersPage(t *testing.T) {
	t.Parallel()
	e := newNumbersEnv(t)
	b := e.browser(t)
	b.login()
	const token, secret = "EAAGdashboardToken-secret-0042", "dashboard-app-secret-77"
	res, body := b.get("/dashboard/numbers")
	wantStatus(t, res, body, http.StatusOK)
	res, body = b.post("/dashboard/numbers", url.Values{"metaId": {"106540352242922"}, "displayNumber": {"+1 631-555-0100"},
		"verifiedName": {"Acme US"}, "wabaId": {"102290129340398"}, "appId": {"4242"}, "accessToken": {token},
		"appSecret": {secret}, "workspaces": {"mine"}})
	wantStatus(t, res, body, http.StatusCreated)
	if strings.Contains(body, token) || strings.Contains(body, secret) || !strings.Contains(body, "…0042") {
		t.Fatalf("the page after adding shows a secret, or not the token's last four:\n%s", body)
	}
	m := numberRow.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no number listed:\n%s", body)
	}
	id := domain.BusinessNumberID(m[1])
	n, err := e.store.GetNumber(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if n.AllWorkspaces || len(n.Workspaces) != 1 || n.AccessToken.IsZero() || strings.Contains(string(n.AccessToken.Data), token) {
		t.Fatalf("stored %+v", n)
	}
	app, err := e.store.GetApp(context.Background(), "4242")
	if err != nil || strings.Contains(string(app.Secret.Data), secret) {
		t.Fatalf("app stored %v, %v", app.Secret, err)
	}

	// A form with a mistake keeps what was typed, and says what is wrong.
	res, body = b.post("/dashboard/numbers", url.Values{"metaId": {"not a number!"}, "accessToken": {"x"}, "workspaces": {"all"}})
	wantStatus(t, res, body, http.StatusUnprocessableEntity)
	if !strings.Contains(body, "metaPhoneNumberId") {
		t.Errorf("the error does not name the field:\n%s", body)
	}

	res, body = b.get("/dashboard/numbers/" + string(id))
	wantStatus(t, res, body, http.StatusOK)
	if strings.Contains(body, token) || !strings.Contains(body, `value="Acme US"`) {
		t.Fatalf("the edit form:\n%s", body)
	}
	res, body = b.post("/dashboard/numbers/"+string(id), url.Values{"metaId": {"106540352242922"}, "displayNumber": {"+1 631-555-0100"},
		"verifiedName": {"Acme United States"}, "wabaId": {"102290129340398"}, "appId": {"4242"}, "mps": {"20"},
		"workspaces": {"all"}, "status": {"disabled"}})
	wantStatus(t, res, body, http.StatusOK)
	n, err = e.store.GetNumber(context.Background(), id)
	if err != nil || n.VerifiedName != "Acme United States" || n.MPS != 20 || !n.AllWorkspaces || n.Status != domain.NumberDisabled ||
		n.TokenHint != "0042" {
		t.Fatalf("after the edit: %+v, %v", n, err)
	}

	res, body = b.post("/dashboard/numbers/"+string(id)+"/remove", url.Values{})
	wantRedirect(t, res, "/dashboard/numbers")
	if _, err := e.store.GetNumber(context.Background(), id); err == nil {
		t.Error("the number is still stored after Remove")
	}
}

// With several numbers, the new campaign form asks which one it sends
// from, and the campaign is bound to it.
func TestNewCampaignChoosesItsNumber(t *testing.T) {
	t.Parallel()
	e := newNumbersEnv(t)
	b := e.browser(t)
	b.login()
	ctx := context.Background()
	var ids []domain.BusinessNumberID
	for _, meta := range []string{"1001", "1002"} {
		n, err := e.deps.Numbers.Add(ctx, app.AddNumber{Spec: domain.NumberSpec{MetaID: meta, DisplayNumber: "+1 555-" + meta,
			AllWorkspaces: true}, AccessToken: "EAAtoken-" + meta + "-abcdef"})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, n.ID)
	}
	_, page := b.get("/dashboard/campaigns/new")
	if !strings.Contains(page, `name="phoneNumberId"`) || !strings.Contains(page, string(ids[1])) {
		t.Fatalf("the new-campaign page offers no number:\n%s", page)
	}
	form := url.Values{"name": {"Spring"}, "source": {"local"}, "templateName": {"spring"}, "language": {"en_US"},
		"headerFormat": {"none"}, "body": {"Hi {{1}}"}, "labels": {"First name"}}
	res, body := b.post("/dashboard/campaigns", form)
	wantStatus(t, res, body, http.StatusUnprocessableEntity)
	if !strings.Contains(body, "phoneNumberId") {
		t.Errorf("no number chosen: the error does not say so:\n%s", body)
	}
	form.Set("phoneNumberId", string(ids[1]))
	res, _ = b.post("/dashboard/campaigns", form)
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("create with a number: %d", res.StatusCode)
	}
	ws, err := app.NewEnsureDefaultWorkspaceHandler(e.store, system.Clock{}, system.NewIDs()).Handle(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cs, _, err := e.store.ListCampaigns(ctx, ws.ID, ports.Page{})
	if err != nil || len(cs) != 1 || cs[0].Number != ids[1] {
		t.Fatalf("campaigns %+v, %v", cs, err)
	}
}
