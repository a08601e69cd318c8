package httpapi_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/heraldhq/herald/adapters/httpapi"
	"github.com/heraldhq/herald/adapters/system"
	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports/porttest"
	"github.com/heraldhq/herald/test/fakemeta"
)

const slotsPhone = "+14155552671"

// createCampaign creates a campaign over the API and returns its id.
func (e *apiEnv) createCampaign(t *testing.T, body string) string {
	t.Helper()
	res, got := e.do(t, "POST", "/v1/campaigns", e.keyed(e.key), body)
	if res.StatusCode != 201 {
		t.Fatalf("create campaign: %d %s", res.StatusCode, got)
	}
	id := decode[struct{ ID string }](t, got).ID
	if loc := res.Header.Get("Location"); loc != "/v1/campaigns/"+id {
		t.Errorf("Location %q", loc)
	}
	return id
}

// dryRunComponents sends a dry run, checks its payload against Meta's
// request schema and returns the payload's components as JSON.
func (e *apiEnv) dryRunComponents(t *testing.T, spec *fakemeta.Spec, campaign, media string, vars ...string) string {
	t.Helper()
	body := map[string]any{"phoneNumber": slotsPhone, "campaignId": campaign, "variables": vars}
	if media != "" {
		body["mediaHeaderUrl"] = media
	}
	res, got := e.do(t, "POST", sendURL+"?dryRun=true", e.keyed(e.key), canonical(body))
	if res.StatusCode != 200 {
		t.Fatalf("dry run: %d %s", res.StatusCode, got)
	}
	var dr struct {
		Payload json.RawMessage
	}
	if err := json.Unmarshal([]byte(got), &dr); err != nil {
		t.Fatal(err)
	}
	if err := spec.Check("TemplateMessage", dr.Payload); err != nil {
		t.Error(err)
	}
	var p struct {
		Template struct{ Components json.RawMessage }
	}
	if err := json.Unmarshal(dr.Payload, &p); err != nil {
		t.Fatal(err)
	}
	return string(p.Template.Components)
}

// sendRefused sends and expects a 422 naming param, with a detail holding
// every part.
func (e *apiEnv) sendRefused(t *testing.T, campaign, code, param string, vars []string, detail ...string) {
	t.Helper()
	res, got := e.do(t, "POST", sendURL, e.keyed(e.key), sendBody(slotsPhone, campaign, vars...))
	p := decode[struct{ Code, Param, Detail string }](t, got)
	if res.StatusCode != 422 || p.Code != code || p.Param != param {
		t.Fatalf("send %q: %d %s, want 422 %s on %s", vars, res.StatusCode, got, code, param)
	}
	for _, d := range detail {
		if !strings.Contains(p.Detail, d) {
			t.Errorf("detail %q lacks %q", p.Detail, d)
		}
	}
}

type slotView struct {
	Slot, Kind, Label string
	Position          *int
	Value             *string
	MediaHeaderURL    bool
}

func (e *apiEnv) slots(t *testing.T, campaign string) ([]slotView, int) {
	t.Helper()
	_, got := e.do(t, "GET", "/v1/campaigns/"+campaign, e.keyed(e.key), "")
	v := decode[struct {
		Slots         []slotView
		VariableCount int
	}](t, got)
	return v.Slots, v.VariableCount
}

func summary(slots []slotView) string {
	var out []string
	for _, s := range slots {
		src := "mediaHeaderUrl"
		switch {
		case s.Position != nil:
			src = "$" + string(rune('0'+*s.Position))
		case s.Value != nil:
			src = "=" + *s.Value
		}
		out = append(out, s.Slot+"@"+src)
	}
	return strings.Join(out, " ")
}

func TestSlotsOverTheAPI(t *testing.T) {
	t.Parallel()
	spec := fakemeta.LoadSpec(t)
	onEveryEngine(t, func(t *testing.T, e *apiEnv) {
		t.Run("OTP", func(t *testing.T) {
			id := e.createCampaign(t, `{"name":"Login","templateName":"login_code","language":"en_US","category":"AUTHENTICATION",
				"body":"*{{1}}* is your verification code.","buttons":[{"type":"otp","text":"Copy code"}],"activate":true}`)
			if slots, n := e.slots(t, id); summary(slots) != "body.1@$1 buttons.0@$1" || n != 1 {
				t.Fatalf("slots %s, %d variables; want the code in the body and the button, one variable", summary(slots), n)
			}
			got := e.dryRunComponents(t, spec, id, "", "482913")
			if want := `[{"type":"body","parameters":[{"type":"text","text":"482913"}]},` +
				`{"type":"button","sub_type":"url","index":"0","parameters":[{"type":"text","text":"482913"}]}]`; got != want {
				t.Errorf("components\n got %s\nwant %s", got, want)
			}
			res, body := e.do(t, "POST", sendURL, e.keyed(e.key), sendBody(slotsPhone, id, "482913"))
			if res.StatusCode != 202 {
				t.Fatalf("send: %d %s", res.StatusCode, body)
			}
			_, msg := e.do(t, "GET", "/v1/messages/"+decode[struct{ ID string }](t, body).ID, e.keyed(e.key), "")
			if decode[struct{ RenderedBody string }](t, msg).RenderedBody != "*482913* is your verification code." {
				t.Errorf("message %s", msg)
			}
			e.sendRefused(t, id, "variables_mismatch", "variables[0]", []string{strings.Repeat("7", 16)},
				"one-time password of button 0", "15 characters")
			e.sendRefused(t, id, "variables_mismatch", "variables", []string{"1", "2"}, "1 placeholder but 2")
		})
		t.Run("URL button", func(t *testing.T) {
			id := e.createCampaign(t, `{"name":"Shipping","templateName":"shipped","language":"en_US","body":"Order {{1}} shipped.",
				"buttons":[{"type":"url","text":"Track","url":"https://shop.example/track/{{1}}"},{"type":"phone_number","text":"Call us"}],"activate":true}`)
			got := e.dryRunComponents(t, spec, id, "", "A-1001", "A1001-XYZ")
			if want := `[{"type":"body","parameters":[{"type":"text","text":"A-1001"}]},` +
				`{"type":"button","sub_type":"url","index":"0","parameters":[{"type":"text","text":"A1001-XYZ"}]}]`; got != want {
				t.Errorf("components\n got %s\nwant %s", got, want)
			}
			e.sendRefused(t, id, "variables_mismatch", "variables[1]", []string{"A-1001", strings.Repeat("x", 2000-len("https://shop.example/track/")+1)},
				`suffix of URL button 0 ("Track")`, "a URL is at most 2000 characters")
			e.sendRefused(t, id, "variables_mismatch", "variables[1]", []string{"A-1001", "a b"}, "space")
		})
		t.Run("quick replies", func(t *testing.T) {
			id := e.createCampaign(t, `{"name":"Survey","templateName":"survey","language":"en_US","body":"Did it arrive?",
				"buttons":[{"type":"quick_reply","text":"Yes"},{"type":"quick_reply","text":"No"}],
				"mapping":[{"slot":"buttons.1","position":1,"label":"No payload"}],"activate":true}`)
			slots, _ := e.slots(t, id)
			if summary(slots) != "buttons.0@=Yes buttons.1@$1" || slots[1].Label != "No payload" {
				t.Fatalf("slots %+v", slots)
			}
			got := e.dryRunComponents(t, spec, id, "", "NO_ORDER_42")
			if want := `[{"type":"button","sub_type":"quick_reply","index":"0","parameters":[{"type":"payload","payload":"Yes"}]},` +
				`{"type":"button","sub_type":"quick_reply","index":"1","parameters":[{"type":"payload","payload":"NO_ORDER_42"}]}]`; got != want {
				t.Errorf("components\n got %s\nwant %s", got, want)
			}
			e.sendRefused(t, id, "variables_mismatch", "variables[0]", []string{"a\nb"}, "quick-reply button 1", "newline")
		})
		t.Run("header text", func(t *testing.T) {
			id := e.createCampaign(t, `{"name":"Hello","templateName":"hello_header","language":"en_US","headerFormat":"text",
				"headerText":"Hello {{1}}!","body":"Welcome aboard, {{1}}.","activate":true}`)
			got := e.dryRunComponents(t, spec, id, "", "Ana", "Ana Lima")
			if want := `[{"type":"header","parameters":[{"type":"text","text":"Ana Lima"}]},` +
				`{"type":"body","parameters":[{"type":"text","text":"Ana"}]}]`; got != want {
				t.Errorf("components\n got %s\nwant %s", got, want)
			}
			e.sendRefused(t, id, "variables_mismatch", "variables[1]", []string{"Ana", strings.Repeat("x", 54)},
				"the header's {{1}}", "60 characters")
		})
		t.Run("named body", func(t *testing.T) {
			id := e.createCampaign(t, `{"name":"Named","templateName":"named_order","language":"en_US","parameterFormat":"named",
				"body":"Hi {{first_name}}, order {{order_id}} is ready.","activate":true}`)
			if slots, _ := e.slots(t, id); summary(slots) != "body.first_name@$1 body.order_id@$2" {
				t.Fatalf("slots %s", summary(slots))
			}
			got := e.dryRunComponents(t, spec, id, "", "Ana", "A-1001")
			if want := `[{"type":"body","parameters":[{"type":"text","parameter_name":"first_name","text":"Ana"},` +
				`{"type":"text","parameter_name":"order_id","text":"A-1001"}]}]`; got != want {
				t.Errorf("components\n got %s\nwant %s", got, want)
			}
		})
		t.Run("carousel", func(t *testing.T) {
			id := e.createCampaign(t, `{"name":"Picks","templateName":"picks","language":"en_US","body":"Picked for you, {{1}}",
				"cards":[{"headerFormat":"image","body":"Red {{1}}","buttons":[{"type":"url","text":"Buy","url":"https://shop.example/p/{{1}}"}]},
				         {"headerFormat":"image","body":"Blue {{1}}","buttons":[{"type":"url","text":"Buy","url":"https://shop.example/p/{{1}}"}]}],
				"activate":true}`)
			vars := []string{"Ana", "https://cdn.example.com/red.png", "shoes", "red-1", "https://cdn.example.com/blue.png", "boots", "blue-2"}
			got := e.dryRunComponents(t, spec, id, "", vars...)
			card := func(i, img, body, suffix string) string {
				return `{"card_index":` + i + `,"components":[{"type":"header","parameters":[{"type":"image","image":{"link":"` + img + `"}}]},` +
					`{"type":"body","parameters":[{"type":"text","text":"` + body + `"}]},` +
					`{"type":"button","sub_type":"url","index":"0","parameters":[{"type":"text","text":"` + suffix + `"}]}]}`
			}
			if want := `[{"type":"body","parameters":[{"type":"text","text":"Ana"}]},{"type":"carousel","cards":[` +
				card("0", vars[1], "shoes", "red-1") + "," + card("1", vars[4], "boots", "blue-2") + `]}]`; got != want {
				t.Errorf("components\n got %s\nwant %s", got, want)
			}
			bad := append([]string(nil), vars...)
			bad[4] = "http://cdn.example.com/blue.png"
			e.sendRefused(t, id, "invalid_media_url", "variables[4]", bad, "image header of card 1")
			bad[4] = "https://cdn.example.com/blue.pdf"
			e.sendRefused(t, id, "unsupported_media_format", "variables[4]", bad, "image header of card 1")
		})
		t.Run("copy code and offer", func(t *testing.T) {
			id := e.createCampaign(t, `{"name":"Flash","templateName":"flash","language":"en_US","body":"Flash sale!",
				"offer":{"text":"Ends soon","hasExpiration":true},"buttons":[{"type":"copy_code"}],"activate":true}`)
			got := e.dryRunComponents(t, spec, id, "", "SAVE25", "1767225600000")
			if want := `[{"type":"limited_time_offer","parameters":[{"type":"limited_time_offer","limited_time_offer":{"expiration_time_ms":1767225600000}}]},` +
				`{"type":"button","sub_type":"copy_code","index":"0","parameters":[{"type":"coupon_code","coupon_code":"SAVE25"}]}]`; got != want {
				t.Errorf("components\n got %s\nwant %s", got, want)
			}
			e.sendRefused(t, id, "variables_mismatch", "variables[0]", []string{"SAVE25SAVE25SAVE", "1767225600000"},
				"copy-code button 0", "15 characters Meta allows in a coupon code")
			e.sendRefused(t, id, "variables_mismatch", "variables[1]", []string{"SAVE25", "1767225600"}, "offer's expiry", "Unix milliseconds")
		})
		t.Run("location header", func(t *testing.T) {
			id := e.createCampaign(t, `{"name":"Visit","templateName":"visit","language":"en_US","headerFormat":"location",
				"body":"Your pickup point.","activate":true}`)
			got := e.dryRunComponents(t, spec, id, "", "52.5163,13.3777;Brandenburg Gate;Pariser Platz")
			if want := `[{"type":"header","parameters":[{"type":"location","location":{"latitude":52.5163,"longitude":13.3777,` +
				`"name":"Brandenburg Gate","address":"Pariser Platz"}}]}]`; got != want {
				t.Errorf("components\n got %s\nwant %s", got, want)
			}
			e.sendRefused(t, id, "variables_mismatch", "variables[0]", []string{"Berlin"}, "location header", "latitude,longitude")
		})
	})
}

// templateSource is a business account whose templates are whatever the
// store holds for it.
type templateSource struct{ account string }

func (s templateSource) Account() string { return s.account }
func (s templateSource) ListTemplates(context.Context) ([]domain.SyncedTemplate, error) {
	return nil, nil
}

// withSyncedTemplates stores synced templates for the account "waba" and
// gives the API a campaign creator that reads them.
func withSyncedTemplates(t *testing.T, ts ...domain.SyncedTemplate) envOption {
	return func(d *httpapi.Deps, st porttest.Store) {
		if err := st.ReplaceTemplates(context.Background(), "waba", ts); err != nil {
			t.Fatal(err)
		}
		clock, ids := system.Clock{}, system.NewIDs()
		def := app.NewEnsureDefaultWorkspaceHandler(st, clock, ids)
		d.CreateCampaign = app.NewCreateCampaignHandler(st, st, st, templateSource{"waba"}, def, clock, ids)
	}
}

func synced(t *testing.T, status domain.TemplateStatus, category string, d domain.TemplateDefinition) domain.SyncedTemplate {
	t.Helper()
	tmpl, err := domain.DefineTemplate(d)
	if err != nil {
		t.Fatal(err)
	}
	return domain.SyncedTemplate{Account: "waba", ProviderID: "1", Name: d.Name, Language: d.Language, Status: status,
		Category: category, Definition: tmpl, SyncedAt: porttest.Now()}
}

func TestCampaignsOverTheAPI(t *testing.T) {
	t.Parallel()
	spec := fakemeta.LoadSpec(t)
	for _, eng := range engines {
		t.Run(eng.name, func(t *testing.T) {
			t.Parallel()
			e := newEnvOn(t, eng.open(t), withSyncedTemplates(t,
				synced(t, domain.TemplateApproved, "AUTHENTICATION", domain.TemplateDefinition{Name: "login_code", Language: "en_US",
					Authentication: true, Body: "*{{1}}* is your verification code.", Footer: "This code expires in 5 minutes.",
					Buttons: []domain.ButtonDef{{Kind: domain.ButtonOTP, Text: "Copy code"}}}),
				synced(t, domain.TemplatePaused, "MARKETING", domain.TemplateDefinition{Name: "promo", Language: "en_US",
					HeaderFormat: domain.HeaderImage, Body: "Hi {{1}}, {{2}} off today",
					Buttons: []domain.ButtonDef{{Kind: domain.ButtonQuickReply, Text: "Stop promos"}, {Kind: domain.ButtonCopyCode}}}),
			))
			k := e.keyed(e.key)

			// From a synced template by name and language: Meta's slots,
			// category and status.
			otp := e.createCampaign(t, `{"name":"Login","templateName":"login_code","language":"en-US","activate":true}`)
			_, got := e.do(t, "GET", "/v1/campaigns/"+otp, k, "")
			c := decode[struct {
				Status        string
				Template      struct{ Status, Category, Footer string }
				VariableCount int
			}](t, got)
			if c.Status != "active" || c.Template.Status != "APPROVED" || c.Template.Category != "AUTHENTICATION" ||
				c.Template.Footer != "This code expires in 5 minutes." || c.VariableCount != 1 {
				t.Fatalf("campaign from the synced template: %s", got)
			}
			if comps := e.dryRunComponents(t, spec, otp, "", "123456"); !strings.Contains(comps, `"sub_type":"url","index":"0"`) {
				t.Errorf("OTP components %s", comps)
			}

			// Only an APPROVED template can be live.
			promo := e.createCampaign(t, `{"name":"Promo","templateName":"promo","language":"en_US"}`)
			if slots, n := e.slots(t, promo); summary(slots) != "body.1@$1 body.2@$2 header@mediaHeaderUrl buttons.0@=Stop promos buttons.1@$3" || n != 3 {
				t.Fatalf("promo slots %s, %d variables", summary(slots), n)
			}
			e.run(t, []scenario{
				{"activate a paused template's campaign", "POST", "/v1/campaigns/" + promo + "/activate", k, "", 409,
					problemBody(409, "invalid_transition", "Invalid transition", "",
						"template promo (en_US) is PAUSED at Meta; a campaign can be activated only while its template is APPROVED")},
				{"create active from a paused template", "POST", "/v1/campaigns", k,
					`{"name":"Promo","templateName":"promo","language":"en_US","activate":true}`, 409,
					problemBody(409, "invalid_transition", "Invalid transition", "",
						"template promo (en_US) is PAUSED at Meta; a campaign can be activated only while its template is APPROVED")},
				{"no such synced template", "POST", "/v1/campaigns", k, `{"name":"X","templateName":"nope","language":"en_US"}`, 404,
					problemBody(404, "template_not_found", "Template not found", "templateName",
						"no synced template nope in language en_US: run herald campaigns sync-templates, check the name and language, or give the body to define it here")},
				{"buttons for a synced template", "POST", "/v1/campaigns", k,
					`{"name":"X","templateName":"promo","language":"en_US","buttons":[{"type":"quick_reply","text":"Hi"}]}`, 422,
					problemBody(422, "invalid_parameter", "Invalid parameter", "body",
						"the header, footer, buttons and cards of a synced template come from Meta; leave them out, or give the body too to define the template here")},
				{"three URL buttons", "POST", "/v1/campaigns", k,
					`{"name":"X","templateName":"x","language":"en_US","body":"b","buttons":[{"type":"url","text":"a","url":"https://a.example/"},{"type":"url","text":"b","url":"https://b.example/"},{"type":"url","text":"c","url":"https://c.example/"}]}`, 422,
					problemBody(422, "invalid_parameter", "Invalid parameter", "buttons", "a template has at most 2 URL buttons")},
				{"one card", "POST", "/v1/campaigns", k,
					`{"name":"X","templateName":"x","language":"en_US","body":"b","cards":[{"headerFormat":"image","body":"c","buttons":[{"type":"quick_reply","text":"a"}]}]}`, 422,
					problemBody(422, "invalid_parameter", "Invalid parameter", "cards", "a carousel has 2 to 10 cards; this one has 1")},
				{"unknown button type", "POST", "/v1/campaigns", k,
					`{"name":"X","templateName":"x","language":"en_US","body":"b","buttons":[{"type":"flow","text":"a"}]}`, 422,
					problemBody(422, "invalid_parameter", "Invalid parameter", "buttons[0].type", "a button's type is one of quick_reply, url, phone_number, voice_call, copy_code, otp")},
				{"misspelt mapping field", "POST", "/v1/campaigns", k,
					`{"name":"X","templateName":"x","language":"en_US","body":"b {{1}}","mapping":[{"slot":"body.1","postion":1}]}`, 400,
					problemBody(400, "invalid_json", "Invalid JSON", "", `unknown field "postion"`)},
				{"missing name", "POST", "/v1/campaigns", k, `{"templateName":"x","language":"en_US","body":"b"}`, 400,
					problemBody(400, "missing_parameter", "Missing parameter", "name", "name is required")},

				// PATCH: the mapping, its rules, labels.
				{"unknown slot", "PATCH", "/v1/campaigns/" + promo, k, `{"mapping":[{"slot":"buttons.5","position":1}]}`, 422,
					problemBody(422, "invalid_parameter", "Invalid parameter", "mapping[0].slot",
						`the template has no slot "buttons.5"; its slots are body.1, body.2, header, buttons.0, buttons.1`)},
				{"a gap in the positions", "PATCH", "/v1/campaigns/" + promo, k, `{"mapping":[{"slot":"buttons.1","position":5}]}`, 422,
					problemBody(422, "invalid_parameter", "Invalid parameter", "mapping",
						"no slot takes variables[2] (position 3): positions must run from 1 without gaps")},
				{"position 0", "PATCH", "/v1/campaigns/" + promo, k, `{"mapping":[{"slot":"buttons.1","position":0}]}`, 422,
					problemBody(422, "invalid_parameter", "Invalid parameter", "mapping[0].position", "a position is 1 to 100")},
				{"fixed coupon too long", "PATCH", "/v1/campaigns/" + promo, k, `{"mapping":[{"slot":"buttons.1","value":"SAVE25SAVE25SAVE"}]}`, 422,
					problemBody(422, "invalid_parameter", "Invalid parameter", "mapping[0].value",
						"the value for the code of copy-code button 1 is longer than the 15 characters Meta allows in a coupon code")},
				{"an empty name", "PATCH", "/v1/campaigns/" + promo, k, `{"name":" "}`, 422,
					problemBody(422, "invalid_parameter", "Invalid parameter", "name", "a campaign needs a name of 1 to 200 characters")},
				{"a label too long", "PATCH", "/v1/campaigns/" + promo, k, `{"labels":{"body.1":"` + strings.Repeat("x", 201) + `"}}`, 422,
					problemBody(422, "invalid_parameter", "Invalid parameter", "labels", "a label is at most 200 characters")},
				{"unknown campaign", "PATCH", "/v1/campaigns/cmp_01m8000000000000000000000", k, `{"name":"X"}`, 404,
					problemBody(404, "campaign_not_found", "Campaign not found", "", "no campaign with this id")},
				{"pause an unknown campaign", "POST", "/v1/campaigns/cmp_01m8000000000000000000000/pause", k, "", 404,
					problemBody(404, "campaign_not_found", "Campaign not found", "", "no campaign with this id")},
			})

			res, got := e.do(t, "PATCH", "/v1/campaigns/"+promo, k,
				`{"name":"Promo, fixed coupon","mapping":[{"slot":"buttons.1","value":"SAVE25"},{"slot":"buttons.0","position":3}],"labels":{"body.2":"discount"}}`)
			if res.StatusCode != 200 {
				t.Fatalf("PATCH: %d %s", res.StatusCode, got)
			}
			slots, n := e.slots(t, promo)
			if summary(slots) != "body.1@$1 body.2@$2 header@mediaHeaderUrl buttons.0@$3 buttons.1@=SAVE25" || n != 3 || slots[1].Label != "discount" ||
				decode[struct{ Name string }](t, got).Name != "Promo, fixed coupon" {
				t.Fatalf("after PATCH: %s, %d variables, %s", summary(slots), n, got)
			}
			// Pause and activate answer the campaign.
			for _, step := range []struct{ action, status string }{{"pause", "paused"}, {"activate", "active"}, {"pause", "paused"}} {
				res, got := e.do(t, "POST", "/v1/campaigns/"+otp+"/"+step.action, k, "")
				if res.StatusCode != 200 || decode[struct{ Status string }](t, got).Status != step.status {
					t.Fatalf("%s: %d %s", step.action, res.StatusCode, got)
				}
			}
			e.run(t, []scenario{{"send to a paused campaign", "POST", sendURL, k, sendBody(slotsPhone, otp, "123456"), 409,
				problemBody(409, "campaign_not_active", "Campaign not active", "campaignId", "the campaign is paused; only active campaigns send")}})
		})
	}
}
