package domain_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/heraldhq/herald/domain"
)

func mustTemplate(t *testing.T, body string, labels ...string) domain.Template {
	t.Helper()
	tmpl, err := domain.NewTemplate("welcome", "en_US", domain.HeaderNone, "", body, "", labels)
	if err != nil {
		t.Fatalf("NewTemplate(%q): %v", body, err)
	}
	return tmpl
}

// wantInvalid checks that err is invalid_parameter for param with a detail
// containing detail.
func wantInvalid(t *testing.T, err error, param, detail string) {
	t.Helper()
	var de *domain.Error
	if !errors.Is(err, domain.ErrInvalidParameter) || !errors.As(err, &de) || de.Param != param || !strings.Contains(de.Detail, detail) {
		t.Errorf("err %v, want invalid_parameter (%s) saying %q", err, param, detail)
	}
}

func TestNewTemplatePlaceholders(t *testing.T) {
	t.Parallel()
	cases := []struct {
		body   string
		labels []string
		want   []domain.Placeholder
	}{
		{"No placeholders", nil, []domain.Placeholder{}},
		{"Hi {{1}}, your code is {{2}}", nil, []domain.Placeholder{{Index: 1}, {Index: 2}}},
		{"{{1}}{{2}}", nil, []domain.Placeholder{{Index: 1}, {Index: 2}}},
		{"Hi {{1}}, {{2}} and {{1}} again", nil, []domain.Placeholder{{Index: 1}, {Index: 2}}},
		{"{{2}} before {{1}}", nil, []domain.Placeholder{{Index: 1}, {Index: 2}}},
		{"Braces { alone } and }} are text {{1}}", nil, []domain.Placeholder{{Index: 1}}},
		{"{{1}} {{2}}", []string{"First name"}, []domain.Placeholder{{Index: 1, Label: "First name"}, {Index: 2}}},
		{"{{1}} {{2}}", []string{"First name", "Code"}, []domain.Placeholder{{Index: 1, Label: "First name"}, {Index: 2, Label: "Code"}}},
	}
	for _, c := range cases {
		tmpl, err := domain.NewTemplate("welcome", "en_US", domain.HeaderNone, "", c.body, "", c.labels)
		if err != nil {
			t.Errorf("NewTemplate(%q, %q): %v", c.body, c.labels, err)
			continue
		}
		if diff := cmp.Diff(c.want, tmpl.Placeholders); diff != "" {
			t.Errorf("placeholders of %q (-want +got):\n%s", c.body, diff)
		}
	}
}

func TestNewTemplateRefusesBadPlaceholders(t *testing.T) {
	t.Parallel()
	cases := []struct {
		body, detail string
	}{
		{"Hi {{1}} {{3}}", "placeholder {{2}} is missing"},
		{"Hi {{2}}", "placeholder {{1}} is missing"},
		{"Hi {{0}}", "found {{0}}"},
		{"Hi {{01}}", "found {{01}}"},
		{"Hi {{+1}}", "found {{+1}}"},
		{"Hi {{ 1 }}", "found {{ 1 }}"},
		{"Hi {{x}}", "found {{x}}"},
		{"Hi {{name}}", "found {{name}}"},
		{"Hi {{}}", "found {{}}"},
		{"Hi {{{1}}}", "found {{{1}}"},
		{"Hi {{1", "never closed"},
		{"Hi {{1}} and {{2", "never closed"},
		{"Hi {{101}}", "at most 100 placeholders"},
		{"Hi {{99999999999999999999}}", "found {{99999999999999999999}}"},
	}
	for _, c := range cases {
		_, err := domain.NewTemplate("welcome", "en_US", domain.HeaderNone, "", c.body, "", nil)
		wantInvalid(t, err, "body", c.detail)
	}
}

func TestNewTemplateRules(t *testing.T) {
	t.Parallel()
	type args struct {
		name, language string
		header         domain.HeaderFormat
		headerText     string
		body, footer   string
		labels         []string
	}
	ok := args{name: "order_update_2", language: "pt_BR", header: domain.HeaderNone, body: "Hi {{1}}"}
	with := func(f func(*args)) args { a := ok; f(&a); return a }
	cases := []struct {
		name          string
		args          args
		param, detail string // empty param: accepted
	}{
		{"valid", ok, "", ""},
		{"name empty", with(func(a *args) { a.name = "" }), "templateName", "lowercase letters, digits and underscores"},
		{"name with capitals", with(func(a *args) { a.name = "Welcome" }), "templateName", "lowercase"},
		{"name with a dash inside", with(func(a *args) { a.name = "order-update" }), "templateName", "lowercase"},
		{"name with a space", with(func(a *args) { a.name = "order update" }), "templateName", "lowercase"},
		{"name of 512", with(func(a *args) { a.name = strings.Repeat("a", 512) }), "", ""},
		{"name of 513", with(func(a *args) { a.name = strings.Repeat("a", 513) }), "templateName", "1 to 512"},
		{"language empty", with(func(a *args) { a.language = "" }), "language", `such as "en" or "en_US"`},
		{"language with an empty subtag", with(func(a *args) { a.language = "en_" }), "language", "en_US"},
		{"language with a digit", with(func(a *args) { a.language = "en_U5" }), "language", "en_US"},
		{"language of four subtags", with(func(a *args) { a.language = "a_b_c_d" }), "language", "en_US"},
		{"language too long", with(func(a *args) { a.language = "en_US_en_US_en_US" }), "language", "en_US"},
		{"language en", with(func(a *args) { a.language = "en" }), "", ""},
		{"zero header means none", with(func(a *args) { a.header = domain.HeaderFormat{} }), "", ""},
		{"text header without text", with(func(a *args) { a.header = domain.HeaderText }), "headerText", "1 to 60 characters"},
		{"text header of 60", with(func(a *args) { a.header, a.headerText = domain.HeaderText, strings.Repeat("é", 60) }), "", ""},
		{"text header of 61", with(func(a *args) { a.header, a.headerText = domain.HeaderText, strings.Repeat("é", 61) }), "headerText", "1 to 60 characters"},
		{"text header with two placeholders", with(func(a *args) { a.header, a.headerText = domain.HeaderText, "Hi {{1}} {{2}}" }), "headerText", "at most one placeholder"},
		{"header text without a text header", with(func(a *args) { a.headerText = "Hello" }), "headerText", "only for a text header"},
		{"header text with an image header", with(func(a *args) { a.header, a.headerText = domain.HeaderImage, "Hello" }), "headerText", "only for a text header"},
		{"image header", with(func(a *args) { a.header = domain.HeaderImage }), "", ""},
		{"body empty", with(func(a *args) { a.body = "" }), "body", "1 to 1024 characters"},
		{"body of 1024", with(func(a *args) { a.body = strings.Repeat("é", 1019) + "{{1}}" }), "", ""},
		{"body of 1025", with(func(a *args) { a.body = strings.Repeat("é", 1025) }), "body", "1 to 1024 characters"},
		{"body not UTF-8", with(func(a *args) { a.body = "Hi \xff{{1}}" }), "body", "UTF-8"},
		{"footer of 60", with(func(a *args) { a.footer = strings.Repeat("f", 60) }), "", ""},
		{"footer of 61", with(func(a *args) { a.footer = strings.Repeat("f", 61) }), "footer", "at most 60"},
		{"footer not UTF-8", with(func(a *args) { a.footer = "\xc3" }), "footer", "UTF-8"},
		{"header text not UTF-8", with(func(a *args) { a.header, a.headerText = domain.HeaderText, "\xc3(" }), "headerText", "UTF-8"},
		{"as many labels as placeholders", with(func(a *args) { a.labels = []string{"Name"} }), "", ""},
		{"more labels than placeholders", with(func(a *args) { a.labels = []string{"Name", "Code"} }), "variableLabels",
			"there are 2 labels but the body has 1 placeholders"},
		{"label not UTF-8", with(func(a *args) { a.labels = []string{"\xff"} }), "variableLabels", "UTF-8"},
		{"NUL in the body", with(func(a *args) { a.body = "Hi {{1}}\x00" }), "body", "NUL character (U+0000)"},
		{"NUL in the footer", with(func(a *args) { a.footer = "\x00" }), "footer", "NUL character"},
		{"NUL in the header text", with(func(a *args) { a.header, a.headerText = domain.HeaderText, "Hi\x00" }), "headerText", "NUL character"},
		{"NUL in a label", with(func(a *args) { a.labels = []string{"Na\x00me"} }), "variableLabels", "NUL character"},
		{"NUL in the name", with(func(a *args) { a.name = "order\x00" }), "templateName", "lowercase"},
		{"NUL in the language", with(func(a *args) { a.language = "en\x00" }), "language", "en_US"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			a := c.args
			tmpl, err := domain.NewTemplate(a.name, a.language, a.header, a.headerText, a.body, a.footer, a.labels)
			if c.param == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				want := a.header
				if want.IsZero() {
					want = domain.HeaderNone
				}
				if tmpl.Name != a.name || tmpl.Language != a.language || tmpl.HeaderFormat != want || tmpl.Body != a.body ||
					tmpl.HeaderText != a.headerText || tmpl.Footer != a.footer {
					t.Fatalf("template %+v does not keep its definition", tmpl)
				}
				return
			}
			wantInvalid(t, err, c.param, c.detail)
		})
	}
}

func TestParseHeaderFormat(t *testing.T) {
	t.Parallel()
	for _, f := range []domain.HeaderFormat{domain.HeaderNone, domain.HeaderText, domain.HeaderImage, domain.HeaderVideo, domain.HeaderDocument} {
		got, err := domain.ParseHeaderFormat(f.String())
		if err != nil || got != f {
			t.Errorf("ParseHeaderFormat(%q) = %v, %v", f, got, err)
		}
		if want := f == domain.HeaderImage || f == domain.HeaderVideo || f == domain.HeaderDocument; f.IsMedia() != want {
			t.Errorf("%s.IsMedia() = %v", f, !want)
		}
	}
	for _, s := range []string{"", "IMAGE", "audio", "LOCATION"} {
		if _, err := domain.ParseHeaderFormat(s); !errors.Is(err, domain.ErrInvalidParameter) {
			t.Errorf("ParseHeaderFormat(%q): %v, want invalid_parameter", s, err)
		}
	}
}

func TestRelabel(t *testing.T) {
	t.Parallel()
	tmpl := mustTemplate(t, "{{1}} {{2}}")
	if err := tmpl.Relabel([]string{"Name"}); !errors.Is(err, domain.ErrInvalidParameter) {
		t.Fatalf("one label for two placeholders: %v", err)
	}
	if tmpl.Placeholders[0].Label != "" {
		t.Fatal("a refused relabel changed the labels")
	}
	if err := tmpl.Relabel([]string{"Name", "Code"}); err != nil {
		t.Fatal(err)
	}
	want := []domain.Placeholder{{Index: 1, Label: "Name"}, {Index: 2, Label: "Code"}}
	if diff := cmp.Diff(want, tmpl.Placeholders); diff != "" {
		t.Fatalf("labels (-want +got):\n%s", diff)
	}
}

func TestRender(t *testing.T) {
	t.Parallel()
	cases := []struct {
		body string
		vars []string
		want string
	}{
		{"Hi {{1}}, your code is {{2}}", []string{"Ana", "1234"}, "Hi Ana, your code is 1234"},
		{"Hi {{1}}, your code is {{2}}. Bye {{1}}!", []string{"Ana", "1234"}, "Hi Ana, your code is 1234. Bye Ana!"},
		{"{{2}} comes before {{1}}", []string{"one", "two"}, "two comes before one"},
		{"{{1}}{{2}}{{1}}", []string{"a", "b"}, "aba"},
		{"{{1}}", []string{"{{2}} stays as given"}, "{{2}} stays as given"},
		{"Ünïcödé {{1}} ✓", []string{"çà"}, "Ünïcödé çà ✓"},
		{"Plain text, no placeholders", nil, "Plain text, no placeholders"},
		{"Braces { alone } and }} stay", nil, "Braces { alone } and }} stay"},
		{"a }} b {{1}} c", []string{"X"}, "a }} b X c"},
	}
	for _, c := range cases {
		tmpl := mustTemplate(t, c.body)
		if err := tmpl.CheckVariables(c.vars); err != nil {
			t.Fatalf("%q with %q: %v", c.body, c.vars, err)
		}
		if got := tmpl.Render(c.vars); got != c.want {
			t.Errorf("Render(%q, %q) = %q, want %q", c.body, c.vars, got, c.want)
		}
	}
}

func TestCheckVariables(t *testing.T) {
	t.Parallel()
	two := mustTemplate(t, "Hi {{1}}, {{2}}")
	one := mustTemplate(t, "Hi {{1}}")
	none := mustTemplate(t, "Hi")
	cases := []struct {
		name   string
		tmpl   domain.Template
		vars   []string
		detail string // empty: accepted
	}{
		{"one for two", two, []string{"Ana"}, "the template has 2 placeholders but 1 variable was given"},
		{"none for two", two, nil, "the template has 2 placeholders but 0 variables were given"},
		{"three for two", two, []string{"Ana", "b", "c"}, "the template has 2 placeholders but 3 variables were given"},
		{"two for one", one, []string{"Ana", "b"}, "the template has 1 placeholder but 2 variables were given"},
		{"one for none", none, []string{"Ana"}, "the template has 0 placeholders but 1 variable was given"},
		{"empty", two, []string{"Ana", ""}, "variables[1] fills the body's {{2}} (slot body.2): is empty"},
		{"spaces only", two, []string{"   ", "x"}, "variables[0] fills the body's {{1}} (slot body.1): is empty"},
		{"no-break space only", two, []string{"Ana", "\u00a0"}, "variables[1] fills the body's {{2}} (slot body.2): is empty"},
		{"1025 characters", two, []string{strings.Repeat("é", 1025), "x"}, "variables[0] fills the body's {{1}} (slot body.1): is longer than 1024 characters"},
		{"newline", two, []string{"Ana\nB", "x"}, "variables[0] fills the body's {{1}} (slot body.1): contains a newline or tab, which WhatsApp refuses in parameters"},
		{"carriage return", two, []string{"Ana", "B\rC"}, "variables[1] fills the body's {{2}} (slot body.2): contains a newline or tab, which WhatsApp refuses in parameters"},
		{"tab", two, []string{"Ana\tB", "x"}, "variables[0] fills the body's {{1}} (slot body.1): contains a newline or tab, which WhatsApp refuses in parameters"},
		{"five spaces", two, []string{"A     B", "x"}, "variables[0] fills the body's {{1}} (slot body.1): contains more than 4 consecutive spaces, which WhatsApp refuses in parameters"},
		{"invalid UTF-8", two, []string{"Ana", "A\xffB"}, "variables[1] fills the body's {{2}} (slot body.2): is not valid UTF-8"},
		{"NUL", two, []string{"Ana", "A\x00B"}, "variables[1] fills the body's {{2}} (slot body.2): contains a NUL character (U+0000), which Herald does not store"},
		{"exactly 4 spaces", two, []string{"A    B", "x"}, ""},
		{"exactly 1024 characters", two, []string{strings.Repeat("é", 1024), "x"}, ""},
		{"four spaces twice", two, []string{"A    B    C", "x"}, ""},
		{"none for none", none, nil, ""},
		{"empty slice for none", none, []string{}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			err := c.tmpl.CheckVariables(c.vars)
			if c.detail == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var de *domain.Error
			if !errors.Is(err, domain.ErrVariablesMismatch) || !errors.As(err, &de) {
				t.Fatalf("err %v, want variables_mismatch", err)
			}
			// A count names the list; a value names its position.
			param := "variables"
			if strings.HasPrefix(c.detail, "variables[") {
				param = c.detail[:strings.Index(c.detail, "]")+1]
			}
			if de.Param != param || de.Detail != c.detail {
				t.Fatalf("param %q detail %q, want %s and %q", de.Param, de.Detail, param, c.detail)
			}
		})
	}
}
