package domain_test

import (
	"bytes"
	"crypto/rand"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/domain"
)

func TestParseEmailNormalisesAndRefusesNonAddresses(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"ops@example.com":        "ops@example.com",
		"  Ops@Example.COM \n":   "ops@example.com",
		"first.last@sub.example": "first.last@sub.example",
	} {
		got, err := domain.ParseEmail(in)
		if err != nil || got != want {
			t.Errorf("ParseEmail(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "ops", "ops@", "Ops <ops@example.com>", "a@b.c, d@e.f", strings.Repeat("a", 250) + "@example.com"} {
		if _, err := domain.ParseEmail(in); !errors.Is(err, domain.ErrInvalidParameter) {
			t.Errorf("ParseEmail(%q) = %v; want invalid_parameter", in, err)
		}
	}
}

func TestCheckPasswordBoundsLength(t *testing.T) {
	t.Parallel()
	for pw, ok := range map[string]bool{
		"short":                  false,
		"elevenchars":            false,
		"twelve chars":           true,
		"ünïcödé-pässwörd":       true,
		strings.Repeat("x", 256): true,
		strings.Repeat("x", 257): false,
		"invalid \xff utf-8 pw":  false,
	} {
		if err := domain.CheckPassword(pw); (err == nil) != ok {
			t.Errorf("CheckPassword(%q) = %v; want ok=%v", pw, err, ok)
		}
	}
}

func TestSessionTokensAreOpaqueAndParse(t *testing.T) {
	t.Parallel()
	tok, err := domain.NewSessionToken(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	other, _ := domain.NewSessionToken(rand.Reader)
	if tok.Plaintext() == other.Plaintext() || tok.Hash() == other.Hash() || tok.CSRFToken() == other.CSRFToken() {
		t.Fatal("two fresh session tokens share a value")
	}
	parsed, err := domain.ParseSessionToken(tok.Plaintext())
	if err != nil || parsed.Hash() != tok.Hash() {
		t.Fatalf("ParseSessionToken(plaintext) = %v, %v", parsed, err)
	}
	for _, s := range []string{tok.Hash(), tok.CSRFToken(), tok.String()} {
		if strings.Contains(s, tok.Plaintext()) {
			t.Errorf("%q reveals the token", s)
		}
	}
	for _, bad := range []string{"", "abc", tok.Plaintext() + "A", strings.Repeat("!", 43)} {
		if _, err := domain.ParseSessionToken(bad); !errors.Is(err, domain.ErrSessionNotFound) {
			t.Errorf("ParseSessionToken(%q) = %v; want session_not_found", bad, err)
		}
	}
	if _, err := domain.NewSessionToken(bytes.NewReader(nil)); err == nil {
		t.Error("a token was made without randomness")
	}
}

func TestSessionsEndAfterTheirLifetime(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 23, 10, 0, 0, 123456789, time.UTC)
	o, err := domain.NewOperator("opr_1", "wsp_1", " Ops@Example.com", "$argon2id$…", now)
	if err != nil {
		t.Fatal(err)
	}
	if o.Email != "ops@example.com" {
		t.Errorf("operator email = %q; want it normalised", o.Email)
	}
	tok, _ := domain.NewSessionToken(rand.Reader)
	s := domain.NewSession(tok, o, now)
	if s.TokenHash != tok.Hash() || s.Operator != o.ID || s.Workspace != o.Workspace || s.Email != o.Email {
		t.Errorf("session %+v does not describe operator %+v", s, o)
	}
	if s.Expired(now.Add(domain.SessionLifetime - time.Second)) {
		t.Error("a session ended before its lifetime")
	}
	if !s.Expired(now.Add(domain.SessionLifetime)) {
		t.Error("a session outlived its lifetime")
	}
	if _, err := domain.NewOperator("opr_1", "wsp_1", "ops@example.com", "", now); !errors.Is(err, domain.ErrInvalidParameter) {
		t.Errorf("an operator without a password hash was made: %v", err)
	}
}
