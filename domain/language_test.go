package domain_test

import (
	"testing"

	"github.com/heraldhq/herald/domain"
)

// Meta writes one language in several forms: its template API says pt_BR,
// webhooks and people say pt-BR or pt_br. They are one language.
func TestCanonicalLanguage(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"pt_BR":  "pt_BR",
		"pt-BR":  "pt_BR",
		"pt_br":  "pt_BR",
		"PT-br":  "pt_BR",
		" en ":   "en",
		"EN":     "en",
		"en_us":  "en_US",
		"prs-af": "prs_AF",
		"zh_HK":  "zh_HK",
		"zh-hk":  "zh_HK",
	} {
		if got := domain.CanonicalLanguage(in); got != want {
			t.Errorf("CanonicalLanguage(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSameLanguage(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{"pt_BR", "pt-BR", true},
		{"pt_BR", "PT_br", true},
		{"en", "EN", true},
		{"pt_BR", "pt_PT", false},
		{"pt_BR", "pt", false},
		{"en_US", "en", false},
	} {
		if got := domain.SameLanguage(c.a, c.b); got != c.same {
			t.Errorf("SameLanguage(%q, %q) = %v, want %v", c.a, c.b, got, c.same)
		}
	}
}

func TestParseLanguage(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"pt-BR": "pt_BR", "en": "en", "prs_AF": "prs_AF", "en_us": "en_US"} {
		got, err := domain.ParseLanguage(in)
		if err != nil || got != want {
			t.Errorf("ParseLanguage(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "_", "en_", "-US", "en__US", "en US", "en_U5", "a_b_c_d", "abcdefgh_ijklmnop", "pt\u2011BR"} {
		_, err := domain.ParseLanguage(bad)
		wantInvalid(t, err, "language", `such as "en" or "en_US"`)
	}
}

// A template defined with pt-BR is the pt_BR template: the form sent to
// Meta, stored and compared.
func TestNewTemplateKeepsTheCanonicalLanguage(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"pt-BR", "pt_br", "PT-BR"} {
		tmpl, err := domain.NewTemplate("order_update", in, domain.HeaderNone, "", "Olá {{1}}", "", nil)
		if err != nil {
			t.Fatalf("NewTemplate with %q: %v", in, err)
		}
		if tmpl.Language != "pt_BR" {
			t.Errorf("NewTemplate with %q keeps %q, want pt_BR", in, tmpl.Language)
		}
	}
}
