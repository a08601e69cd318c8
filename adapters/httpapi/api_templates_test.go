package httpapi_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/heraldhq/herald/adapters/httpapi"
	"github.com/heraldhq/herald/adapters/system"
	"github.com/heraldhq/herald/adapters/whatsapp"
	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/ports/porttest"
	"github.com/heraldhq/herald/test/fakemeta"
)

// withCloudAPI wires the template use cases to a Cloud API client talking
// to fake.
func withCloudAPI(fake *fakemeta.Server) envOption {
	return func(d *httpapi.Deps, st porttest.Store) {
		c := whatsapp.New(whatsapp.Config{APIURL: fake.URL, AccessToken: fake.Token, WABAID: fake.WABAID})
		clock, obs := system.Clock{}, usecase.NewObserver(nil)
		events := usecase.NewEvents(system.NewIDs(), httpapi.NewEventRenderer())
		d.ListTemplates = app.NewListTemplatesHandler(c, st)
		d.SubmitTemplate = app.NewSubmitTemplateHandler(c, st, clock, obs)
		d.DeleteTemplate = app.NewDeleteTemplateHandler(c, st, clock, events, obs)
		d.CreateCampaign = app.NewCreateCampaignHandler(st, st, st, c, app.NewEnsureDefaultWorkspaceHandler(st, clock, system.NewIDs()), clock, system.NewIDs())
	}
}

const orderTemplate = `{"name":"order_shipped","language":"en_US","category":"UTILITY","components":[
 {"type":"HEADER","format":"TEXT","text":"Order {{1}}","example":{"headerText":["A-100"]}},
 {"type":"BODY","text":"Hello {{1}}, your order {{2}} ships today.","example":{"bodyText":["Ana","A-100"]}},
 {"type":"FOOTER","text":"Reply STOP to opt out"},
 {"type":"BUTTONS","buttons":[{"type":"QUICK_REPLY","text":"Thanks"},
  {"type":"URL","text":"Track","url":"https://shop.example/track/{{1}}","example":"https://shop.example/track/A-100"}]}]}`

const otpTemplate = `{"name":"login_code","language":"en_US","category":"AUTHENTICATION","components":[
 {"type":"BODY","addSecurityRecommendation":true},{"type":"FOOTER","codeExpirationMinutes":5},
 {"type":"BUTTONS","buttons":[{"type":"OTP","otpType":"COPY_CODE"}]}]}`

type templateView struct {
	Name, Language, Status, Category, ProviderID string
	Sendable                                     bool
	UnsendableReason                             *string
	Sandbox                                      bool
	Slots                                        []struct{ Slot, Kind string }
	Components                                   struct{ HeaderFormat, HeaderText, Body, Footer string }
}

type findingView struct{ Path, Code, Message string }

// TestTemplateLintRefusesWithEveryFinding: a template Meta's review would
// refuse comes back 422 template_invalid with every finding, and nothing
// reaches Meta.
func TestTemplateLintRefusesWithEveryFinding(t *testing.T) {
	onEveryEngineWith(t, func(t *testing.T, e *apiEnv, fake *fakemeta.Server) {
		bad := strings.NewReplacer(`"Hello {{1}}, your order {{2}} ships today."`, `"{{1}} {{2}}"`,
			`"Reply STOP to opt out"`, `"`+strings.Repeat("f", 61)+`"`, `"Thanks"`, `"`+strings.Repeat("t", 26)+`"`).Replace(orderTemplate)
		res, got := e.do(t, "POST", "/v1/templates", e.keyed(e.liveKey), bad)
		var p struct {
			Code   string
			Errors []findingView
		}
		if err := json.Unmarshal([]byte(got), &p); err != nil || res.StatusCode != 422 || p.Code != "template_invalid" {
			t.Fatalf("%d %s, want 422 template_invalid", res.StatusCode, got)
		}
		want := map[string]string{"components[1].text": "placeholders_adjacent", "components[2].text": "too_long",
			"components[3].buttons[0].text": "too_long"}
		seen := map[string]bool{}
		for _, f := range p.Errors {
			if want[f.Path] == f.Code {
				seen[f.Path] = true
			}
		}
		if len(seen) != len(want) || len(p.Errors) < 5 { // leading and trailing too
			t.Errorf("findings %+v, want at least %v", p.Errors, want)
		}
		if n := len(fake.Submissions()); n != 0 {
			t.Errorf("%d submissions reached Meta", n)
		}
	})
}

// TestTemplateSubmitListDelete: a live key's template goes to Meta,
// is listed PENDING and not sendable, becomes sendable once Meta approves
// it (a sync), and is deleted by name.
func TestTemplateSubmitListDelete(t *testing.T) {
	spec := fakemeta.LoadSpec(t)
	onEveryEngineWith(t, func(t *testing.T, e *apiEnv, fake *fakemeta.Server) {
		res, got := e.do(t, "POST", "/v1/templates", e.keyed(e.liveKey), orderTemplate)
		if res.StatusCode != 201 {
			t.Fatalf("submit: %d %s", res.StatusCode, got)
		}
		v := decode[templateView](t, got)
		if v.Status != "PENDING" || v.Sendable || v.ProviderID == "" || v.Sandbox || len(v.Slots) != 5 {
			t.Errorf("submitted: %+v", v)
		}
		subs := fake.Submissions()
		if len(subs) != 1 {
			t.Fatalf("%d submissions", len(subs))
		}
		if err := spec.CheckRequest("/{Version}/{WABA-ID}/message_templates", "post", subs[0].Body); err != nil {
			t.Error(err)
		}
		var sent struct {
			Components []struct {
				Type    string
				Example map[string]any
			}
		}
		json.Unmarshal(subs[0].Body, &sent)
		if sent.Components[1].Type != "BODY" || sent.Components[1].Example["body_text"] == nil {
			t.Errorf("the body's examples are not Meta's body_text: %s", subs[0].Body)
		}

		var list struct{ Data []templateView }
		e.get(t, "/v1/templates?status=pending", e.liveKey, &list)
		if len(list.Data) != 1 || list.Data[0].Name != "order_shipped" || list.Data[0].UnsendableReason == nil {
			t.Fatalf("pending list: %+v", list.Data)
		}
		// Meta approves; a sync (or the status webhook) brings it in.
		fake.SetTemplateStatus("order_shipped", "en_US", "APPROVED")
		sync := app.NewSyncTemplatesHandler(whatsapp.New(whatsapp.Config{APIURL: fake.URL, AccessToken: fake.Token, WABAID: fake.WABAID}), nil,
			e.store, system.Clock{}, usecase.NewEvents(system.NewIDs(), httpapi.NewEventRenderer()), usecase.NewObserver(nil))
		if _, err := sync.Handle(context.Background()); err != nil {
			t.Fatal(err)
		}
		e.get(t, "/v1/templates?name=order_shipped", e.liveKey, &list)
		if len(list.Data) != 1 || !list.Data[0].Sendable || list.Data[0].Components.HeaderText != "Order {{1}}" || len(list.Data[0].Slots) != 5 {
			t.Fatalf("after approval: %+v", list.Data)
		}

		// Submitting it again is Meta's refusal, as a finding.
		res, got = e.do(t, "POST", "/v1/templates", e.keyed(e.liveKey), orderTemplate)
		if res.StatusCode != 422 || !strings.Contains(got, "meta_refused") {
			t.Errorf("resubmit: %d %s", res.StatusCode, got)
		}

		if res, got := e.do(t, "DELETE", "/v1/templates/order_shipped", e.keyed(e.liveKey), ""); res.StatusCode != 204 {
			t.Fatalf("delete: %d %s", res.StatusCode, got)
		}
		if d := fake.Deleted(); len(d) != 1 || d[0] != "order_shipped" {
			t.Errorf("Meta's deletes: %q", d)
		}
		e.get(t, "/v1/templates", e.liveKey, &list)
		if len(list.Data) != 0 {
			t.Errorf("after delete: %+v", list.Data)
		}
		res, got = e.do(t, "DELETE", "/v1/templates/order_shipped", e.keyed(e.liveKey), "")
		if res.StatusCode != 404 || !strings.Contains(got, "template_not_found") {
			t.Errorf("delete again: %d %s", res.StatusCode, got)
		}
		if d := fake.Deleted(); len(d) != 1 {
			t.Errorf("an unknown template reached Meta: %q", d)
		}
	})
}

// TestTemplateAuthenticationSubmit: an OTP template is submitted with
// Meta's fields, and once listed it takes one variable, the code, in the
// body and the button.
func TestTemplateAuthenticationSubmit(t *testing.T) {
	spec := fakemeta.LoadSpec(t)
	onEveryEngineWith(t, func(t *testing.T, e *apiEnv, fake *fakemeta.Server) {
		fake.InstantVerdict = "APPROVED"
		res, got := e.do(t, "POST", "/v1/templates", e.keyed(e.liveKey), otpTemplate)
		if res.StatusCode != 201 {
			t.Fatalf("submit: %d %s", res.StatusCode, got)
		}
		v := decode[templateView](t, got)
		if v.Status != "APPROVED" || !v.Sendable || len(v.Slots) != 2 || v.Slots[1].Kind != "otp_code" {
			t.Errorf("submitted: %+v", v)
		}
		body := fake.Submissions()[0].Body
		if err := spec.CheckRequest("/{Version}/{WABA-ID}/message_templates", "post", body); err != nil {
			t.Error(err)
		}
		for _, want := range []string{`"add_security_recommendation":true`, `"code_expiration_minutes":5`, `"otp_type":"COPY_CODE"`} {
			if !strings.Contains(string(body), want) {
				t.Errorf("submission lacks %s: %s", want, body)
			}
		}
		if strings.Contains(string(body), `"text"`) {
			t.Errorf("an authentication template's texts are Meta's, yet the submission has one: %s", body)
		}
	})
}

// TestTemplateTestKeyNeverReachesMeta: a test key's template is linted the
// same, then approved by the sandbox and not kept; its delete is 404.
func TestTemplateTestKeyNeverReachesMeta(t *testing.T) {
	onEveryEngineWith(t, func(t *testing.T, e *apiEnv, fake *fakemeta.Server) {
		res, got := e.do(t, "POST", "/v1/templates", e.keyed(e.key), orderTemplate)
		if res.StatusCode != 201 {
			t.Fatalf("submit: %d %s", res.StatusCode, got)
		}
		if v := decode[templateView](t, got); v.Status != "APPROVED" || !v.Sandbox || !v.Sendable {
			t.Errorf("sandbox review: %+v", v)
		}
		bad := strings.Replace(orderTemplate, `"Thanks"`, `""`, 1)
		if res, got := e.do(t, "POST", "/v1/templates", e.keyed(e.key), bad); res.StatusCode != 422 {
			t.Errorf("lint with a test key: %d %s", res.StatusCode, got)
		}
		if res, got := e.do(t, "DELETE", "/v1/templates/order_shipped", e.keyed(e.key), ""); res.StatusCode != 404 {
			t.Errorf("delete with a test key: %d %s", res.StatusCode, got)
		}
		var list struct{ Data []templateView }
		e.get(t, "/v1/templates", e.liveKey, &list)
		if len(fake.Submissions())+len(fake.Deleted())+len(list.Data) != 0 {
			t.Errorf("a test key reached Meta or the store: %d submissions, %q deleted, %d listed",
				len(fake.Submissions()), fake.Deleted(), len(list.Data))
		}
	})
}

// TestTemplateBodyErrors: the body is checked strictly before the lint.
func TestTemplateBodyErrors(t *testing.T) {
	e := newEnv(t)
	for _, c := range []struct{ body, code string }{
		{`{"name":"x","language":"en","category":"UTILITY"}`, "missing_parameter"},
		{`{"name":"x","language":"en","category":"UTILITY","components":[{"type":"BODY","txet":"Hi"}]}`, "invalid_json"},
		{`{"name":"x","language":"en","category":"UTILITY","components":[]}`, "template_invalid"},
	} {
		res, got := e.do(t, "POST", "/v1/templates", e.keyed(e.key), c.body)
		if !strings.Contains(got, `"code":"`+c.code+`"`) {
			t.Errorf("%s: %d %s, want %s", c.body, res.StatusCode, got, c.code)
		}
	}
	// A live key on a server without the Cloud API.
	res, got := e.do(t, "POST", "/v1/templates", e.keyed(e.liveKey), orderTemplate)
	if res.StatusCode != 503 || !strings.Contains(got, "whatsapp_not_configured") {
		t.Errorf("live without Cloud API: %d %s", res.StatusCode, got)
	}
}

// onEveryEngineWith runs fn per engine with the Cloud API a fake.
func onEveryEngineWith(t *testing.T, fn func(t *testing.T, e *apiEnv, fake *fakemeta.Server)) {
	for _, eng := range engines {
		t.Run(eng.name, func(t *testing.T) {
			t.Parallel()
			fake := fakemeta.New(t)
			fn(t, newEnvOn(t, eng.open(t), withCloudAPI(fake)), fake)
		})
	}
}

// checkModeTemplates: a test key's template is the sandbox's, never Meta's
// or the store's; a live key on a server without the Cloud API is refused.
func checkModeTemplates(t *testing.T, f *modeFixture) {
	res, got := f.e.do(t, "POST", "/v1/templates", f.e.keyed(f.test.key), orderTemplate)
	if res.StatusCode != 201 || !strings.Contains(got, `"sandbox":true`) {
		t.Errorf("test key: %d %s", res.StatusCode, got)
	}
	if res, got := f.e.do(t, "POST", "/v1/templates", f.e.keyed(f.live.key), orderTemplate); res.StatusCode != 503 {
		t.Errorf("live key without the Cloud API: %d %s", res.StatusCode, got)
	}
	for _, k := range []string{f.test.key, f.live.key} {
		if res, got := f.e.do(t, "GET", "/v1/templates", f.e.keyed(k), ""); res.StatusCode != 200 || strings.TrimSpace(got) != `{"data":[]}` {
			t.Errorf("list: %d %s", res.StatusCode, got)
		}
		if res, got := f.e.do(t, "DELETE", "/v1/templates/order_shipped", f.e.keyed(k), ""); res.StatusCode != 404 {
			t.Errorf("delete: %d %s", res.StatusCode, got)
		}
	}
}

// checkTemplatesIsolation: templates are the business account's, which
// every workspace shares; a sandbox template is kept by none.
func checkTemplatesIsolation(t *testing.T, f *isoFixture) {
	if res, got := f.e.do(t, "POST", "/v1/templates", f.e.keyed(f.b.key), orderTemplate); res.StatusCode != 201 {
		t.Fatalf("submit: %d %s", res.StatusCode, got)
	}
	if res, got := f.e.do(t, "GET", "/v1/templates", f.e.keyed(f.a.key), ""); res.StatusCode != 200 || strings.TrimSpace(got) != `{"data":[]}` {
		t.Errorf("A's list: %d %s", res.StatusCode, got)
	}
	if res, got := f.e.do(t, "DELETE", "/v1/templates/order_shipped", f.e.keyed(f.a.key), ""); res.StatusCode != 404 {
		t.Errorf("A's delete: %d %s", res.StatusCode, got)
	}
}

// TestTemplateListsEveryButton: a template's buttons are listed in order
// as WhatsApp shows them, those that take no value (a static URL, a phone
// number) with their address or number: as submitted, and as a sync
// reads them back from Meta.
func TestTemplateListsEveryButton(t *testing.T) {
	const storeTemplate = `{"name":"store_hours","language":"en_US","category":"UTILITY","components":[
 {"type":"BODY","text":"We open at 9, {{1}}.","example":{"bodyText":["Ana"]}},
 {"type":"BUTTONS","buttons":[{"type":"URL","text":"Our hours","url":"https://shop.example/hours"},
  {"type":"PHONE_NUMBER","text":"Call us","phoneNumber":"+15550100"},
  {"type":"QUICK_REPLY","text":"Thanks"}]}]}`
	type buttonView struct{ Type, Text, URL, PhoneNumber string }
	want := []buttonView{{Type: "URL", Text: "Our hours", URL: "https://shop.example/hours"},
		{Type: "PHONE_NUMBER", Text: "Call us", PhoneNumber: "+15550100"}, {Type: "QUICK_REPLY", Text: "Thanks"}}
	type listed struct {
		Name       string
		Sendable   bool
		Slots      []struct{ Slot, Kind string }
		Components struct{ Buttons []buttonView }
	}
	check := func(t *testing.T, when string, v listed) {
		t.Helper()
		if len(v.Components.Buttons) != len(want) {
			t.Fatalf("%s: buttons %+v, want %+v", when, v.Components.Buttons, want)
		}
		for i, b := range v.Components.Buttons {
			if b != want[i] {
				t.Errorf("%s: button %d is %+v, want %+v", when, i, b, want[i])
			}
		}
		if len(v.Slots) != 2 { // the body's {{1}} and the quick reply's payload
			t.Errorf("%s: slots %+v, want the body's and the quick reply's", when, v.Slots)
		}
	}
	onEveryEngineWith(t, func(t *testing.T, e *apiEnv, fake *fakemeta.Server) {
		res, got := e.do(t, "POST", "/v1/templates", e.keyed(e.liveKey), storeTemplate)
		if res.StatusCode != 201 {
			t.Fatalf("submit: %d %s", res.StatusCode, got)
		}
		check(t, "submitted", decode[listed](t, got))
		var list struct{ Data []listed }
		e.get(t, "/v1/templates?name=store_hours", e.liveKey, &list)
		if len(list.Data) != 1 {
			t.Fatalf("listed: %+v", list.Data)
		}
		check(t, "listed once submitted", list.Data[0])

		fake.SetTemplateStatus("store_hours", "en_US", "APPROVED")
		sync := app.NewSyncTemplatesHandler(whatsapp.New(whatsapp.Config{APIURL: fake.URL, AccessToken: fake.Token, WABAID: fake.WABAID}), nil,
			e.store, system.Clock{}, usecase.NewEvents(system.NewIDs(), httpapi.NewEventRenderer()), usecase.NewObserver(nil))
		if _, err := sync.Handle(context.Background()); err != nil {
			t.Fatal(err)
		}
		e.get(t, "/v1/templates?name=store_hours", e.liveKey, &list)
		if len(list.Data) != 1 || !list.Data[0].Sendable {
			t.Fatalf("after sync: %+v", list.Data)
		}
		check(t, "synced", list.Data[0])
	})
}
