package domain_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/heraldhq/herald/domain"
)

func mustTemplate(t *testing.T, body string, labels ...string) domain.Template {
	t.Helper()
	tmpl, err := domain.NewTemplate("welcome", "en_US", domain.HeaderNone, "", body, "", labels)
	if err != nil {
		t.Fatal(err)
	}
	return tmpl
}

func TestPlaceholders(t *testing.T) {
	t.Parallel()
	if n := len(mustTemplate(t, "Hi {{1}}, {{2}} and {{1}} again").Placeholders); n != 2 {
		t.Fatalf("placeholders %d, want 2", n)
	}
	if n := len(mustTemplate(t, "No placeholders").Placeholders); n != 0 {
		t.Fatalf("placeholders %d, want 0", n)
	}
	tmpl := mustTemplate(t, "{{1}} {{2}}", "First name")
	if tmpl.Placeholders[0].Label != "First name" || tmpl.Placeholders[1].Label != "" {
		t.Fatalf("labels %+v", tmpl.Placeholders)
	}
	for body, want := range map[string]string{
		"Hi {{1}} {{3}}": "{{2}} is missing",
		"Hi {{0}}":       "found {{0}}",
		"Hi {{01}}":      "found {{01}}",
		"Hi {{name}}":    "found {{name}}",
		"Hi {{1":         "never closed",
		"":               "1 to 1024",
	} {
		_, err := domain.NewTemplate("welcome", "en_US", domain.HeaderNone, "", body, "", nil)
		if !errors.Is(err, domain.ErrInvalidParameter) || !strings.Contains(err.Error(), want) {
			t.Errorf("body %q: %v, want an error saying %q", body, err, want)
		}
	}
	if _, err := domain.NewTemplate("welcome", "en_US", domain.HeaderNone, "", "{{1}}", "", []string{"a", "b"}); err == nil {
		t.Error("more labels than placeholders must be refused")
	}
	if _, err := domain.NewTemplate("Welcome!", "en_US", domain.HeaderNone, "", "x", "", nil); err == nil {
		t.Error("a template name with capitals or punctuation must be refused")
	}
	if _, err := domain.NewTemplate("w", "en_US", domain.HeaderText, "", "x", "", nil); err == nil {
		t.Error("a text header needs its text")
	}
}

func TestRender(t *testing.T) {
	t.Parallel()
	tmpl := mustTemplate(t, "Hi {{1}}, your code is {{2}}. Bye {{1}}!")
	if got := tmpl.Render([]string{"Ana", "1234"}); got != "Hi Ana, your code is 1234. Bye Ana!" {
		t.Fatalf("render %q", got)
	}
	if got := mustTemplate(t, "Plain text, no placeholders").Render(nil); got != "Plain text, no placeholders" {
		t.Fatalf("render without placeholders %q", got)
	}
}

func TestCheckVariables(t *testing.T) {
	t.Parallel()
	tmpl := mustTemplate(t, "Hi {{1}}, {{2}}")
	for _, c := range []struct {
		vars []string
		want string
	}{
		{[]string{"Ana"}, "the template has 2 placeholders but 1 variable was given"},
		{nil, "the template has 2 placeholders but 0 variables were given"},
		{[]string{"Ana", "", "x"}, "but 3 variables were given"},
		{[]string{"Ana", " "}, "variable {{2}} is empty"},
		{[]string{strings.Repeat("é", 1025), "x"}, "variable {{1}} is longer than 1024 characters"},
		{[]string{"Ana\nB", "x"}, "newline or tab"},
		{[]string{"Ana\tB", "x"}, "newline or tab"},
		{[]string{"A     B", "x"}, "more than 4 consecutive spaces"},
		{[]string{"A\xffB", "x"}, "not valid UTF-8"},
	} {
		err := tmpl.CheckVariables(c.vars)
		if !errors.Is(err, domain.ErrVariablesMismatch) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.vars, err, c.want)
		}
	}
	if err := tmpl.CheckVariables([]string{"A    B", strings.Repeat("é", 1024)}); err != nil {
		t.Errorf("four spaces and exactly 1024 characters are allowed: %v", err)
	}
}
