package domain_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/heraldhq/herald/domain"
)

func FuzzParseToken(f *testing.F) {
	f.Add("sk_test_0123456789abcdefABCDEFGHIJKLMNOPQRSTUVWXYZabcdef000000")
	f.Add("sk_live_")
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		tok, err := domain.ParseToken(s)
		if err != nil {
			return
		}
		if tok.Plaintext() != s || !strings.Contains(s, tok.Identifier()) || len(s) != domain.TokenLength {
			t.Fatalf("accepted %q but it does not round-trip", s)
		}
		if strings.Contains(tok.String(), s[24:]) {
			t.Fatalf("String() reveals the secret")
		}
	})
}

func FuzzParsePhoneNumber(f *testing.F) {
	for _, s := range []string{"+14155552671", "+919876543210", "14155552671", "+", "+0", "+999123456789", "+1 415"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := domain.ParsePhoneNumber(s)
		if err != nil {
			return
		}
		if p.String() != s || s[0] != '+' || len(s) < 9 || len(s) > 16 {
			t.Fatalf("accepted %q", s)
		}
		if again, err := domain.ParsePhoneNumber(p.String()); err != nil || again != p {
			t.Fatalf("%q does not parse again", s)
		}
	})
}

func FuzzRender(f *testing.F) {
	f.Add("Hi {{1}}, your code is {{2}}", "Ana", "1234")
	f.Add("{{1}}{{1}}{{2}}", "{{2}}", "x")
	f.Add("no placeholders", "", "")
	f.Fuzz(func(t *testing.T, body, v1, v2 string) {
		tmpl, err := domain.NewTemplate("t", "en", domain.HeaderNone, "", body, "", nil)
		if err != nil {
			return
		}
		vars := []string{v1, v2}[:min(2, len(tmpl.Placeholders))]
		if len(tmpl.Placeholders) > 2 || tmpl.CheckVariables(vars) != nil {
			return
		}
		out := tmpl.Render(vars)
		if !utf8.ValidString(body) {
			return
		}
		for _, v := range vars {
			if !strings.Contains(out, v) {
				t.Fatalf("render of %q with %q lacks %q: %q", body, vars, v, out)
			}
		}
		if len(vars) == 0 && out != body {
			t.Fatalf("a body without placeholders changed: %q -> %q", body, out)
		}
	})
}
