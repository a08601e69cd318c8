package domain_test

import (
	"testing"
	"time"

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

// BenchmarkAdvanceStatus applies a message's sent, delivered and read
// statuses, out of order and with one duplicate, as Meta's webhooks can
// arrive.
func BenchmarkAdvanceStatus(b *testing.B) {
	at := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	steps := []struct {
		status domain.MessageStatus
		at     time.Time
	}{
		{domain.StatusDelivered, at.Add(2 * time.Second)},
		{domain.StatusSent, at.Add(time.Second)},
		{domain.StatusRead, at.Add(3 * time.Second)},
		{domain.StatusDelivered, at.Add(2 * time.Second)},
	}
	b.ReportAllocs()
	for b.Loop() {
		m := domain.Message{Status: domain.StatusQueued, History: []domain.StatusChange{{Status: domain.StatusQueued, At: at}}, UpdatedAt: at}
		for _, s := range steps {
			m.Advance(s.status, s.at, nil)
		}
		if m.Status != domain.StatusRead || len(m.History) != 4 {
			b.Fatalf("status %s with %d changes, want read with 4", m.Status, len(m.History))
		}
	}
}
