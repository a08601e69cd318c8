package httpapi_test

import (
	"context"
	"strings"
	"testing"

	"github.com/heraldhq/herald/adapters/httpapi"
	"github.com/heraldhq/herald/adapters/system"
	"github.com/heraldhq/herald/adapters/whatsapp"
	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/ports/porttest"
	"github.com/heraldhq/herald/test/fakemeta"
)

// numberAuthors acts for a stored number with the token Meta issued for
// its account.
type numberAuthors struct {
	st     porttest.Store
	cloud  *whatsapp.Client
	tokens map[string]string // by WABA id
}

func (a numberAuthors) TemplateAuthor(ctx context.Context, id domain.BusinessNumberID) ports.TemplateAuthor {
	n, err := a.st.GetNumber(ctx, id)
	if err != nil || a.tokens[n.WABAID] == "" {
		return nil
	}
	return a.cloud.ForNumber(ports.NumberCredentials{PhoneNumberID: n.MetaID, WABAID: n.WABAID, AccessToken: a.tokens[n.WABAID]})
}

// TestTemplateSubmitChoosesTheAccount: a workspace whose numbers belong to
// two business accounts (the configured one, and a stored number's) names
// the account a new template goes to, by wabaId or phoneNumberId; without
// either the submission is 422 phone_number_required, and an account or
// number it may not use is refused.
func TestTemplateSubmitChoosesTheAccount(t *testing.T) {
	const accountB, tokenB = "300000000000003", "EAAaccountBtoken"
	for _, eng := range engines {
		t.Run(eng.name, func(t *testing.T) {
			t.Parallel()
			fake := fakemeta.New(t)
			fake.AddNumber(fakemeta.Number{PhoneNumberID: "200000000000002", WABAID: accountB, Token: tokenB})
			number := porttest.NewNumber(t)
			number.MetaID, number.WABAID = "200000000000002", accountB
			e := newEnvOn(t, eng.open(t), withCloudAPI(fake), func(d *httpapi.Deps, st porttest.Store) {
				c := whatsapp.New(whatsapp.Config{APIURL: fake.URL, AccessToken: fake.Token, WABAID: fake.WABAID})
				d.SubmitTemplate = app.NewSubmitTemplateHandler(c, st, system.Clock{}, usecase.NewObserver(nil)).
					WithNumbers(st, numberAuthors{st: st, cloud: c, tokens: map[string]string{accountB: tokenB}})
			})
			ctx := context.Background()
			if err := e.store.CreateNumber(ctx, number); err != nil {
				t.Fatal(err)
			}
			with := func(body, field string) string { return strings.Replace(body, "{", "{"+field+",", 1) }
			scenarios := []struct {
				name, body string
				status     int
				want       string
			}{
				{"no account named", orderTemplate, 422, `"code":"phone_number_required"`},
				{"an account of no number of the workspace", with(orderTemplate, `"wabaId":"999"`), 422, `"param":"wabaId"`},
				{"a number it may not use", with(orderTemplate, `"phoneNumberId":"pn_00000000000000000000000000"`), 404, `"code":"phone_number_not_found"`},
				{"account B by its id", with(orderTemplate, `"wabaId":"`+accountB+`"`), 201, `"status":"PENDING"`},
				{"account B by its number", with(otpTemplate, `"phoneNumberId":"`+string(number.ID)+`"`), 201, `"status":"PENDING"`},
				{"the configured account", with(orderTemplate, `"wabaId":"`+fake.WABAID+`"`), 201, `"status":"PENDING"`},
			}
			for _, sc := range scenarios {
				res, got := e.do(t, "POST", "/v1/templates", e.keyed(e.liveKey), sc.body)
				if res.StatusCode != sc.status || !strings.Contains(got, sc.want) {
					t.Errorf("%s: %d %s, want %d with %s", sc.name, res.StatusCode, got, sc.status, sc.want)
				}
			}
			names := func(account string) []string {
				ts, err := e.store.ListTemplates(ctx, account)
				if err != nil {
					t.Fatal(err)
				}
				var out []string
				for _, tm := range ts {
					out = append(out, tm.Name)
				}
				return out
			}
			if got := names(accountB); len(got) != 2 || got[0] != "login_code" || got[1] != "order_shipped" {
				t.Errorf("account B's stored templates %q, want login_code and order_shipped", got)
			}
			if got := names(fake.WABAID); len(got) != 1 || got[0] != "order_shipped" {
				t.Errorf("the configured account's stored templates %q, want order_shipped", got)
			}
			if n := len(fake.Submissions()); n != 3 {
				t.Errorf("Meta got %d submissions, want 3", n)
			}
		})
	}
}
