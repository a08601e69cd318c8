package domain_test

import (
	"testing"

	"github.com/heraldhq/herald/domain"
)

func BenchmarkParsePhoneNumber(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := domain.ParsePhoneNumber("+14155552671"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseToken(b *testing.B) {
	tok := "sk_test_0123456789abcdefABCDEFGHIJKLMNOPQRSTUVWXYZabcdef"
	tok += checksumOf(tok)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := domain.ParseToken(tok); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRender(b *testing.B) {
	tmpl, _ := domain.NewTemplate("welcome", "en_US", domain.HeaderNone, "", "Hi {{1}}, your code is {{2}}", "", nil)
	vars := []string{"Ana", "1234"}
	b.ReportAllocs()
	for b.Loop() {
		if err := tmpl.CheckVariables(vars); err != nil {
			b.Fatal(err)
		}
		_ = tmpl.Render(vars)
	}
}
