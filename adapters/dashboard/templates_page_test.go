package dashboard_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/adapters/dashboard"
	"github.com/heraldhq/herald/adapters/system"
	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/ports/portsmock"
	"github.com/heraldhq/herald/ports/porttest"
)

// TestTemplatesPageShowsFindingsNextToFields: a template Meta would refuse
// comes back with each finding under its field and what was typed kept,
// and nothing is submitted; fixed, it is submitted and listed PENDING.
func TestTemplatesPageShowsFindingsNextToFields(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dashboard.Config{})
	author := &portsmock.TemplateAuthorMock{
		AccountFunc: func() string { return "waba-1" },
		SubmitTemplateFunc: func(context.Context, domain.TemplateDraft) (ports.SubmittedTemplate, error) {
			return ports.SubmittedTemplate{ID: "1689556908129832", Status: domain.TemplatePending, Category: "UTILITY"}, nil
		},
	}
	e.deps.SubmitTemplate = app.NewSubmitTemplateHandler(author, e.store, system.Clock{}, usecase.NewObserver(nil))
	e.deps.ListTemplates = app.NewListTemplatesHandler(sourceOf{"waba-1"}, e.store)
	e.srv = httptest.NewServer(dashboard.NewHandler(e.deps, dashboard.Config{}, nil))
	t.Cleanup(e.srv.Close)

	b := e.browser(t)
	b.login()
	res, body := b.get("/dashboard/templates")
	wantStatus(t, res, body, http.StatusOK)
	if !strings.Contains(body, "No templates synced") || !strings.Contains(body, `aria-current="page">Templates`) {
		t.Fatalf("empty Templates page:\n%s", body)
	}
	form := url.Values{"name": {"order_shipped"}, "language": {"en_US"}, "category": {"UTILITY"},
		"body": {"{{1}}, your order ships today."}, "bodyExamples": {""}, "footer": {strings.Repeat("f", 61)},
		"quickReplies": {"Thanks"}}
	res, body = b.post("/dashboard/templates", form)
	wantStatus(t, res, body, http.StatusUnprocessableEntity)
	for _, want := range []string{
		`<div id="t-body-err"><p class="field-error">the body cannot start with a placeholder`,
		`<div id="t-bodyExamples-err"><p class="field-error">placeholder {{1}} needs an example value`,
		`<div id="t-footer-err"><p class="field-error">a footer is at most 60 characters`,
		`{{1}}, your order ships today.</textarea>`, // what was typed is kept
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the refused form lacks %q:\n%s", want, body)
		}
	}
	if n := len(author.SubmitTemplateCalls()); n != 0 {
		t.Fatalf("%d submissions of a refused template", n)
	}

	form.Set("body", "Hello {{1}}, your order ships today.")
	form.Set("bodyExamples", "Ana")
	form.Set("footer", "Reply STOP to opt out")
	res, body = b.post("/dashboard/templates", form)
	wantStatus(t, res, body, http.StatusOK)
	if !strings.Contains(body, "Template order_shipped (en_US) was submitted to Meta: PENDING") ||
		!strings.Contains(body, `<span class="badge template-PENDING">PENDING</span>`) {
		t.Fatalf("after submitting:\n%s", body)
	}
	calls := author.SubmitTemplateCalls()
	if len(calls) != 1 || calls[0].D.Components[2].Buttons[0].Text != "Thanks" {
		t.Fatalf("submissions: %+v", calls)
	}
}

// sourceOf is a template source that only names its account: the page
// lists what the store holds for it.
type sourceOf struct{ account string }

func (s sourceOf) Account() string { return s.account }
func (s sourceOf) ListTemplates(context.Context) ([]domain.SyncedTemplate, error) {
	return nil, nil
}

// authorsOf acts for every stored number with one author.
type authorsOf struct{ author ports.TemplateAuthor }

func (a authorsOf) TemplateAuthor(context.Context, domain.BusinessNumberID) ports.TemplateAuthor {
	return a.author
}

// TestTemplatesPageShowsEachAccount: with numbers of two business
// accounts, the page lists both accounts' templates, each with its
// account, and the form offers the account, the one chosen receiving the
// submission.
func TestTemplatesPageShowsEachAccount(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dashboard.Config{})
	ctx := context.Background()
	number := porttest.NewNumber(t)
	number.WABAID = "300000000000003"
	if err := e.store.CreateNumber(ctx, number); err != nil {
		t.Fatal(err)
	}
	for _, account := range []string{"waba-1", number.WABAID} {
		if err := e.store.ReplaceTemplates(ctx, account, []domain.SyncedTemplate{{Name: "order_" + account, Language: "en_US",
			Status: domain.TemplateApproved, Category: "UTILITY", SyncedAt: time.Now().UTC().Truncate(time.Microsecond)}}); err != nil {
			t.Fatal(err)
		}
	}
	configured := &portsmock.TemplateAuthorMock{AccountFunc: func() string { return "waba-1" }}
	other := &portsmock.TemplateAuthorMock{
		AccountFunc: func() string { return number.WABAID },
		SubmitTemplateFunc: func(context.Context, domain.TemplateDraft) (ports.SubmittedTemplate, error) {
			return ports.SubmittedTemplate{ID: "1689556908129832", Status: domain.TemplatePending, Category: "UTILITY"}, nil
		},
	}
	e.deps.SubmitTemplate = app.NewSubmitTemplateHandler(configured, e.store, system.Clock{}, usecase.NewObserver(nil)).
		WithNumbers(e.store, authorsOf{other})
	e.deps.ListTemplates = app.NewListTemplatesHandler(sourceOf{"waba-1"}, e.store).WithNumbers(e.store)
	e.srv = httptest.NewServer(dashboard.NewHandler(e.deps, dashboard.Config{}, nil))
	t.Cleanup(e.srv.Close)

	b := e.browser(t)
	b.login()
	res, body := b.get("/dashboard/templates")
	wantStatus(t, res, body, http.StatusOK)
	for _, want := range []string{
		`<th scope="col">Business account</th>`,
		"<bdi>order_waba-1</bdi></td>\n  <td>en_US</td>\n  <td>waba-1</td>",
		"<bdi>order_300000000000003</bdi></td>\n  <td>en_US</td>\n  <td>300000000000003</td>",
		`<select id="t-wabaId" name="wabaId">`,
		`<option value="waba-1"`, `<option value="300000000000003"`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the Templates page lacks %q:\n%s", want, body)
		}
	}
	form := url.Values{"name": {"order_shipped"}, "language": {"en_US"}, "category": {"UTILITY"},
		"body": {"Hello {{1}}, your order ships today."}, "bodyExamples": {"Ana"}, "wabaId": {number.WABAID}}
	res, body = b.post("/dashboard/templates", form)
	wantStatus(t, res, body, http.StatusOK)
	if !strings.Contains(body, "Template order_shipped (en_US) was submitted to Meta: PENDING") ||
		!strings.Contains(body, "<bdi>order_shipped</bdi></td>\n  <td>en_US</td>\n  <td>300000000000003</td>") {
		t.Fatalf("after submitting to account 300000000000003:\n%s", body)
	}
	if n, m := len(other.SubmitTemplateCalls()), len(configured.SubmitTemplateCalls()); n != 1 || m != 0 {
		t.Fatalf("%d submissions to the chosen account, %d to the configured one", n, m)
	}
}
