package domain_test

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/heraldhq/herald/domain"
)

// tokenShape is DESIGN §2's token format, written independently of the
// domain package.
var tokenShape = regexp.MustCompile(`^sk_(live|test)_[0-9a-z]{16}[0-9A-Za-z]{38}$`)

// FuzzParseToken: ParseToken never panics, accepts exactly the tokens of the
// documented shape whose checksum matches, and an accepted token round-trips.
func FuzzParseToken(f *testing.F) {
	f.Add("sk_test_0123456789abcdefABCDEFGHIJKLMNOPQRSTUVWXYZabcdef4Dp5fo")
	f.Add("sk_live_zzzzzzzzzzzzzzzz000000000000000000000000000000002TBg8j")
	f.Add("sk_live_")
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		tok, err := domain.ParseToken(s)
		valid := tokenShape.MatchString(s) && s[56:] == checksumOf(s[:56])
		if err != nil {
			if valid {
				t.Fatalf("refused a well-formed token %q: %v", s, err)
			}
			if !errors.Is(err, domain.ErrInvalidAPIKey) {
				t.Fatalf("refused %q with %v, want invalid_api_key", s, err)
			}
			return
		}
		if !valid {
			t.Fatalf("accepted %q, which is not a well-formed token", s)
		}
		if tok.Plaintext() != s || tok.Identifier() != s[8:24] || tok.Mode().String() != s[3:7] {
			t.Fatalf("accepted %q but it reads back as %q, identifier %q, mode %v", s, tok.Plaintext(), tok.Identifier(), tok.Mode())
		}
		if strings.Contains(tok.String(), s[24:]) || tok.String() != s[:24]+"…" {
			t.Fatalf("String() = %q reveals the secret of %q", tok.String(), s)
		}
		if again, err := domain.ParseToken(tok.Plaintext()); err != nil || again != tok {
			t.Fatalf("%q does not parse again: %v", s, err)
		}
	})
}

// FuzzParsePhoneNumber: ParsePhoneNumber never panics; what it accepts is
// E.164 ("+" and 8 to 15 digits) and parses again to the same number; what
// it refuses is invalid_phone_number on phoneNumber.
func FuzzParsePhoneNumber(f *testing.F) {
	for _, s := range []string{"+14155552671", "+919876543210", "+447911123456", "+5511988887777", "14155552671",
		"+", "+0", "+999123456789", "+1 415", "+14155526"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := domain.ParsePhoneNumber(s)
		if err != nil {
			var de *domain.Error
			if !errors.As(err, &de) || de.Code != domain.CodeInvalidPhoneNumber || de.Param != "phoneNumber" || de.Detail == "" {
				t.Fatalf("refused %q with %#v, want invalid_phone_number on phoneNumber with a reason", s, err)
			}
			return
		}
		if p.String() != s || len(s) < 9 || len(s) > 16 || s[0] != '+' || strings.Trim(s[1:], "0123456789") != "" || s[1] == '0' {
			t.Fatalf("accepted %q, which is not E.164", s)
		}
		if again, err := domain.ParsePhoneNumber(p.String()); err != nil || again != p {
			t.Fatalf("%q does not parse again: %v", s, err)
		}
	})
}

// placeholderRE finds placeholders for the reference rendering below.
var placeholderRE = regexp.MustCompile(`\{\{([0-9]+)\}\}`)

// FuzzRender: for any body NewTemplate accepts and variables that pass
// CheckVariables, Render never panics, agrees with a reference rendering,
// contains every variable and is valid UTF-8; a body without placeholders is
// left as it is.
func FuzzRender(f *testing.F) {
	f.Add("Hi {{1}}, your code is {{2}}", "Ana", "1234", "x")
	f.Add("{{1}}{{1}}{{2}}", "{{2}}", "x", "y")
	f.Add("{{3}} {{2}} {{1}}", "a", "b", "c")
	f.Add("no placeholders", "", "", "")
	f.Add("}}{{1}}}}", "é", "", "")
	f.Fuzz(func(t *testing.T, body, v1, v2, v3 string) {
		tmpl, err := domain.NewTemplate("t", "en", domain.HeaderNone, "", body, "", nil)
		if err != nil {
			return
		}
		n := len(tmpl.Placeholders)
		if n > 3 {
			return
		}
		vars := []string{v1, v2, v3}[:n]
		if tmpl.CheckVariables(vars) != nil {
			return
		}
		out := tmpl.Render(vars)
		want := placeholderRE.ReplaceAllStringFunc(body, func(m string) string {
			i, _ := strconv.Atoi(m[2 : len(m)-2])
			return vars[i-1]
		})
		if out != want {
			t.Fatalf("Render(%q, %q) = %q, want %q", body, vars, out, want)
		}
		for _, v := range vars {
			if !strings.Contains(out, v) {
				t.Fatalf("Render(%q, %q) = %q lacks %q", body, vars, out, v)
			}
		}
		if !utf8.ValidString(out) {
			t.Fatalf("Render(%q, %q) = %q is not valid UTF-8", body, vars, out)
		}
		if n == 0 && out != body {
			t.Fatalf("a body without placeholders changed: %q -> %q", body, out)
		}
	})
}
