package domain_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/heraldhq/herald/domain"
)

// orderDraft is a template Meta accepts: a text header with a sample, a
// body whose placeholders have words around them and samples, a footer and
// buttons.
func orderDraft() domain.TemplateDraft {
	return domain.TemplateDraft{Name: "order_shipped", Language: "en_US", Category: "UTILITY",
		Components: []domain.DraftComponent{
			{Type: "HEADER", Format: "TEXT", Text: "Order {{1}}", Example: domain.DraftExample{HeaderText: []string{"A-100"}}},
			{Type: "BODY", Text: "Hello {{1}}, your order {{2}} ships today.", Example: domain.DraftExample{BodyText: []string{"Ana", "A-100"}}},
			{Type: "FOOTER", Text: "Reply STOP to opt out"},
			{Type: "BUTTONS", Buttons: []domain.DraftButton{
				{Type: "QUICK_REPLY", Text: "Thanks"},
				{Type: "URL", Text: "Track", URL: "https://shop.example/track/{{1}}", Example: "https://shop.example/track/A-100"},
			}},
		}}
}

func otpDraft() domain.TemplateDraft {
	return domain.TemplateDraft{Name: "login_code", Language: "en_US", Category: "AUTHENTICATION",
		Components: []domain.DraftComponent{
			{Type: "BODY", AddSecurityRecommendation: true},
			{Type: "FOOTER", CodeExpirationMinutes: 5},
			{Type: "BUTTONS", Buttons: []domain.DraftButton{{Type: "OTP", OTPType: "COPY_CODE"}}},
		}}
}

func TestLintTemplateAcceptsWhatMetaAccepts(t *testing.T) {
	for name, d := range map[string]domain.TemplateDraft{"utility": orderDraft(), "authentication": otpDraft()} {
		tmpl, findings := domain.LintTemplate(d)
		if len(findings) != 0 {
			t.Fatalf("%s: findings %+v", name, findings)
		}
		if len(tmpl.Slots) == 0 {
			t.Errorf("%s: no slots in %+v", name, tmpl)
		}
	}
	tmpl, _ := domain.LintTemplate(otpDraft())
	if tmpl.Body != domain.AuthenticationBody {
		t.Errorf("authentication body = %q, want Meta's", tmpl.Body)
	}
}

func TestLintTemplateFindings(t *testing.T) {
	cases := []struct {
		name   string
		edit   func(d *domain.TemplateDraft)
		otp    bool
		path   string
		code   string
		substr string
	}{
		{"name uppercase", func(d *domain.TemplateDraft) { d.Name = "Order" }, false, "name", domain.LintInvalid, "lowercase"},
		{"name too long", func(d *domain.TemplateDraft) { d.Name = strings.Repeat("a", 513) }, false, "name", domain.LintInvalid, "512"},
		{"language", func(d *domain.TemplateDraft) { d.Language = "en US" }, false, "language", domain.LintInvalid, "en_US"},
		{"category", func(d *domain.TemplateDraft) { d.Category = "PROMO" }, false, "category", domain.LintInvalid, "MARKETING"},
		{"parameter format", func(d *domain.TemplateDraft) { d.ParameterFormat = "MIXED" }, false, "parameterFormat", domain.LintInvalid, "NAMED"},
		{"gap", func(d *domain.TemplateDraft) {
			d.Components[1].Text = "Hello {{1}}, your order {{3}} ships today."
		}, false, "components[1].text", domain.LintPlaceholder, "{{2}} is missing"},
		{"leading", func(d *domain.TemplateDraft) {
			d.Components[1].Text = "{{1}}, your order {{2}} ships today."
		}, false, "components[1].text", domain.LintLeading, "start"},
		{"trailing", func(d *domain.TemplateDraft) {
			d.Components[1].Text = "Hello {{1}}, your order ships on {{2}}"
		}, false, "components[1].text", domain.LintTrailing, "end"},
		{"adjacent", func(d *domain.TemplateDraft) {
			d.Components[1].Text = "Hello {{1}} {{2}}, your order ships today."
		}, false, "components[1].text", domain.LintAdjacent, "{{1}} and {{2}}"},
		{"body example", func(d *domain.TemplateDraft) { d.Components[1].Example.BodyText = []string{"Ana"} }, false,
			"components[1].example.bodyText", domain.LintExample, "{{2}}"},
		{"header example", func(d *domain.TemplateDraft) { d.Components[0].Example.HeaderText = nil }, false,
			"components[0].example.headerText", domain.LintExample, "{{1}}"},
		{"media example", func(d *domain.TemplateDraft) {
			d.Components[0] = domain.DraftComponent{Type: "HEADER", Format: "IMAGE"}
		}, false,
			"components[0].example.headerHandle", domain.LintExample, "sample"},
		{"header length", func(d *domain.TemplateDraft) { d.Components[0].Text = strings.Repeat("h", 61) }, false,
			"components[0].text", domain.LintTooLong, "60"},
		{"header two placeholders", func(d *domain.TemplateDraft) {
			d.Components[0].Text = "Order {{1}} of {{2}}"
			d.Components[0].Example.HeaderText = []string{"a", "b"}
		}, false, "components[0].text", domain.LintPlaceholder, "at most one"},
		{"header emoji", func(d *domain.TemplateDraft) { d.Components[0].Text = "Order 🎉 {{1}}" }, false,
			"components[0].text", domain.LintInvalid, "emoji"},
		{"body length", func(d *domain.TemplateDraft) { d.Components[1].Text = strings.Repeat("b", 1025) }, false,
			"components[1].text", domain.LintTooLong, "1024"},
		{"footer length", func(d *domain.TemplateDraft) { d.Components[2].Text = strings.Repeat("f", 61) }, false,
			"components[2].text", domain.LintTooLong, "60"},
		{"button text length", func(d *domain.TemplateDraft) { d.Components[3].Buttons[0].Text = strings.Repeat("t", 26) }, false,
			"components[3].buttons[0].text", domain.LintTooLong, "25"},
		{"url length", func(d *domain.TemplateDraft) {
			d.Components[3].Buttons[1].URL = "https://shop.example/" + strings.Repeat("u", 2000)
		}, false, "components[3].buttons[1].url", domain.LintTooLong, "2000"},
		{"url placeholder not at end", func(d *domain.TemplateDraft) {
			d.Components[3].Buttons[1].URL = "https://shop.example/{{1}}/track"
		}, false, "components[3].buttons[1].url", domain.LintPlaceholder, "at its end"},
		{"url example", func(d *domain.TemplateDraft) { d.Components[3].Buttons[1].Example = "" }, false,
			"components[3].buttons[1].example", domain.LintExample, "sample URL"},
		{"quick replies apart", func(d *domain.TemplateDraft) {
			d.Components[3].Buttons = append(d.Components[3].Buttons, domain.DraftButton{Type: "QUICK_REPLY", Text: "Later"})
		}, false, "components[3].buttons[2].type", domain.LintButtons, "next to each other"},
		{"too many url buttons", func(d *domain.TemplateDraft) {
			b := domain.DraftButton{Type: "URL", Text: "Shop", URL: "https://shop.example"}
			d.Components[3].Buttons = append(d.Components[3].Buttons, b, b)
		}, false, "components[3].buttons[3].type", domain.LintButtons, "at most 2 URL"},
		{"phone number", func(d *domain.TemplateDraft) {
			d.Components[3].Buttons = append(d.Components[3].Buttons, domain.DraftButton{Type: "PHONE_NUMBER", Text: "Call", PhoneNumber: "call us"})
		}, false, "components[3].buttons[2].phoneNumber", domain.LintInvalid, "20 digits"},
		{"copy code example", func(d *domain.TemplateDraft) {
			d.Components[3].Buttons = append(d.Components[3].Buttons, domain.DraftButton{Type: "COPY_CODE", Example: "TOO LONG A CODE!!"})
		}, false, "components[3].buttons[2].example", domain.LintExample, "15"},
		{"otp outside authentication", func(d *domain.TemplateDraft) {
			d.Components[3].Buttons = append(d.Components[3].Buttons, domain.DraftButton{Type: "OTP", OTPType: "COPY_CODE"})
		}, false, "components[3].buttons[2].type", domain.LintCategory, "AUTHENTICATION"},
		{"offer outside marketing", func(d *domain.TemplateDraft) {
			d.Components = append(d.Components, domain.DraftComponent{Type: "LIMITED_TIME_OFFER", OfferText: "Ends soon"})
		}, false, "components[4].type", domain.LintCategory, "MARKETING"},
		{"carousel cards", func(d *domain.TemplateDraft) {
			d.Category = "MARKETING"
			d.Components = append(d.Components, domain.DraftComponent{Type: "CAROUSEL", Cards: []domain.DraftCard{{}}})
		}, false, "components[4].cards", domain.LintDefinition, "2 to 10"},
		{"no body", func(d *domain.TemplateDraft) { d.Components = d.Components[2:] }, false, "components", domain.LintRequired, "BODY"},
		{"authentication media header", func(d *domain.TemplateDraft) {
			d.Components = append([]domain.DraftComponent{{Type: "HEADER", Format: "IMAGE"}}, d.Components...)
		}, true, "components[0]", domain.LintCategory, "no header"},
		{"authentication body text", func(d *domain.TemplateDraft) { d.Components[0].Text = "Your code is {{1}}." }, true,
			"components[0].text", domain.LintCategory, "Meta writes"},
		{"authentication expiry", func(d *domain.TemplateDraft) { d.Components[1].CodeExpirationMinutes = 120 }, true,
			"components[1].codeExpirationMinutes", domain.LintInvalid, "1 to 90"},
		{"authentication without otp", func(d *domain.TemplateDraft) {
			d.Components[2].Buttons = []domain.DraftButton{{Type: "QUICK_REPLY", Text: "Ok"}}
		}, true, "components", domain.LintCategory, "exactly one OTP"},
		{"otp button text", func(d *domain.TemplateDraft) { d.Components[2].Buttons[0].Text = "Copy" }, true,
			"components[2].buttons[0].text", domain.LintCategory, "leave it out"},
		{"one tap apps", func(d *domain.TemplateDraft) { d.Components[2].Buttons[0].OTPType = "ONE_TAP" }, true,
			"components[2].buttons[0].supportedApps", domain.LintRequired, "Android"},
		{"signature hash", func(d *domain.TemplateDraft) {
			d.Components[2].Buttons[0].OTPType = "ONE_TAP"
			d.Components[2].Buttons[0].SupportedApps = []domain.SupportedApp{{PackageName: "com.example", SignatureHash: "short"}}
		}, true, "components[2].buttons[0].supportedApps[0].signatureHash", domain.LintInvalid, "11"},
		{"zero tap terms", func(d *domain.TemplateDraft) {
			d.Components[2].Buttons[0].OTPType = "ZERO_TAP"
			d.Components[2].Buttons[0].SupportedApps = []domain.SupportedApp{{PackageName: "com.example", SignatureHash: "abcdefghijk"}}
		}, true, "components[2].buttons[0].zeroTapTermsAccepted", domain.LintRequired, "terms"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := orderDraft()
			if c.otp {
				d = otpDraft()
			}
			c.edit(&d)
			_, findings := domain.LintTemplate(d)
			for _, f := range findings {
				if f.Path == c.path && f.Code == c.code && strings.Contains(f.Message, c.substr) {
					return
				}
			}
			t.Errorf("no %s finding at %s mentioning %q; got %+v", c.code, c.path, c.substr, findings)
		})
	}
}

func TestLintTemplateReportsEveryFinding(t *testing.T) {
	d := orderDraft()
	d.Name = "Bad Name"
	d.Components[0].Text = strings.Repeat("h", 61)
	d.Components[1].Text = "{{1}} {{2}}"
	d.Components[1].Example.BodyText = nil
	d.Components[2].Text = strings.Repeat("f", 61)
	_, findings := domain.LintTemplate(d)
	want := map[string]bool{"name": false, "components[0].text": false, "components[1].text": false,
		"components[1].example.bodyText": false, "components[2].text": false}
	for _, f := range findings {
		if _, ok := want[f.Path]; ok {
			want[f.Path] = true
		}
	}
	for p, found := range want {
		if !found {
			t.Errorf("no finding at %s in %+v", p, findings)
		}
	}
	if len(findings) < 7 { // leading, trailing, adjacent on the body too
		t.Errorf("got %d findings, want every one: %+v", len(findings), findings)
	}
}

func TestLintTemplateNamedParameters(t *testing.T) {
	d := orderDraft()
	d.ParameterFormat = "NAMED"
	d.Components = d.Components[1:3]
	d.Components[0].Text = "Hello {{first_name}}, your order {{order_id}} ships today."
	d.Components[0].Example = domain.DraftExample{NamedParams: []domain.NamedExample{{Name: "first_name", Example: "Ana"}}}
	_, findings := domain.LintTemplate(d)
	if len(findings) != 1 || findings[0].Path != "components[0].example.namedParams" || !strings.Contains(findings[0].Message, "order_id") {
		t.Fatalf("findings %+v, want one for {{order_id}}'s example", findings)
	}
	d.Components[0].Example.NamedParams = append(d.Components[0].Example.NamedParams, domain.NamedExample{Name: "order_id", Example: "A-1"})
	tmpl, findings := domain.LintTemplate(d)
	if len(findings) != 0 || tmpl.Slots[1].Key != "body.order_id" {
		t.Fatalf("findings %+v, slots %+v", findings, tmpl.Slots)
	}
}

func TestTemplateInvalidIsADomainErrorWithItsFindings(t *testing.T) {
	_, findings := domain.LintTemplate(domain.TemplateDraft{})
	var err error = domain.TemplateInvalid(findings)
	if de, ok := errors.AsType[*domain.Error](err); !ok || de.Code != domain.CodeTemplateInvalid {
		t.Fatalf("%v is not a template_invalid domain error", err)
	}
	if ti, ok := errors.AsType[*domain.TemplateInvalidError](err); !ok || len(ti.Findings) != len(findings) || len(findings) < 3 {
		t.Fatalf("findings lost: %v", err)
	}
}
