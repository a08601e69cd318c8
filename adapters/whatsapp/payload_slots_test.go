package whatsapp_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/test/fakemeta"
)

// Every kind of slot is sent in the shape Meta documents, and every payload
// passes Meta's OpenAPI request schema (with its known errata mended,
// fakemeta.correctSpec).
func TestSlotPayloadsMatchMetasSpec(t *testing.T) {
	t.Parallel()
	spec := fakemeta.LoadSpec(t)
	btn := func(kind domain.ButtonKind, text, url string) domain.ButtonDef {
		return domain.ButtonDef{Kind: kind, Text: text, URL: url}
	}
	cases := []struct {
		name       string
		def        domain.TemplateDefinition
		vars       []string
		media      string
		components string // the components, as JSON
	}{
		{"OTP: the code in the body and the button", domain.TemplateDefinition{Authentication: true,
			Body: "*{{1}}* is your verification code.", Buttons: []domain.ButtonDef{btn(domain.ButtonOTP, "Copy code", "")}},
			[]string{"482913"}, "",
			`[{"type":"body","parameters":[{"type":"text","text":"482913"}]},` +
				`{"type":"button","sub_type":"url","index":"0","parameters":[{"type":"text","text":"482913"}]}]`},
		{"URL button", domain.TemplateDefinition{Body: "Your order shipped.",
			Buttons: []domain.ButtonDef{btn(domain.ButtonURL, "Track", "https://shop.example/t/{{1}}")}},
			[]string{"A-1001"}, "",
			`[{"type":"button","sub_type":"url","index":"0","parameters":[{"type":"text","text":"A-1001"}]}]`},
		{"quick replies", domain.TemplateDefinition{Body: "Still interested?",
			Buttons: []domain.ButtonDef{btn(domain.ButtonQuickReply, "Yes", ""), btn(domain.ButtonQuickReply, "Stop", "")}},
			nil, "",
			`[{"type":"button","sub_type":"quick_reply","index":"0","parameters":[{"type":"payload","payload":"Yes"}]},` +
				`{"type":"button","sub_type":"quick_reply","index":"1","parameters":[{"type":"payload","payload":"Stop"}]}]`},
		{"header text", domain.TemplateDefinition{HeaderFormat: domain.HeaderText, HeaderText: "Hello {{1}}", Body: "Welcome aboard."},
			[]string{"Ana"}, "",
			`[{"type":"header","parameters":[{"type":"text","text":"Ana"}]}]`},
		{"named body", domain.TemplateDefinition{Named: true, Body: "Hi {{first_name}}, order {{order_id}} shipped."},
			[]string{"Ana", "A-1001"}, "",
			`[{"type":"body","parameters":[{"type":"text","parameter_name":"first_name","text":"Ana"},` +
				`{"type":"text","parameter_name":"order_id","text":"A-1001"}]}]`},
		{"copy code and offer", domain.TemplateDefinition{HeaderFormat: domain.HeaderImage, Body: "Deal!",
			Offer:   &domain.OfferDef{Text: "Ends soon", HasExpiration: true},
			Buttons: []domain.ButtonDef{btn(domain.ButtonCopyCode, "", ""), btn(domain.ButtonURL, "Shop", "https://s.example/{{1}}")}},
			[]string{"SAVE25", "summer", "1767225600000"}, "https://cdn.example.com/deal.png",
			`[{"type":"header","parameters":[{"type":"image","image":{"link":"https://cdn.example.com/deal.png"}}]},` +
				`{"type":"limited_time_offer","parameters":[{"type":"limited_time_offer","limited_time_offer":{"expiration_time_ms":1767225600000}}]},` +
				`{"type":"button","sub_type":"copy_code","index":"0","parameters":[{"type":"coupon_code","coupon_code":"SAVE25"}]},` +
				`{"type":"button","sub_type":"url","index":"1","parameters":[{"type":"text","text":"summer"}]}]`},
		{"location header", domain.TemplateDefinition{HeaderFormat: domain.HeaderLocation, Body: "Find us here."},
			[]string{"52.5163,13.3777;Brandenburg Gate;Pariser Platz, Berlin"}, "",
			`[{"type":"header","parameters":[{"type":"location","location":{"latitude":52.5163,"longitude":13.3777,` +
				`"name":"Brandenburg Gate","address":"Pariser Platz, Berlin"}}]}]`},
		{"carousel", domain.TemplateDefinition{Body: "Pick one, {{1}}", Cards: []domain.CardDef{
			{HeaderFormat: domain.HeaderImage, Body: "Red {{1}}", Buttons: []domain.ButtonDef{btn(domain.ButtonURL, "Buy", "https://s.example/{{1}}")}},
			{HeaderFormat: domain.HeaderVideo, Body: "Blue", Buttons: []domain.ButtonDef{btn(domain.ButtonQuickReply, "Blue", "")}}}},
			[]string{"Ana", "https://cdn.example.com/red.png", "shoes", "red-1", "https://cdn.example.com/blue.mp4"}, "",
			`[{"type":"body","parameters":[{"type":"text","text":"Ana"}]},{"type":"carousel","cards":[` +
				`{"card_index":0,"components":[{"type":"header","parameters":[{"type":"image","image":{"link":"https://cdn.example.com/red.png"}}]},` +
				`{"type":"body","parameters":[{"type":"text","text":"shoes"}]},` +
				`{"type":"button","sub_type":"url","index":"0","parameters":[{"type":"text","text":"red-1"}]}]},` +
				`{"card_index":1,"components":[{"type":"header","parameters":[{"type":"video","video":{"link":"https://cdn.example.com/blue.mp4"}}]},` +
				`{"type":"button","sub_type":"quick_reply","index":"0","parameters":[{"type":"payload","payload":"Blue"}]}]}]}]`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.def.Name, c.def.Language = "t", "en_US"
			tmpl, err := domain.DefineTemplate(c.def)
			if err != nil {
				t.Fatal(err)
			}
			values, err := tmpl.Fill(c.vars, c.media, domain.MediaPolicy{})
			if err != nil {
				t.Fatal(err)
			}
			m := ports.OutboundMessage{ID: "msg_01m80000000000000000000009", To: domain.MustPhoneNumber("+5511988887777"),
				TemplateName: "t", Language: "en_US", HeaderFormat: tmpl.HeaderFormat, MediaHeaderURL: c.media, Values: values}
			body, err := json.Marshal(m.Payload())
			if err != nil {
				t.Fatal(err)
			}
			if err := spec.Check("TemplateMessage", body); err != nil {
				t.Error(err)
			}
			var got struct {
				Template struct{ Components json.RawMessage }
			}
			if err := json.Unmarshal(body, &got); err != nil {
				t.Fatal(err)
			}
			if g := string(got.Template.Components); g != c.components {
				t.Errorf("components\n got %s\nwant %s", g, c.components)
			}
		})
	}
}

// The corrected schema still refuses what Meta refuses.
func TestCorrectedSpecStillRefuses(t *testing.T) {
	t.Parallel()
	spec := fakemeta.LoadSpec(t)
	base := `{"messaging_product":"whatsapp","recipient_type":"individual","to":"5511988887777","type":"template",` +
		`"template":{"name":"t","language":{"policy":"deterministic","code":"en_US"},"components":[%s]}}`
	for name, comp := range map[string]string{
		"button without index":      `{"type":"button","sub_type":"url","parameters":[{"type":"text","text":"x"}]}`,
		"button index 10":           `{"type":"button","sub_type":"url","index":"10","parameters":[{"type":"text","text":"x"}]}`,
		"unknown sub_type":          `{"type":"button","sub_type":"spin","index":"0","parameters":[{"type":"text","text":"x"}]}`,
		"text parameter without it": `{"type":"body","parameters":[{"type":"text"}]}`,
		"image without a link":      `{"type":"header","parameters":[{"type":"image","image":"x"}]}`,
		"unknown component":         `{"type":"footer","parameters":[{"type":"text","text":"x"}]}`,
		"payload without payload":   `{"type":"button","sub_type":"quick_reply","index":"0","parameters":[{"type":"payload"}]}`,
	} {
		if err := spec.Check("TemplateMessage", []byte(strings.Replace(base, "%s", comp, 1))); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// BenchmarkCarouselPayload is a send's slot work for a two-card carousel
// (seven variables): checking and filling every slot, building Meta's
// components and encoding the body.
func BenchmarkCarouselPayload(b *testing.B) {
	tmpl, err := domain.DefineTemplate(domain.TemplateDefinition{Name: "t", Language: "en_US", Body: "Pick one, {{1}}", Cards: []domain.CardDef{
		{HeaderFormat: domain.HeaderImage, Body: "Red {{1}}", Buttons: []domain.ButtonDef{{Kind: domain.ButtonURL, Text: "Buy", URL: "https://s.example/{{1}}"}}},
		{HeaderFormat: domain.HeaderImage, Body: "Blue {{1}}", Buttons: []domain.ButtonDef{{Kind: domain.ButtonURL, Text: "Buy", URL: "https://s.example/{{1}}"}}}}})
	if err != nil {
		b.Fatal(err)
	}
	vars := []string{"Ana", "https://cdn.example.com/red.png", "shoes", "red-1", "https://cdn.example.com/blue.png", "boots", "blue-2"}
	b.ReportAllocs()
	for b.Loop() {
		values, err := tmpl.Fill(vars, "", domain.MediaPolicy{})
		if err != nil {
			b.Fatal(err)
		}
		m := ports.OutboundMessage{ID: "msg_01m80000000000000000000009", To: domain.MustPhoneNumber("+5511988887777"),
			TemplateName: "t", Language: "en_US", Values: values}
		if _, err := json.Marshal(m.Payload()); err != nil {
			b.Fatal(err)
		}
	}
}
