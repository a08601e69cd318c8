package httpapi_test

import (
	"context"
	"encoding/json"
	"slices"
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

// TestTemplateListAndDeletePerAccount: a workspace whose numbers belong to
// two business accounts lists both accounts' templates, each with its
// account, or one account's with wabaId; deleting a template must name
// the account when both have one of that name, and deletes it from that
// account only, at Meta with that account's token.
func TestTemplateListAndDeletePerAccount(t *testing.T) {
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
				authors := numberAuthors{st: st, cloud: c, tokens: map[string]string{accountB: tokenB}}
				clock, obs := system.Clock{}, usecase.NewObserver(nil)
				d.ListTemplates = app.NewListTemplatesHandler(c, st).WithNumbers(st)
				d.SubmitTemplate = app.NewSubmitTemplateHandler(c, st, clock, obs).WithNumbers(st, authors)
				d.DeleteTemplate = app.NewDeleteTemplateHandler(c, st, clock, usecase.NewEvents(system.NewIDs(), httpapi.NewEventRenderer()), obs).
					WithNumbers(st, authors)
			})
			if err := e.store.CreateNumber(context.Background(), number); err != nil {
				t.Fatal(err)
			}
			with := func(body, field string) string { return strings.Replace(body, "{", "{"+field+",", 1) }
			for _, body := range []string{
				with(orderTemplate, `"wabaId":"`+accountB+`"`),
				with(otpTemplate, `"wabaId":"`+accountB+`"`),
				with(orderTemplate, `"wabaId":"`+fake.WABAID+`"`),
			} {
				if res, got := e.do(t, "POST", "/v1/templates", e.keyed(e.liveKey), body); res.StatusCode != 201 {
					t.Fatalf("submit: %d %s", res.StatusCode, got)
				}
			}
			list := func(query string) []string {
				t.Helper()
				res, got := e.do(t, "GET", "/v1/templates"+query, e.keyed(e.liveKey), "")
				if res.StatusCode != 200 {
					t.Fatalf("GET /v1/templates%s: %d %s", query, res.StatusCode, got)
				}
				var out struct {
					Data []struct{ Name, WABAID string }
				}
				if err := json.Unmarshal([]byte(got), &out); err != nil {
					t.Fatal(err)
				}
				var items []string
				for _, tm := range out.Data {
					items = append(items, tm.Name+"@"+tm.WABAID)
				}
				return items
			}
			b, a := "@"+accountB, "@"+fake.WABAID
			if got, want := list(""), []string{"login_code" + b, "order_shipped" + a, "order_shipped" + b}; !slices.Equal(got, want) {
				t.Errorf("both accounts' templates %q, want %q", got, want)
			}
			if got, want := list("?wabaId="+accountB), []string{"login_code" + b, "order_shipped" + b}; !slices.Equal(got, want) {
				t.Errorf("account B's templates %q, want %q", got, want)
			}
			scenarios := []struct {
				name, method, path string
				status             int
				want               string
			}{
				{"a filter by an account of no number of the workspace", "GET", "/v1/templates?wabaId=999", 422, `"param":"wabaId"`},
				{"a delete naming no account", "DELETE", "/v1/templates/order_shipped", 422, `"code":"phone_number_required"`},
				{"a delete from an account of no number of the workspace", "DELETE", "/v1/templates/order_shipped?wabaId=999", 422, `"code":"invalid_parameter"`},
				{"a delete from an account without the template", "DELETE", "/v1/templates/login_code?wabaId=" + fake.WABAID, 404, `"code":"template_not_found"`},
				{"a delete from account B", "DELETE", "/v1/templates/order_shipped?wabaId=" + accountB, 204, ""},
			}
			for _, sc := range scenarios {
				res, got := e.do(t, sc.method, sc.path, e.keyed(e.liveKey), "")
				if res.StatusCode != sc.status || !strings.Contains(got, sc.want) {
					t.Errorf("%s: %d %s, want %d with %s", sc.name, res.StatusCode, got, sc.status, sc.want)
				}
			}
			if got, want := list(""), []string{"login_code" + b, "order_shipped" + a}; !slices.Equal(got, want) {
				t.Errorf("after deleting account B's order_shipped: %q, want %q", got, want)
			}
			if got := fake.Deleted(); !slices.Equal(got, []string{"order_shipped"}) {
				t.Errorf("Meta was asked to delete %q, want order_shipped once", got)
			}
		})
	}
}
