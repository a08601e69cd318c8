package dashboard_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/heraldhq/herald/adapters/dashboard"
	"github.com/heraldhq/herald/adapters/system"
	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/ports/portsmock"
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
