package domain_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/heraldhq/herald/domain"
)

func define(t *testing.T, d domain.TemplateDefinition) domain.Template {
	t.Helper()
	if d.Name == "" {
		d.Name, d.Language = "t", "en_US"
	}
	tmpl, err := domain.DefineTemplate(d)
	if err != nil {
		t.Fatalf("DefineTemplate: %v", err)
	}
	return tmpl
}

// slotSummary is "key=kind@source" per slot, for comparing mappings.
func slotSummary(tmpl domain.Template) string {
	var b []string
	for _, s := range tmpl.Slots {
		src := ""
		switch {
		case s.Source.Position > 0:
			src = "$" + string(rune('0'+s.Source.Position))
		case s.Source.MediaHeaderURL:
			src = "mediaHeaderUrl"
		default:
			src = "=" + s.Source.Value
		}
		b = append(b, s.Key+"="+s.Kind.String()+"@"+src)
	}
	return strings.Join(b, " ")
}

func TestDefaultMappingOfEverySlotKind(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		def  domain.TemplateDefinition
		want string
		vars int
	}{
		{"positional body", domain.TemplateDefinition{Body: "Hi {{1}}, order {{2}}"},
			"body.1=body@$1 body.2=body@$2", 2},
		{"named body", domain.TemplateDefinition{Named: true, Body: "Hi {{first_name}}, order {{order}} for {{first_name}}"},
			"body.first_name=body@$1 body.order=body@$2", 2},
		{"header text after the body", domain.TemplateDefinition{HeaderFormat: domain.HeaderText, HeaderText: "Sale for {{1}}", Body: "Hi {{1}}"},
			"body.1=body@$1 header=header_text@$2", 2},
		{"media header from mediaHeaderUrl", domain.TemplateDefinition{HeaderFormat: domain.HeaderVideo, Body: "Watch"},
			"header=header_media@mediaHeaderUrl", 0},
		{"location header", domain.TemplateDefinition{HeaderFormat: domain.HeaderLocation, Body: "We are here"},
			"header=header_location@$1", 1},
		{"buttons in template order", domain.TemplateDefinition{Body: "Hi {{1}}", Buttons: []domain.ButtonDef{
			{Kind: domain.ButtonQuickReply, Text: "Stop"}, {Kind: domain.ButtonQuickReply, Text: "More"},
			{Kind: domain.ButtonURL, Text: "Track", URL: "https://shop.example/t/{{1}}"},
			{Kind: domain.ButtonURL, Text: "Home", URL: "https://shop.example/"},
			{Kind: domain.ButtonPhone, Text: "Call"}}},
			"body.1=body@$1 buttons.0=quick_reply_payload@=Stop buttons.1=quick_reply_payload@=More buttons.2=url_suffix@$2", 2},
		{"copy code", domain.TemplateDefinition{Body: "Save now", Buttons: []domain.ButtonDef{{Kind: domain.ButtonCopyCode}}},
			"buttons.0=coupon_code@$1", 1},
		{"OTP: one code, body and button", domain.TemplateDefinition{Authentication: true, Body: "{{1}} is your verification code.",
			Buttons: []domain.ButtonDef{{Kind: domain.ButtonOTP, Text: "Copy code"}}},
			"body.1=body@$1 buttons.0=otp_code@$1", 1},
		{"limited-time offer", domain.TemplateDefinition{HeaderFormat: domain.HeaderImage, Body: "Deal for {{1}}",
			Offer:   &domain.OfferDef{Text: "Ends soon", HasExpiration: true},
			Buttons: []domain.ButtonDef{{Kind: domain.ButtonCopyCode}, {Kind: domain.ButtonURL, Text: "Shop", URL: "https://s.example/{{1}}"}}},
			"body.1=body@$1 header=header_media@mediaHeaderUrl buttons.0=coupon_code@$2 buttons.1=url_suffix@$3 offer=offer_expiration@$4", 4},
		{"carousel", domain.TemplateDefinition{Body: "Pick one, {{1}}", Cards: []domain.CardDef{
			{HeaderFormat: domain.HeaderImage, Body: "Red {{1}}", Buttons: []domain.ButtonDef{{Kind: domain.ButtonURL, Text: "Buy", URL: "https://s.example/{{1}}"}}},
			{HeaderFormat: domain.HeaderImage, Body: "Blue {{1}}", Buttons: []domain.ButtonDef{{Kind: domain.ButtonQuickReply, Text: "Blue"}}}}},
			"body.1=body@$1 cards.0.header=header_media@$2 cards.0.body.1=body@$3 cards.0.buttons.0=url_suffix@$4 " +
				"cards.1.header=header_media@$5 cards.1.body.1=body@$6 cards.1.buttons.0=quick_reply_payload@=Blue", 6},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			tmpl := define(t, c.def)
			if got := slotSummary(tmpl); got != c.want {
				t.Fatalf("slots\n got %s\nwant %s", got, c.want)
			}
			if tmpl.VariableCount() != c.vars {
				t.Fatalf("VariableCount = %d, want %d", tmpl.VariableCount(), c.vars)
			}
		})
	}
}

func TestDefinitionRules(t *testing.T) {
	t.Parallel()
	qr := domain.ButtonDef{Kind: domain.ButtonQuickReply, Text: "Yes"}
	url := domain.ButtonDef{Kind: domain.ButtonURL, Text: "Go", URL: "https://x.example/{{1}}"}
	card := domain.CardDef{HeaderFormat: domain.HeaderImage, Body: "Card", Buttons: []domain.ButtonDef{qr}}
	rep := func(b domain.ButtonDef, n int) []domain.ButtonDef {
		out := make([]domain.ButtonDef, n)
		for i := range out {
			out[i] = b
		}
		return out
	}
	cases := []struct {
		name          string
		def           domain.TemplateDefinition
		param, detail string
	}{
		{"two header placeholders", domain.TemplateDefinition{HeaderFormat: domain.HeaderText, HeaderText: "{{1}} {{2}}", Body: "b"}, "headerText", "at most one placeholder"},
		{"named and positional mixed", domain.TemplateDefinition{Named: true, Body: "Hi {{1}}"}, "body", "named placeholders"},
		{"11 buttons", domain.TemplateDefinition{Body: "b", Buttons: rep(qr, 11)}, "buttons", "at most 10 buttons"},
		{"3 URL buttons", domain.TemplateDefinition{Body: "b", Buttons: rep(url, 3)}, "buttons", "at most 2 URL buttons"},
		{"2 copy-code buttons", domain.TemplateDefinition{Body: "b", Buttons: rep(domain.ButtonDef{Kind: domain.ButtonCopyCode}, 2)}, "buttons", "at most 1 copy-code button"},
		{"2 phone buttons", domain.TemplateDefinition{Body: "b", Buttons: rep(domain.ButtonDef{Kind: domain.ButtonPhone, Text: "Call"}, 2)}, "buttons", "at most 1 phone-number button"},
		{"quick replies apart", domain.TemplateDefinition{Body: "b", Buttons: []domain.ButtonDef{qr, url, qr}}, "buttons", "next to each other"},
		{"button text of 26", domain.TemplateDefinition{Body: "b", Buttons: []domain.ButtonDef{{Kind: domain.ButtonQuickReply, Text: strings.Repeat("x", 26)}}}, "buttons[0].text", "at most 25"},
		{"URL placeholder not at the end", domain.TemplateDefinition{Body: "b", Buttons: []domain.ButtonDef{{Kind: domain.ButtonURL, Text: "Go", URL: "https://x.example/{{1}}/y"}}}, "buttons[0].url", "at its end"},
		{"OTP outside authentication", domain.TemplateDefinition{Body: "{{1}}", Buttons: []domain.ButtonDef{{Kind: domain.ButtonOTP}}}, "buttons[0]", "only an authentication template"},
		{"authentication without OTP", domain.TemplateDefinition{Authentication: true, Body: "{{1}} is your code"}, "buttons", "exactly one OTP button"},
		{"authentication with two placeholders", domain.TemplateDefinition{Authentication: true, Body: "{{1}} {{2}}", Buttons: []domain.ButtonDef{{Kind: domain.ButtonOTP}}}, "body", "exactly one placeholder"},
		{"offer text of 17", domain.TemplateDefinition{Body: "b", Offer: &domain.OfferDef{Text: strings.Repeat("x", 17)}}, "offer", "1 to 16"},
		{"offer body of 601", domain.TemplateDefinition{Body: strings.Repeat("x", 601), Offer: &domain.OfferDef{Text: "o"}}, "body", "1 to 600"},
		{"one card", domain.TemplateDefinition{Body: "b", Cards: []domain.CardDef{card}}, "cards", "2 to 10 cards"},
		{"eleven cards", domain.TemplateDefinition{Body: "b", Cards: []domain.CardDef{card, card, card, card, card, card, card, card, card, card, card}}, "cards", "2 to 10 cards"},
		{"card with a document", domain.TemplateDefinition{Body: "b", Cards: []domain.CardDef{card, {HeaderFormat: domain.HeaderDocument, Body: "c", Buttons: []domain.ButtonDef{qr}}}}, "cards[1].headerFormat", "image or video"},
		{"card with 3 buttons", domain.TemplateDefinition{Body: "b", Cards: []domain.CardDef{card, {HeaderFormat: domain.HeaderImage, Body: "c", Buttons: rep(qr, 3)}}}, "cards[1].buttons", "1 or 2 buttons"},
		{"card with a copy code", domain.TemplateDefinition{Body: "b", Cards: []domain.CardDef{card, {HeaderFormat: domain.HeaderImage, Body: "c", Buttons: []domain.ButtonDef{{Kind: domain.ButtonCopyCode}}}}}, "cards[1].buttons", "quick replies, URLs or phone numbers"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.def.Name, c.def.Language = "t", "en_US"
			_, err := domain.DefineTemplate(c.def)
			wantInvalid(t, err, c.param, c.detail)
		})
	}
}

// wantVariable checks err names variables[i], the slot and the rule.
func wantVariable(t *testing.T, err error, code error, param, slot, rule string) {
	t.Helper()
	var de *domain.Error
	if !errors.Is(err, code) || !errors.As(err, &de) || de.Param != param || !strings.Contains(de.Detail, slot) || !strings.Contains(de.Detail, rule) {
		t.Fatalf("err %v, want %v on %s naming %q and %q", err, code, param, slot, rule)
	}
}

func TestSlotLimits(t *testing.T) {
	t.Parallel()
	otp := define(t, domain.TemplateDefinition{Authentication: true, Body: "{{1}} is your verification code.",
		Buttons: []domain.ButtonDef{{Kind: domain.ButtonOTP}}})
	shop := define(t, domain.TemplateDefinition{HeaderFormat: domain.HeaderText, HeaderText: "Sale on {{1}} today only!",
		Body: "Hi {{1}}", Offer: &domain.OfferDef{Text: "Ends soon", HasExpiration: true},
		Buttons: []domain.ButtonDef{{Kind: domain.ButtonCopyCode}, {Kind: domain.ButtonURL, Text: "Shop", URL: "https://s.example/{{1}}"}}})
	// shop: $1 body, $2 header, $3 coupon, $4 URL suffix, $5 offer expiry.
	ok := []string{"Ana", "shoes", "SAVE25", "abc", "1767225600000"}
	with := func(i int, v string) []string {
		out := append([]string(nil), ok...)
		out[i] = v
		return out
	}
	loc := define(t, domain.TemplateDefinition{HeaderFormat: domain.HeaderLocation, Body: "Here"})
	carousel := define(t, domain.TemplateDefinition{Body: "Pick", Cards: []domain.CardDef{
		{HeaderFormat: domain.HeaderImage, Body: "A", Buttons: []domain.ButtonDef{{Kind: domain.ButtonQuickReply, Text: "A"}}},
		{HeaderFormat: domain.HeaderVideo, Body: "B", Buttons: []domain.ButtonDef{{Kind: domain.ButtonQuickReply, Text: "B"}}}}})
	cases := []struct {
		name              string
		tmpl              domain.Template
		vars              []string
		code              error
		param, slot, rule string
	}{
		{"OTP of 16", otp, []string{strings.Repeat("1", 16)}, domain.ErrVariablesMismatch, "variables[0]", "one-time password of button 0", "15 characters"},
		{"OTP with a space", otp, []string{"12 34"}, domain.ErrVariablesMismatch, "variables[0]", "one-time password", "space"},
		{"header text too long", shop, with(1, strings.Repeat("x", 41)), domain.ErrVariablesMismatch, "variables[1]", "header's {{1}}", "fixed text"},
		{"coupon of 16", shop, with(2, strings.Repeat("C", 16)), domain.ErrVariablesMismatch, "variables[2]", "copy-code button 0", "15 characters Meta allows in a coupon code"},
		{"URL suffix too long", shop, with(3, strings.Repeat("a", 1983)), domain.ErrVariablesMismatch, "variables[3]", "URL button 1 (\"Shop\")", "a URL is at most 2000"},
		{"URL suffix with a space", shop, with(3, "a b"), domain.ErrVariablesMismatch, "variables[3]", "suffix of URL button 1", "space"},
		{"offer expiry in seconds", shop, with(4, "1767225600"), domain.ErrVariablesMismatch, "variables[4]", "offer's expiry", "Unix milliseconds"},
		{"offer expiry not a number", shop, with(4, "tomorrow"), domain.ErrVariablesMismatch, "variables[4]", "offer's expiry", "Unix milliseconds"},
		{"location not a place", loc, []string{"the shop"}, domain.ErrVariablesMismatch, "variables[0]", "location header", "latitude,longitude"},
		{"location off the globe", loc, []string{"91,0"}, domain.ErrVariablesMismatch, "variables[0]", "location header", "latitude,longitude"},
		{"card image not https", carousel, []string{"http://cdn.example/a.png", "https://cdn.example/b.mp4"}, domain.ErrInvalidMediaURL, "variables[0]", "image header of card 0", "https"},
		{"card video on a private host", carousel, []string{"https://cdn.example/a.png", "https://10.0.0.1/b.mp4"}, domain.ErrInvalidMediaURL, "variables[1]", "video header of card 1", ""},
		{"count", shop, ok[:4], domain.ErrVariablesMismatch, "variables", "", "5 placeholders but 4"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, err := c.tmpl.Fill(c.vars, "", domain.MediaPolicy{})
			wantVariable(t, err, c.code, c.param, c.slot, c.rule)
		})
	}
	for name, fill := range map[string]struct {
		tmpl domain.Template
		vars []string
	}{
		"OTP of 15": {otp, []string{strings.Repeat("1", 15)}},
		"shop":      {shop, ok},
		"location":  {loc, []string{"52.52,13.405;Gate;Pariser Platz"}},
		"carousel":  {carousel, []string{"https://cdn.example/a.png", "https://cdn.example/b.mp4"}},
	} {
		if _, err := fill.tmpl.Fill(fill.vars, "", domain.MediaPolicy{}); err != nil {
			t.Errorf("%s refused: %v", name, err)
		}
	}
}

func TestOTPCodeFillsBodyAndButton(t *testing.T) {
	t.Parallel()
	otp := define(t, domain.TemplateDefinition{Authentication: true, Body: "*{{1}}* is your verification code.",
		Buttons: []domain.ButtonDef{{Kind: domain.ButtonOTP}}})
	values, err := otp.Fill([]string{"482913"}, "", domain.MediaPolicy{})
	if err != nil {
		t.Fatal(err)
	}
	if len(values) != 2 || values[0].Value != "482913" || values[1].Value != "482913" || values[1].Slot.Kind != domain.SlotOTP {
		t.Fatalf("values %+v, want the code in the body and the button", values)
	}
	if got := otp.Render([]string{"482913"}); got != "*482913* is your verification code." {
		t.Fatalf("rendered %q", got)
	}
}

func TestRemap(t *testing.T) {
	t.Parallel()
	base := define(t, domain.TemplateDefinition{Named: true, HeaderFormat: domain.HeaderImage, Body: "Hi {{name}}, use {{code}}",
		Buttons: []domain.ButtonDef{{Kind: domain.ButtonQuickReply, Text: "Stop"}, {Kind: domain.ButtonCopyCode}}})
	// Default: body.name $1, body.code $2, header mediaHeaderUrl, buttons.0 =Stop, buttons.1 $3.
	str := func(s string) *string { return &s }

	tmpl := base
	err := tmpl.Remap("mapping", []domain.MappingEntry{
		{Slot: "buttons.1", Position: 2, Label: str("Coupon")}, // the coupon is the body's code
		{Slot: "buttons.0", Position: 3},                       // the caller gives the payload
		{Slot: "header", Value: str("https://cdn.example/banner.png")},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := slotSummary(tmpl), "body.name=body@$1 body.code=body@$2 header=header_media@=https://cdn.example/banner.png "+
		"buttons.0=quick_reply_payload@$3 buttons.1=coupon_code@$2"; got != want {
		t.Fatalf("slots\n got %s\nwant %s", got, want)
	}
	if tmpl.Slots[4].Label != "Coupon" || slotSummary(base) == slotSummary(tmpl) {
		t.Fatalf("label not set, or the original changed: %+v", tmpl.Slots)
	}
	values, err := tmpl.Fill([]string{"Ana", "SAVE25", "STOP_PROMOS"}, "", domain.MediaPolicy{})
	if err != nil || values[2].Value != "https://cdn.example/banner.png" || values[3].Value != "STOP_PROMOS" || values[4].Value != "SAVE25" {
		t.Fatalf("values %+v, %v", values, err)
	}

	refused := []struct {
		name          string
		entries       []domain.MappingEntry
		param, detail string
	}{
		{"unknown slot", []domain.MappingEntry{{Slot: "buttons.7", Position: 1}}, "mapping[0].slot", "no slot \"buttons.7\""},
		{"a gap", []domain.MappingEntry{{Slot: "buttons.1", Position: 5}}, "mapping", "no slot takes variables[2]"},
		{"two sources", []domain.MappingEntry{{Slot: "body.name", Position: 1, Value: str("x")}}, "mapping[0]", "one of position, value and mediaHeaderUrl"},
		{"fixed coupon too long", []domain.MappingEntry{{Slot: "buttons.1", Value: str(strings.Repeat("C", 16))}}, "mapping[0].value", "15 characters"},
		{"mediaHeaderUrl for a button", []domain.MappingEntry{{Slot: "buttons.1", MediaHeaderURL: true}}, "mapping[0].mediaHeaderUrl", "only the template's own media header"},
		{"fixed media not https", []domain.MappingEntry{{Slot: "header", Value: str("http://cdn.example/a.png")}}, "mapping[0].value", "public https URL"},
	}
	for _, c := range refused {
		tmpl := base
		err := tmpl.Remap("mapping", c.entries)
		wantInvalid(t, err, c.param, c.detail)
		if slotSummary(tmpl) != slotSummary(base) {
			t.Errorf("%s: a refused mapping changed the slots", c.name)
		}
	}
}

func TestDefaultSlotsKeepOldCampaignsMeaning(t *testing.T) {
	t.Parallel()
	// A template as stored before slots: body placeholders and an image.
	old := domain.Template{Name: "t", Language: "en_US", HeaderFormat: domain.HeaderImage, Body: "Hi {{1}}, {{2}}",
		Placeholders: []domain.Placeholder{{Index: 1, Label: "Name"}, {Index: 2}}}
	if got, want := slotSummary(domain.Template{Slots: domain.DefaultSlots(old)}), "body.1=body@$1 body.2=body@$2 header=header_media@mediaHeaderUrl"; got != want {
		t.Fatalf("default slots %s, want %s", got, want)
	}
	if err := old.CheckVariables([]string{"Ana", "x"}); err != nil {
		t.Fatal(err)
	}
	if got := old.Render([]string{"Ana", "x"}); got != "Hi Ana, x" {
		t.Fatalf("rendered %q", got)
	}
}
