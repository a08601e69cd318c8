package domain_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/domain"
)

func TestParseIdempotencyKey(t *testing.T) {
	t.Parallel()
	ok := []string{"a", "order-1001", "550e8400-e29b-41d4-a716-446655440000", " spaced key ", "~!@#$%^&*()", strings.Repeat("k", 255)}
	for _, s := range ok {
		if k, err := domain.ParseIdempotencyKey(s); err != nil || string(k) != s {
			t.Errorf("ParseIdempotencyKey(%q) = %q, %v", s, k, err)
		}
	}
	bad := []string{"", "tab\there", "new\nline", "del\x7f", "é", strings.Repeat("k", 256), "nul\x00"}
	for _, s := range bad {
		_, err := domain.ParseIdempotencyKey(s)
		var de *domain.Error
		if !errors.As(err, &de) || de.Code != domain.CodeInvalidIdempotencyKey || de.Param != "Idempotency-Key" {
			t.Errorf("ParseIdempotencyKey(%q): %v, want invalid_idempotency_key on Idempotency-Key", s, err)
		}
	}
}

func TestFingerprintOf(t *testing.T) {
	t.Parallel()
	if domain.FingerprintOf("ab", "c") == domain.FingerprintOf("a", "bc") {
		t.Fatal("moving a byte between parts keeps the fingerprint")
	}
	if domain.FingerprintOf("a", "") == domain.FingerprintOf("a") {
		t.Fatal("an empty trailing part keeps the fingerprint")
	}
	a, b := domain.FingerprintOf("x", "y"), domain.FingerprintOf("x", "y")
	if a != b {
		t.Fatal("the fingerprint is not stable")
	}
}

func TestIdempotencyRecord(t *testing.T) {
	t.Parallel()
	created := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	rec := domain.IdempotencyRecord{Key: "k", Fingerprint: domain.FingerprintOf("body"), CreatedAt: created}
	if rec.Expired(created.Add(24 * time.Hour)) {
		t.Error("expired at exactly 24 h")
	}
	if !rec.Expired(created.Add(24*time.Hour + time.Microsecond)) {
		t.Error("not expired after 24 h")
	}
	if err := rec.Replay(domain.FingerprintOf("body")); err != nil {
		t.Errorf("replay of the same request: %v", err)
	}
	if err := rec.Replay(domain.FingerprintOf("other")); !errors.Is(err, &domain.Error{Code: domain.CodeIdempotencyKeyReused}) {
		t.Errorf("replay of another request: %v", err)
	}
}
