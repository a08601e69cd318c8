package httpapi_test

import (
	"context"
	"testing"
	"time"

	"github.com/heraldhq/herald/adapters/system"
	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/test/fakemeta"
)

// TestTemplateStatusReachesEveryLanguageForm: Meta's status event names the
// language pt-BR; the campaign was created as pt_BR. The event pauses it
// and a later one naming pt_br approves it again, on every engine.
func TestTemplateStatusReachesEveryLanguageForm(t *testing.T) {
	t.Parallel()
	onEveryEngine(t, func(t *testing.T, e *apiEnv) {
		ws := principalWorkspace(t, e)
		clock, ids := system.Clock{}, system.NewIDs()
		def := app.NewEnsureDefaultWorkspaceHandler(e.store, clock, ids)
		c, err := app.NewCreateCampaignHandler(e.store, e.store, e.store, nil, def, clock, ids).Handle(context.Background(),
			app.CreateCampaign{Workspace: string(ws), Name: "Pedidos", TemplateName: "pedido_enviado", Language: "pt_BR",
				Body: "Olá {{1}}, seu pedido {{2}} foi enviado", Activate: true})
		if err != nil {
			t.Fatal(err)
		}
		templateStatus := func() string {
			t.Helper()
			res, body := e.do(t, "GET", "/v1/campaigns/"+string(c.ID), e.keyed(e.key), "")
			v := decode[struct {
				Template struct {
					Language string
					Status   *string
				}
			}](t, body)
			if res.StatusCode != 200 || v.Template.Language != "pt_BR" {
				t.Fatalf("campaign: %d %s", res.StatusCode, body)
			}
			if v.Template.Status == nil {
				return "null"
			}
			return *v.Template.Status
		}

		e.signed(t, fakemeta.TemplateStatusPayload(wabaID, "pedido_enviado", "pt-BR", "PAUSED", "NONE", time.Now()))
		if got := templateStatus(); got != "PAUSED" {
			t.Fatalf("after PAUSED for pt-BR the pt_BR campaign's template is %s", got)
		}
		res, body := e.do(t, "POST", sendURL, e.keyed(e.key), sendBody(phone, string(c.ID), "Ana", "1234"))
		want := problemBody(409, "campaign_not_active", "Campaign not active", "campaignId",
			"the campaign's template pedido_enviado (pt_BR) is PAUSED at Meta; sends resume when Meta approves it again")
		if res.StatusCode != 409 || canonicalString(normalize(body)) != want {
			t.Fatalf("send on the paused template: %d\n got %s\nwant %s", res.StatusCode, normalize(body), want)
		}

		e.signed(t, fakemeta.TemplateStatusPayload(wabaID, "pedido_enviado", "pt_br", "REINSTATED", "NONE", time.Now()))
		if got := templateStatus(); got != "APPROVED" {
			t.Fatalf("after REINSTATED for pt_br the pt_BR campaign's template is %s", got)
		}
		if res, body := e.do(t, "POST", sendURL, e.keyed(e.key), sendBody(phone, string(c.ID), "Ana", "1234")); res.StatusCode != 202 {
			t.Fatalf("send on the approved template: %d %s", res.StatusCode, body)
		}
		// The other language of the same name is another template.
		e.signed(t, fakemeta.TemplateStatusPayload(wabaID, "pedido_enviado", "pt-PT", "PAUSED", "NONE", time.Now()))
		if got := templateStatus(); got != "APPROVED" {
			t.Fatalf("PAUSED for pt-PT changed the pt_BR campaign's template to %s", got)
		}
	})
}
