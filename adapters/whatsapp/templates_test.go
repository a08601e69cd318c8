package whatsapp_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/heraldhq/herald/adapters/whatsapp"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/test/fakemeta"
)

var syncedOpts = cmp.AllowUnexported(domain.TemplateStatus{}, domain.HeaderFormat{}, domain.SlotKind{}, domain.ButtonKind{})

func newTemplateFake(t *testing.T) (*fakemeta.Server, *whatsapp.Client) {
	t.Helper()
	fake := fakemeta.New(t)
	for _, tmpl := range sevenTemplates() {
		fake.AddTemplate(tmpl)
	}
	return fake, whatsapp.New(whatsapp.Config{APIURL: fake.URL, AccessToken: fake.Token, WABAID: fake.WABAID, Timeout: 10 * time.Second})
}

// sevenTemplates are added out of order; the list is sorted by name, then
// language.
func sevenTemplates() []fakemeta.Template {
	return []fakemeta.Template{
		{ID: "1007", Name: "welcome", Language: "pt_BR", Status: "APPROVED", Body: "Olá {{1}}, código {{2}}."},
		{ID: "1001", Name: "alert", Language: "en", Status: "APPROVED", Body: "Server {{1}} is down."},
		{ID: "1006", Name: "welcome", Language: "en_US", Status: "APPROVED", HeaderFormat: "text", HeaderText: "Welcome",
			Body: "Hi {{1}}, your code is {{2}}.", Footer: "Reply STOP to opt out",
			Buttons: []fakemeta.Button{{Type: "QUICK_REPLY", Text: "Stop"}, {Type: "URL", Text: "Site", URL: "https://example.com/"}}},
		{ID: "1003", Name: "promo", Language: "en", Status: "PAUSED", Category: "MARKETING", Header: "image", Body: "Sale: {{1}}"},
		{ID: "1002", Name: "named", Language: "en", Status: "APPROVED", ParameterFormat: "NAMED", Body: "Hi {{first_name}}"},
		{ID: "1005", Name: "store", Language: "en", Status: "APPROVED", HeaderFormat: "location", Body: "Find us here."},
		{ID: "1004", Name: "receipt", Language: "es", Status: "PENDING", Header: "document", Body: "Tu recibo."},
	}
}

func mustTemplate(t *testing.T, name, language string, header domain.HeaderFormat, headerText, body, footer string) domain.Template {
	t.Helper()
	d, err := domain.NewTemplate(name, language, header, headerText, body, footer, nil)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func mustDefine(t *testing.T, d domain.TemplateDefinition) domain.Template {
	t.Helper()
	tmpl, err := domain.DefineTemplate(d)
	if err != nil {
		t.Fatal(err)
	}
	return tmpl
}

func TestListTemplatesFollowsPages(t *testing.T) {
	t.Parallel()
	fake, c := newTemplateFake(t)
	fake.TemplatePageSize = 3
	got, err := c.ListTemplates(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	waba := fake.WABAID
	want := []domain.SyncedTemplate{
		{Account: waba, ProviderID: "1001", Name: "alert", Language: "en", Status: domain.TemplateApproved, Category: "UTILITY",
			Definition: mustTemplate(t, "alert", "en", domain.HeaderNone, "", "Server {{1}} is down.", "")},
		{Account: waba, ProviderID: "1002", Name: "named", Language: "en", Status: domain.TemplateApproved, Category: "UTILITY",
			Definition: mustDefine(t, domain.TemplateDefinition{Name: "named", Language: "en", Named: true, Body: "Hi {{first_name}}"})},
		{Account: waba, ProviderID: "1003", Name: "promo", Language: "en", Status: domain.TemplatePaused, Category: "MARKETING",
			Definition: mustTemplate(t, "promo", "en", domain.HeaderImage, "", "Sale: {{1}}", "")},
		{Account: waba, ProviderID: "1004", Name: "receipt", Language: "es", Status: domain.TemplatePending, Category: "UTILITY",
			Definition: mustTemplate(t, "receipt", "es", domain.HeaderDocument, "", "Tu recibo.", "")},
		{Account: waba, ProviderID: "1005", Name: "store", Language: "en", Status: domain.TemplateApproved, Category: "UTILITY",
			Definition: mustDefine(t, domain.TemplateDefinition{Name: "store", Language: "en", HeaderFormat: domain.HeaderLocation, Body: "Find us here."})},
		{Account: waba, ProviderID: "1006", Name: "welcome", Language: "en_US", Status: domain.TemplateApproved, Category: "UTILITY",
			Definition: mustDefine(t, domain.TemplateDefinition{Name: "welcome", Language: "en_US", HeaderFormat: domain.HeaderText, HeaderText: "Welcome",
				Body: "Hi {{1}}, your code is {{2}}.", Footer: "Reply STOP to opt out",
				Buttons: []domain.ButtonDef{{Kind: domain.ButtonQuickReply, Text: "Stop"}, {Kind: domain.ButtonURL, Text: "Site", URL: "https://example.com/"}}})},
		{Account: waba, ProviderID: "1007", Name: "welcome", Language: "pt_BR", Status: domain.TemplateApproved, Category: "UTILITY",
			Definition: mustTemplate(t, "welcome", "pt_BR", domain.HeaderNone, "", "Olá {{1}}, código {{2}}.", "")},
	}
	if d := cmp.Diff(want, got, syncedOpts); d != "" {
		t.Errorf("templates (-want +got):\n%s", d)
	}
	if n := fake.TemplateRequests(); n != 3 {
		t.Errorf("%d pages fetched, want 3", n)
	}
	if c.Account() != waba {
		t.Errorf("Account() = %q, want %q", c.Account(), waba)
	}
}

func TestListTemplatesSeesStatusChanges(t *testing.T) {
	t.Parallel()
	fake, c := newTemplateFake(t)
	fake.SetTemplateStatus("alert", "en", "DISABLED")
	got, err := c.ListTemplates(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Name != "alert" || got[0].Status != domain.TemplateDisabled {
		t.Fatalf("first template %s is %s, want alert DISABLED", got[0].Name, got[0].Status)
	}
}

func TestListTemplatesBoundsPages(t *testing.T) {
	t.Parallel()
	fake := fakemeta.New(t)
	fake.TemplatePageSize = 1
	for i := range 101 {
		fake.AddTemplate(fakemeta.Template{Name: fmt.Sprintf("t%03d", i), Language: "en", Status: "APPROVED"})
	}
	c := whatsapp.New(whatsapp.Config{APIURL: fake.URL, AccessToken: fake.Token, WABAID: fake.WABAID})
	_, err := c.ListTemplates(context.Background())
	if err == nil || !strings.Contains(err.Error(), "more than 100 pages") {
		t.Fatalf("%v, want an error about more than 100 pages", err)
	}
	if n := fake.TemplateRequests(); n != 100 {
		t.Errorf("%d pages fetched, want 100", n)
	}
}

func TestListTemplatesFailures(t *testing.T) {
	t.Parallel()
	const wrongToken = "EAAwrong0123456789abcdef"
	for _, c := range []struct {
		name  string
		cfg   func(t *testing.T, fake *fakemeta.Server) whatsapp.Config
		class ports.SendErrorClass
		code  int
	}{
		{"wrong token", func(t *testing.T, f *fakemeta.Server) whatsapp.Config {
			return whatsapp.Config{APIURL: f.URL, AccessToken: wrongToken, WABAID: f.WABAID}
		}, ports.ClassAuth, 190},
		{"unknown account", func(t *testing.T, f *fakemeta.Server) whatsapp.Config {
			return whatsapp.Config{APIURL: f.URL, AccessToken: f.Token, WABAID: "999999999999999"}
		}, ports.ClassPermanent, 100},
		{"refused", func(t *testing.T, f *fakemeta.Server) whatsapp.Config {
			return whatsapp.Config{APIURL: refusingURL(t), AccessToken: f.Token, WABAID: f.WABAID}
		}, ports.ClassRetryable, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			fake, _ := newTemplateFake(t)
			cfg := c.cfg(t, fake)
			_, err := whatsapp.New(cfg).ListTemplates(context.Background())
			se, ok := errors.AsType[*ports.SendError](err)
			if !ok || se.Class != c.class || se.Code != c.code {
				t.Fatalf("%v, want class %s code %d", err, c.class, c.code)
			}
			if strings.Contains(err.Error(), cfg.AccessToken) {
				t.Fatalf("the error quotes the access token: %v", err)
			}
		})
	}
	t.Run("not configured", func(t *testing.T) {
		t.Parallel()
		if _, err := whatsapp.New(whatsapp.Config{AccessToken: "x"}).ListTemplates(context.Background()); err == nil {
			t.Fatal("listing without a business account id succeeded")
		}
	})
}

// TestTemplateAnswersMatchMetasSpec checks the fake's template list
// answers against Meta's OpenAPI document.
func TestTemplateAnswersMatchMetasSpec(t *testing.T) {
	t.Parallel()
	spec := fakemeta.LoadSpec(t)
	fake, c := newTemplateFake(t)
	fake.TemplatePageSize = 2
	ctx := context.Background()
	if _, err := c.ListTemplates(ctx); err != nil {
		t.Fatal(err)
	}
	whatsapp.New(whatsapp.Config{APIURL: fake.URL, AccessToken: "wrong", WABAID: fake.WABAID}).ListTemplates(ctx)
	whatsapp.New(whatsapp.Config{APIURL: fake.URL, AccessToken: fake.Token, WABAID: "1"}).ListTemplates(ctx)
	statuses, bodies := fake.TemplateAnswers()
	if len(bodies) != 6 {
		t.Fatalf("%d answers, want 4 pages and 2 errors", len(bodies))
	}
	for i, b := range bodies {
		var err error
		if statuses[i] == 200 {
			err = spec.CheckResponse("/{Version}/{WABA-ID}/message_templates", "get", 200, b)
		} else {
			err = spec.Check("GraphAPIError_4", b)
		}
		if err != nil {
			t.Errorf("answer %d: %v", statuses[i], err)
		}
	}
}

func TestConvertTemplate(t *testing.T) {
	t.Parallel()
	const (
		body     = `{"type":"BODY","text":"Hi {{1}}, your code is {{2}}.","example":{"body_text":[["Ana","1234"]]}}`
		plain    = `{"type":"BODY","text":"Your order has shipped."}`
		buttons  = `{"type":"BUTTONS","buttons":[%s]}`
		quickURL = `{"type":"QUICK_REPLY","text":"Stop"},{"type":"URL","text":"Site","url":"https://example.com/"},{"type":"PHONE_NUMBER","text":"Call","phone_number":"+15550001111"}`
	)
	textHeader := mustTemplate(t, "t", "en_US", domain.HeaderText, "Hello", "Hi {{1}}, your code is {{2}}.", "Thanks")
	def := func(d domain.TemplateDefinition) domain.Template {
		t.Helper()
		d.Name, d.Language = "t", "en_US"
		tmpl, err := domain.DefineTemplate(d)
		if err != nil {
			t.Fatal(err)
		}
		return tmpl
	}
	const shipped = "Your order has shipped."
	withButtons := def(domain.TemplateDefinition{HeaderFormat: domain.HeaderText, HeaderText: "Hello", Body: "Hi {{1}}, your code is {{2}}.", Footer: "Thanks",
		Buttons: []domain.ButtonDef{{Kind: domain.ButtonQuickReply, Text: "Stop"}, {Kind: domain.ButtonURL, Text: "Site", URL: "https://example.com/"},
			{Kind: domain.ButtonPhone, Text: "Call", PhoneNumber: "+15550001111"}}})
	for _, c := range []struct {
		name        string
		status      string
		category    string
		format      string
		components  string
		wantStatus  domain.TemplateStatus
		want        domain.Template
		unsupported string
	}{
		{name: "text header, footer, plain buttons", status: "APPROVED", format: "POSITIONAL",
			components: `{"type":"HEADER","format":"TEXT","text":"Hello"},` + body + `,{"type":"FOOTER","text":"Thanks"},` + fmt.Sprintf(buttons, quickURL),
			wantStatus: domain.TemplateApproved, want: withButtons},
		{name: "no parameter format", status: "approved", components: `{"type":"HEADER","format":"TEXT","text":"Hello"},` + body + `,{"type":"FOOTER","text":"Thanks"}`,
			wantStatus: domain.TemplateApproved, want: textHeader},
		{name: "image", status: "APPROVED", components: `{"type":"HEADER","format":"IMAGE","example":{"header_handle":["https://x/y"]}},` + plain,
			wantStatus: domain.TemplateApproved, want: mustTemplate(t, "t", "en_US", domain.HeaderImage, "", "Your order has shipped.", "")},
		{name: "video", status: "REJECTED", components: `{"type":"HEADER","format":"VIDEO"},` + plain,
			wantStatus: domain.TemplateRejected, want: mustTemplate(t, "t", "en_US", domain.HeaderVideo, "", "Your order has shipped.", "")},
		{name: "document", status: "LIMIT_EXCEEDED", components: `{"type":"HEADER","format":"DOCUMENT"},` + plain,
			wantStatus: mustStatus(t, "LIMIT_EXCEEDED"), want: mustTemplate(t, "t", "en_US", domain.HeaderDocument, "", "Your order has shipped.", "")},
		{name: "named parameters", status: "APPROVED", format: "NAMED", components: `{"type":"BODY","text":"Hi {{name}}"}`,
			wantStatus: domain.TemplateApproved, want: def(domain.TemplateDefinition{Named: true, Body: "Hi {{name}}"})},
		{name: "location header", status: "APPROVED", components: `{"type":"HEADER","format":"LOCATION"},` + plain,
			wantStatus: domain.TemplateApproved, want: def(domain.TemplateDefinition{HeaderFormat: domain.HeaderLocation, Body: shipped})},
		{name: "gif header", status: "APPROVED", components: `{"type":"HEADER","format":"GIF"},` + plain,
			wantStatus: domain.TemplateApproved, unsupported: "gif headers are not supported"},
		{name: "header placeholder", status: "APPROVED", components: `{"type":"HEADER","format":"TEXT","text":"Hi {{1}}"},` + plain,
			wantStatus: domain.TemplateApproved, want: def(domain.TemplateDefinition{HeaderFormat: domain.HeaderText, HeaderText: "Hi {{1}}", Body: shipped})},
		{name: "url button with a variable", status: "APPROVED", components: plain + `,` + fmt.Sprintf(buttons, `{"type":"URL","text":"Track","url":"https://example.com/{{1}}"}`),
			wantStatus: domain.TemplateApproved, want: def(domain.TemplateDefinition{Body: shipped, Buttons: []domain.ButtonDef{{Kind: domain.ButtonURL, Text: "Track", URL: "https://example.com/{{1}}"}}})},
		{name: "copy code button", status: "APPROVED", components: plain + `,` + fmt.Sprintf(buttons, `{"type":"COPY_CODE","example":"SAVE10"}`),
			wantStatus: domain.TemplateApproved, want: def(domain.TemplateDefinition{Body: shipped, Buttons: []domain.ButtonDef{{Kind: domain.ButtonCopyCode}}})},
		{name: "otp button", status: "APPROVED", components: plain + `,` + fmt.Sprintf(buttons, `{"type":"OTP","otp_type":"COPY_CODE"}`),
			wantStatus: domain.TemplateApproved, unsupported: "only an authentication template has an OTP button"},
		{name: "authentication: Meta lists the OTP button as URL", status: "APPROVED", category: "AUTHENTICATION",
			components: `{"type":"BODY","text":"*{{1}}* is your verification code.","add_security_recommendation":true},{"type":"FOOTER","text":"This code expires in 5 minutes."},` +
				fmt.Sprintf(buttons, `{"type":"URL","text":"Copy code","url":"https://www.whatsapp.com/otp/code/?otp_type=COPY_CODE&code_expiration_minutes=5&code=otp{{1}}"}`),
			wantStatus: domain.TemplateApproved, want: def(domain.TemplateDefinition{Authentication: true, Body: "*{{1}}* is your verification code.",
				Footer: "This code expires in 5 minutes.", Buttons: []domain.ButtonDef{{Kind: domain.ButtonOTP, Text: "Copy code"}}})},
		{name: "carousel of two cards", status: "APPROVED", category: "MARKETING",
			components: `{"type":"BODY","text":"Pick one, {{1}}"},{"type":"CAROUSEL","cards":[` +
				`{"components":[{"type":"HEADER","format":"IMAGE"},{"type":"BODY","text":"Red {{1}}"},{"type":"BUTTONS","buttons":[{"type":"URL","text":"Buy","url":"https://s.example/{{1}}"}]}]},` +
				`{"components":[{"type":"HEADER","format":"VIDEO"},{"type":"BODY","text":"Blue {{1}}"},{"type":"BUTTONS","buttons":[{"type":"QUICK_REPLY","text":"Blue"}]}]}]}`,
			wantStatus: domain.TemplateApproved, want: def(domain.TemplateDefinition{Body: "Pick one, {{1}}", Cards: []domain.CardDef{
				{HeaderFormat: domain.HeaderImage, Body: "Red {{1}}", Buttons: []domain.ButtonDef{{Kind: domain.ButtonURL, Text: "Buy", URL: "https://s.example/{{1}}"}}},
				{HeaderFormat: domain.HeaderVideo, Body: "Blue {{1}}", Buttons: []domain.ButtonDef{{Kind: domain.ButtonQuickReply, Text: "Blue"}}}}})},
		{name: "limited-time offer with expiry", status: "APPROVED", category: "MARKETING",
			components: `{"type":"LIMITED_TIME_OFFER","limited_time_offer":{"text":"Ends soon","has_expiration":true}},{"type":"BODY","text":"Deal!"},` +
				fmt.Sprintf(buttons, `{"type":"COPY_CODE","example":"SAVE10"},{"type":"URL","text":"Shop","url":"https://s.example/{{1}}"}`),
			wantStatus: domain.TemplateApproved, want: def(domain.TemplateDefinition{Body: "Deal!", Offer: &domain.OfferDef{Text: "Ends soon", HasExpiration: true},
				Buttons: []domain.ButtonDef{{Kind: domain.ButtonCopyCode}, {Kind: domain.ButtonURL, Text: "Shop", URL: "https://s.example/{{1}}"}}})},
		{name: "flow button", status: "APPROVED", components: plain + `,` + fmt.Sprintf(buttons, `{"type":"FLOW","text":"Book"}`),
			wantStatus: domain.TemplateApproved, unsupported: "flow buttons are not supported"},
		{name: "carousel", status: "APPROVED", components: plain + `,{"type":"CAROUSEL","cards":[]}`,
			wantStatus: domain.TemplateApproved, unsupported: "a carousel has 2 to 10 cards; this one has 0"},
		{name: "limited-time offer", status: "APPROVED", components: `{"type":"LIMITED_TIME_OFFER","limited_time_offer":{"text":"Hurry"}},` + plain,
			wantStatus: domain.TemplateApproved, want: def(domain.TemplateDefinition{Body: shipped, Offer: &domain.OfferDef{Text: "Hurry"}})},
		{name: "placeholder gap", status: "APPROVED", components: `{"type":"BODY","text":"{{1}} and {{3}}"}`,
			wantStatus: domain.TemplateApproved, unsupported: "placeholder {{2}} is missing; placeholders must run from {{1}} without gaps"},
		{name: "no body", status: "APPROVED", components: `{"type":"HEADER","format":"IMAGE"}`,
			wantStatus: domain.TemplateApproved, unsupported: "a template body is 1 to 1024 characters"},
		{name: "unknown status", status: "in review!", components: plain,
			unsupported: `unrecognised status "in review!"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			category := c.category
			if category == "" {
				category = "UTILITY"
			}
			item := fmt.Sprintf(`{"id":"42","name":"t","language":"en_US","status":%q,"category":%q,"parameter_format":%q,"components":[%s]}`,
				c.status, category, c.format, c.components)
			got, err := whatsapp.ConvertTemplate("waba", []byte(item))
			if err != nil {
				t.Fatal(err)
			}
			want := domain.SyncedTemplate{Account: "waba", ProviderID: "42", Name: "t", Language: "en_US", Category: category,
				Status: c.wantStatus, Definition: c.want, Unsupported: c.unsupported}
			if d := cmp.Diff(want, got, syncedOpts); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func mustStatus(t *testing.T, s string) domain.TemplateStatus {
	t.Helper()
	st, err := domain.ParseTemplateStatus(s)
	if err != nil {
		t.Fatal(err)
	}
	return st
}
