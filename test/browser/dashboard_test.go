package browser

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"
)

const (
	operatorEmail    = "ops@example.com"
	operatorPassword = "correct horse battery staple"
	// testTimeout bounds the whole scenario; stepTimeout bounds one wait
	// in it, so a missing element fails in seconds with the step's name.
	testTimeout = 2 * time.Minute
	stepTimeout = 15 * time.Second
)

// TestDashboardInBrowser walks the dashboard as an operator does, one page
// after another, with a screenshot of each.
func TestDashboardInBrowser(t *testing.T) {
	t.Parallel()
	path := chromiumPath(t)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	srv := startHerald(t)
	b := newBrowser(ctx, t, path, srv.Base)

	signIn(t, b)
	token := createKey(t, b)
	campaignID := createCampaign(t, b)
	editMapping(t, b, campaignID)
	sendAndWatch(t, b, token, campaignID)
	editSlotMapping(t, b, token)
	revokeKey(t, b, token, campaignID)
	refuseCrossSite(t, b)
	signOut(t, b)
	b.checkConsole()
}

// signIn: the dashboard sends a stranger to the sign-in page, refuses a
// wrong password without saying which part was wrong, and lets the
// operator in to Campaigns.
func signIn(t *testing.T, b *browser) {
	b.open("/dashboard/")
	b.at("/dashboard/login?next=%2Fdashboard%2F")
	b.step("the sign-in form", chromedp.WaitVisible(chromedp.ID("email")), chromedp.WaitVisible(chromedp.ID("password")))
	b.shot("login")

	b.fill("#email", operatorEmail)
	b.fill("#password", "not the password at all")
	res := b.press("signing in with a wrong password", `form[action="/dashboard/login"] button[type=submit]`)
	wantStatus(t, "a wrong password", res, http.StatusUnauthorized)
	if got := b.text("main .alert.error"); got != "The email address or the password is wrong." {
		t.Fatalf("a wrong password shows %q", got)
	}
	b.shot("login-refused")

	b.fill("#email", operatorEmail)
	b.fill("#password", operatorPassword)
	res = b.press("signing in", `form[action="/dashboard/login"] button[type=submit]`)
	wantStatus(t, "signing in", res, http.StatusOK)
	b.at("/dashboard/campaigns")
	if got := b.text("main h1"); got != "Campaigns" {
		t.Fatalf("after signing in the page's heading is %q, want Campaigns", got)
	}
	if got := b.text("header .who"); got != operatorEmail {
		t.Fatalf("the header names %q, want %s", got, operatorEmail)
	}
	b.shot("campaigns-empty")
}

var tokenPattern = regexp.MustCompile(`^sk_test_[0-9a-z]{16}[0-9A-Za-z]{38}$`)

// createKey makes a test key on Developer settings. Its token is shown
// once, when it is made; afterwards the page shows its identifier only.
func createKey(t *testing.T, b *browser) string {
	b.open("/dashboard/keys")
	b.step("the keys page", chromedp.WaitVisible(chromedp.ID("key-name")))
	b.shot("keys-empty")
	b.fill("#key-name", "browser")
	b.step("choosing test mode", chromedp.Click(chromedp.CSS(`input[name=mode][value=test]`)))
	res := b.press("creating a key", `form[action="/dashboard/keys"] button[type=submit]`)
	wantStatus(t, "creating a key", res, http.StatusCreated)
	token := b.text("code#new-token")
	if !tokenPattern.MatchString(token) {
		t.Fatalf("the new key's token is %q, want one matching %s", token, tokenPattern)
	}
	if got := b.text("main .alert.notice"); got != "Key browser was created." {
		t.Errorf("the notice after creating a key is %q", got)
	}
	b.shot("key-created")

	identifier, secret := token[len("sk_test_"):len("sk_test_")+16], token[len("sk_test_")+16:]
	b.open("/dashboard/keys")
	doc := b.html()
	if strings.Contains(doc, token) || strings.Contains(doc, secret) {
		t.Fatalf("the keys page shows the token again after a reload")
	}
	if !strings.Contains(doc, "sk_test_"+identifier) {
		t.Fatalf("the keys page does not show the identifier sk_test_%s", identifier)
	}
	if rows := b.texts("main table tbody tr"); len(rows) != 1 || !strings.HasPrefix(rows[0], "browser") || !strings.Contains(rows[0], "active") {
		t.Fatalf("the keys table's rows are %q, want the active key browser", rows)
	}
	b.shot("keys")
	return token
}

// createCampaign creates and activates a campaign with a template defined
// here, then pauses it and activates it again with the status button.
func createCampaign(t *testing.T, b *browser) string {
	b.open("/dashboard/campaigns/new")
	b.step("the new-campaign form", chromedp.WaitVisible(chromedp.ID("c-name")))
	b.shot("campaign-new")
	b.fill("#c-name", "Welcome")
	b.step("choosing a template defined here", chromedp.Click(chromedp.CSS(`input[name=source][value=local]`)))
	b.fill("#c-tname", "welcome")
	b.fill("#c-lang", "en_US")
	b.step("choosing no header", chromedp.SetValue(chromedp.ID("c-header"), "none"))
	b.fill("#c-body", "Hi {{1}}, your code is {{2}}")
	b.fill("#c-labels", "First name\nCode")
	if got := value(b, "reading the labels", chromedp.Value(chromedp.ID("c-labels"))); got != "First name\nCode" {
		t.Fatalf("the labels field holds %q after typing", got)
	}
	b.step("ticking Activate now", chromedp.Click(chromedp.CSS(`input[name=activate]`)))
	res := b.press("creating the campaign", `form[action="/dashboard/campaigns"] button[type=submit]`)
	wantStatus(t, "creating the campaign", res, http.StatusOK)

	m := regexp.MustCompile(`^` + regexp.QuoteMeta(b.base) + `/dashboard/campaigns/(cmp_[0-9A-Za-z]+)$`).FindStringSubmatch(b.location())
	if m == nil {
		t.Fatalf("after creating the campaign the browser is on %s, want its details page", b.location())
	}
	id := m[1]
	if got := b.text("#campaign-id"); got != id {
		t.Fatalf("the page shows campaign id %q, its address %s", got, id)
	}
	if got := b.text(".heading-row .badge"); got != "active" {
		t.Fatalf("the new campaign's status is %q, want active", got)
	}
	b.shot("campaign")
	for _, want := range []string{"paused", "active"} {
		res = b.press("changing the status to "+want, ".heading-row form button[type=submit]")
		wantStatus(t, "changing the status to "+want, res, http.StatusOK)
		b.at("/dashboard/campaigns/" + id)
		if got := b.text(".heading-row .badge"); got != want {
			t.Fatalf("after pressing the status button the campaign is %q, want %s", got, want)
		}
		if want == "paused" {
			b.shot("campaign-paused")
		}
	}
	return id
}

// editMapping renames {{2}}; the preview shows the new label.
func editMapping(t *testing.T, b *browser, id string) {
	path := "/dashboard/campaigns/" + id
	if got := value(b, "reading the label of {{2}}", chromedp.Value(chromedp.ID("label-2"))); got != "Code" {
		t.Fatalf("the label of {{2}} is %q, want Code", got)
	}
	b.fill("#label-2", "Verification code")
	res := b.press("saving the mapping", `form[action="`+path+`"] button[type=submit]`)
	wantStatus(t, "saving the mapping", res, http.StatusOK)
	b.at(path + "?saved=1")
	if got := b.text("main .alert.notice"); got != "The campaign was saved." {
		t.Fatalf("after saving, the notice is %q", got)
	}
	if got := b.text(".bubble-body"); !strings.Contains(got, "{{1}} First name") || !strings.Contains(got, "{{2}} Verification code") {
		t.Fatalf("the preview reads %q, want {{1}} First name and {{2}} Verification code", got)
	}
	b.shot("campaign-saved")
}

// editSlotMapping opens a campaign whose template has buttons (made over
// the API), has its quick reply's payload taken from a variable instead of
// the button's text, and sees a fixed coupon code over Meta's 15
// characters refused with what was typed kept.
func editSlotMapping(t *testing.T, b *browser, token string) {
	code, _, body := call(t, "POST", b.base+"/v1/campaigns", map[string]any{"name": "Deals", "templateName": "deals", "language": "en_US",
		"body": "Hi {{1}}, your deal is ready.", "buttons": []map[string]string{{"type": "quick_reply", "text": "Stop"},
			{"type": "url", "text": "Shop", "url": "https://shop.example/d/{{1}}"}, {"type": "copy_code"}}},
		map[string]string{"X-API-KEY": token})
	if code != http.StatusCreated {
		t.Fatalf("creating a campaign with buttons over the API: %d %s", code, body)
	}
	id := regexp.MustCompile(`"id":"(cmp_[0-9a-z]+)"`).FindStringSubmatch(body)[1]
	path := "/dashboard/campaigns/" + id
	b.open(path)
	// Slots 1…4: body.1, buttons.0 (the quick reply), buttons.1 (the URL's
	// suffix), buttons.2 (the coupon code).
	if got := value(b, "reading where the quick reply's payload comes from", chromedp.Value(chromedp.ID("source-2"))); got != "value" {
		t.Fatalf("the quick reply's payload comes from %q, want a fixed value", got)
	}
	if got := value(b, "reading the payload", chromedp.Value(chromedp.ID("value-2"))); got != "Stop" {
		t.Fatalf("the quick reply's fixed payload is %q, want its text", got)
	}
	b.shot("campaign-slots")
	b.step("taking the payload from the variables", chromedp.SetValue(chromedp.ID("source-2"), "position"))
	b.fill("#position-2", "4")
	b.fill("#label-2", "Opt-out payload")
	res := b.press("saving the slots", `form[action="`+path+`"] button[type=submit]`)
	wantStatus(t, "saving the slots", res, http.StatusOK)
	b.at(path + "?saved=1")
	if got := value(b, "reading the payload's source", chromedp.Value(chromedp.ID("source-2"))); got != "position" {
		t.Fatalf("after saving, the payload comes from %q", got)
	}
	if got := b.text("#curl"); !strings.Contains(got, `"variables":["value 1","value 2","value 3","Opt-out payload"]`) {
		t.Fatalf("the send example does not follow the new mapping: %s", got)
	}

	b.step("fixing the coupon code", chromedp.SetValue(chromedp.ID("source-4"), "value"))
	b.fill("#value-4", "WAYTOOLONGCOUPON1")
	res = b.press("saving a coupon code too long", `form[action="`+path+`"] button[type=submit]`)
	wantStatus(t, "saving a coupon code too long", res, http.StatusUnprocessableEntity)
	if got := b.text("main .alert.error"); !strings.Contains(got, "15 characters Meta allows in a coupon code") {
		t.Fatalf("the refusal says %q", got)
	}
	if got := value(b, "reading the coupon typed", chromedp.Value(chromedp.ID("value-4"))); got != "WAYTOOLONGCOUPON1" {
		t.Fatalf("the refused form lost the coupon typed: %q", got)
	}
	b.shot("campaign-slots-refused")
}

// send posts a sandbox send through the campaign with Go's client and
// returns the status.
func send(t *testing.T, base, token, campaignID, phone string, vars ...string) int {
	t.Helper()
	code, _, body := call(t, "POST", base+"/v1/messages/send-campaign",
		map[string]any{"phoneNumber": phone, "campaignId": campaignID, "variables": vars},
		map[string]string{"X-API-KEY": token})
	if code == http.StatusAccepted && !strings.Contains(body, `"status":"queued"`) {
		t.Fatalf("send to %s answered %d %s", phone, code, body)
	}
	return code
}

// sendAndWatch sends twice over the API: one message is read, the other
// fails with Meta's code for an undeliverable number. The statistics, the
// recent messages, the campaigns list, the contacts and the thread follow.
func sendAndWatch(t *testing.T, b *browser, token, campaignID string) {
	path := "/dashboard/campaigns/" + campaignID
	if code := send(t, b.base, token, campaignID, "+14155550123", "Ada", "123456"); code != http.StatusAccepted {
		t.Fatalf("sending to +14155550123: %d, want 202", code)
	}
	if code := send(t, b.base, token, campaignID, "+14155550001", "Bo", "1"); code != http.StatusAccepted {
		t.Fatalf("sending to +14155550001: %d, want 202", code)
	}
	// The sandbox moves a message a step every 50 ms; the page shows the
	// counts as they are when it loads, so reload until they arrive.
	deadline := time.Now().Add(30 * time.Second)
	for {
		b.open(path)
		read, failed := b.text("#stat-read"), b.text("#stat-failed")
		if read == "1" && failed == "1" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 30s the campaign shows %s read and %s failed, want 1 and 1", read, failed)
		}
	}
	if got := b.text("#stat-total"); got != "2" {
		t.Errorf("the campaign counts %s messages, want 2", got)
	}
	rows := b.texts(`section[aria-labelledby=recent-h] tbody tr`)
	if len(rows) != 2 {
		t.Fatalf("recent messages: %q, want two rows", rows)
	}
	for _, want := range [][]string{{"+14155550123", "read"}, {"+14155550001", "failed", "131026"}} {
		i := slices.IndexFunc(rows, func(r string) bool { return strings.Contains(r, want[0]) })
		if i < 0 {
			t.Fatalf("recent messages %q: none to %s", rows, want[0])
		}
		for _, w := range want[1:] {
			if !strings.Contains(rows[i], w) {
				t.Errorf("the recent message to %s reads %q, want %q in it", want[0], rows[i], w)
			}
		}
	}
	b.shot("campaign-stats")

	b.open("/dashboard/campaigns")
	// Name, id, status, template, messages, delivered, read, failed, test.
	// The Delivered column counts messages now in that status, which the
	// read one has left; both were sent with a test key.
	if cells := b.texts("main table tbody tr td"); len(cells) != 9 || cells[0] != "Welcome" || cells[2] != "active" ||
		cells[4] != "2" || cells[6] != "1" || cells[7] != "1" || cells[8] != "2" {
		t.Fatalf("the campaigns table reads %q, want Welcome, active, 2 messages, 1 read, 1 failed, 2 test", cells)
	}
	b.shot("campaigns")

	b.open("/dashboard/contacts")
	b.fill("#phone", "+1415555")
	res := b.press("searching contacts", `form.search button[type=submit]`)
	wantStatus(t, "searching contacts", res, http.StatusOK)
	b.at("/dashboard/contacts?phone=%2B1415555")
	numbers := b.texts("main table tbody tr td:first-child a")
	slices.Sort(numbers)
	if diff := cmp.Diff([]string{"+14155550001", "+14155550123"}, numbers); diff != "" {
		t.Fatalf("contacts found for +1415555 (-want +got):\n%s", diff)
	}
	b.shot("contacts")

	href := value(b, "finding the contact's link", chromedp.Evaluate[string](
		`Array.from(document.querySelectorAll("main table tbody a")).find(a => a.textContent.trim() === "+14155550123").getAttribute("href")`))
	res = b.press("opening the contact", `main table tbody a[href="`+href+`"]`)
	wantStatus(t, "opening the contact", res, http.StatusOK)
	b.at(href)
	if got := b.text("main h1"); got != "+14155550123" {
		t.Fatalf("the contact page's heading is %q", got)
	}
	if got := b.texts(".thread .entry-body"); !slices.Equal(got, []string{"Hi Ada, your code is 123456"}) {
		t.Fatalf("the thread reads %q, want the rendered template", got)
	}
	if got := b.text(".thread .entry-meta .badge"); got != "read" {
		t.Fatalf("the message in the thread is %q, want read", got)
	}
	b.shot("contact")
}

// revokeKey revokes the key on Developer settings, which asks for
// confirmation first; the API refuses the key at once.
func revokeKey(t *testing.T, b *browser, token, campaignID string) {
	b.open("/dashboard/keys")
	// The confirmation blocks the page, and with it the click that opened
	// it, so another goroutine accepts it.
	dctx, stopDialogs := context.WithCancel(b.ctx)
	dialogs := chromedp.Events(dctx, page.JavascriptDialogOpening)
	confirmed := make(chan string, 1)
	go func() {
		for ev, err := range dialogs {
			if err != nil {
				return
			}
			_, err := chromedp.Call(b.ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: true})
			select {
			case confirmed <- string(ev.Type) + ": " + ev.Message:
			default:
			}
			if err != nil {
				return
			}
		}
	}()
	res := b.press("revoking the key", `form[action$="/revoke"] button[type=submit]`)
	stopDialogs()
	wantStatus(t, "revoking the key", res, http.StatusOK)
	b.at("/dashboard/keys")
	select {
	case got := <-confirmed:
		if got != "confirm: Revoke the key browser? Requests with it will be refused." {
			t.Errorf("the revoke dialog was %q", got)
		}
	default:
		t.Errorf("revoking the key asked for no confirmation")
	}
	if rows := b.texts("main table tbody tr"); len(rows) != 1 || !strings.Contains(rows[0], "revoked") {
		t.Fatalf("after revoking, the keys table reads %q", rows)
	}
	b.shot("key-revoked")
	if code := send(t, b.base, token, campaignID, "+14155550123", "Ada", "123456"); code != http.StatusUnauthorized {
		t.Fatalf("a send with the revoked key answered %d, want 401", code)
	}
}

// refuseCrossSite: a form another site posts to the dashboard is refused,
// though the browser is signed in, and so is any request that says it is
// cross-site. The session cookie does not open the API, nor does an API
// key open the dashboard.
func refuseCrossSite(t *testing.T, b *browser) {
	// Another port on the loopback address is another origin.
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><title>You won</title>
<form id="f" method="post" action="%s/dashboard/keys">
<input name="name" value="evil"><input name="mode" value="live"></form>
<script>document.getElementById("f").submit()</script>`, html.EscapeString(b.base))
	}))
	defer evil.Close()
	// Navigate does not return until its page loads, which this one never
	// quite does: the script leaves it at once. So only ask for it, and
	// wait for the dashboard's answer to the form.
	goThere := chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		res, err := cdp.Call(ctx, tg, page.Navigate, page.NavigateParams{URL: evil.URL})
		if err == nil && res.ErrorText != "" {
			err = fmt.Errorf("opening %s: %s", evil.URL, res.ErrorText)
		}
		return err
	})
	posted := value(b, "the other site's form post", chromedp.WaitEvent(network.ResponseReceived,
		func(ev network.EventResponseReceived) bool {
			return ev.Type == network.ResourceTypeDocument && ev.Response.URL == b.base+"/dashboard/keys"
		}, goThere))
	if posted.Response.Status != http.StatusForbidden {
		t.Fatalf("the other site's form post answered %d, want 403", posted.Response.Status)
	}
	b.step("the refusal page", chromedp.WaitVisible(chromedp.CSS("main .alert.error")))
	b.at("/dashboard/keys")
	if got := b.text("main .alert.error"); !strings.Contains(got, "refused") {
		t.Fatalf("the other site's form post shows %q, want a refusal", got)
	}
	b.shot("cross-site-refused")
	b.open("/dashboard/keys")
	if names := b.texts("main table tbody tr td:first-child"); slices.Contains(names, "evil") {
		t.Fatalf("the other site's form made a key: %q", names)
	}

	// The same post with Go's client, carrying the browser's session and
	// the form's token: refused when it says it is cross-site, accepted
	// when it says it comes from the dashboard itself.
	csrf := value(b, "reading the form token", chromedp.Value(chromedp.CSS(`form[action="/dashboard/keys"] input[name=csrf]`)))
	c := b.sessionCookie()
	if c == nil || csrf == "" {
		t.Fatalf("no session cookie (%v) or no form token (%q)", c, csrf)
	}
	if !c.HTTPOnly || c.Path != "/dashboard" || c.SameSite != network.CookieSameSiteLax {
		t.Errorf("the session cookie is HttpOnly=%v Path=%s SameSite=%s, want true, /dashboard, Lax", c.HTTPOnly, c.Path, c.SameSite)
	}
	session := "herald_session=" + c.Value
	form := url.Values{"name": {"evil"}, "mode": {"live"}, "csrf": {csrf}}
	if code, _, body := call(t, "POST", b.base+"/dashboard/keys", form,
		map[string]string{"Cookie": session, "Sec-Fetch-Site": "cross-site"}); code != http.StatusForbidden || !strings.Contains(body, "refused") {
		t.Fatalf("a cross-site POST with the session and the form token answered %d, want 403 and a refusal:\n%s", code, body)
	}
	form = url.Values{"name": {"control"}, "mode": {"test"}, "csrf": {csrf}}
	code, _, body := call(t, "POST", b.base+"/dashboard/keys", form,
		map[string]string{"Cookie": session, "Sec-Fetch-Site": "same-origin", "Origin": b.base})
	m := regexp.MustCompile(`<code id="new-token">(sk_test_[0-9A-Za-z]+)</code>`).FindStringSubmatch(body)
	if code != http.StatusCreated || m == nil {
		t.Fatalf("a same-origin POST with the session and the form token answered %d, want 201 and a token:\n%s", code, body)
	}
	key := m[1]

	if code, _, body := call(t, "GET", b.base+"/v1/campaigns", nil, map[string]string{"Cookie": session}); code != http.StatusUnauthorized {
		t.Fatalf("GET /v1/campaigns with only the session cookie answered %d, want 401:\n%s", code, body)
	}
	if code, _, body := call(t, "GET", b.base+"/v1/campaigns", nil, map[string]string{"X-API-KEY": key}); code != http.StatusOK {
		t.Fatalf("GET /v1/campaigns with the new key answered %d, want 200:\n%s", code, body)
	}
	if code, h, _ := call(t, "GET", b.base+"/dashboard/keys", nil, map[string]string{"X-API-KEY": key}); code != http.StatusSeeOther ||
		h.Get("Location") != "/dashboard/login?next=%2Fdashboard%2Fkeys" {
		t.Fatalf("GET /dashboard/keys with only an API key answered %d to %q, want 303 to the sign-in page", code, h.Get("Location"))
	}
}

// signOut ends the session, in the browser and on the server.
func signOut(t *testing.T, b *browser) {
	c := b.sessionCookie()
	if c == nil {
		t.Fatal("the browser has no session cookie before signing out")
	}
	session := "herald_session=" + c.Value
	b.open("/dashboard/keys")
	res := b.press("signing out", "form.signout button[type=submit]")
	wantStatus(t, "signing out", res, http.StatusOK)
	b.at("/dashboard/login")
	if c := b.sessionCookie(); c != nil {
		t.Errorf("after signing out the browser still has the session cookie %+v", c)
	}
	b.shot("signed-out")
	b.open("/dashboard/keys")
	b.at("/dashboard/login?next=%2Fdashboard%2Fkeys")
	if code, h, _ := call(t, "GET", b.base+"/dashboard/keys", nil, map[string]string{"Cookie": session}); code != http.StatusSeeOther ||
		!strings.HasPrefix(h.Get("Location"), "/dashboard/login") {
		t.Fatalf("GET /dashboard/keys with the signed-out session answered %d to %q, want 303 to the sign-in page", code, h.Get("Location"))
	}
}
