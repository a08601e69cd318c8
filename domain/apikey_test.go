package domain_test

import (
	"bytes"
	"crypto/rand"
	"errors"
	"hash/crc32"
	"strings"
	"testing"
	"time"

	"github.com/heraldhq/herald/domain"
)

func newToken(t *testing.T, mode domain.KeyMode) domain.Token {
	t.Helper()
	tok, err := domain.NewToken(mode, rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestNewTokenShape(t *testing.T) {
	t.Parallel()
	for _, mode := range []domain.KeyMode{domain.ModeLive, domain.ModeTest} {
		tok := newToken(t, mode)
		s := tok.Plaintext()
		if len(s) != 62 || !strings.HasPrefix(s, "sk_"+mode.String()+"_") {
			t.Fatalf("token %q: want 62 characters starting sk_%s_", s, mode)
		}
		parsed, err := domain.ParseToken(s)
		if err != nil || parsed.Mode() != mode || parsed.Identifier() != tok.Identifier() {
			t.Fatalf("a fresh token does not parse back: %v", err)
		}
		if len(tok.Identifier()) != 16 || strings.Trim(tok.Identifier(), "0123456789abcdefghijklmnopqrstuvwxyz") != "" {
			t.Fatalf("identifier %q is not 16 of [0-9a-z]", tok.Identifier())
		}
		if strings.Contains(tok.String(), s[24:]) || !strings.HasPrefix(s, strings.TrimSuffix(tok.String(), "…")) {
			t.Fatalf("String() = %q must show prefix and identifier only", tok.String())
		}
	}
}

func TestTokenChecksumFormat(t *testing.T) {
	t.Parallel()
	body := "sk_test_0123456789abcdef" + "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef"
	n := crc32.ChecksumIEEE([]byte(body))
	const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	sum := make([]byte, 6)
	for i := 5; i >= 0; i-- {
		sum[i] = alphabet[n%62]
		n /= 62
	}
	tok, err := domain.ParseToken(body + string(sum))
	if err != nil {
		t.Fatalf("a token with a hand-computed base62 CRC32 is refused: %v", err)
	}
	if tok.Identifier() != "0123456789abcdef" || tok.Mode() != domain.ModeTest {
		t.Fatalf("parsed %v %v", tok.Identifier(), tok.Mode())
	}
}

func TestParseTokenRefuses(t *testing.T) {
	t.Parallel()
	good := newToken(t, domain.ModeLive).Plaintext()
	cases := map[string]struct {
		token  string
		reason error
	}{
		"empty":               {"", domain.ErrTokenLength},
		"short":               {good[:61], domain.ErrTokenLength},
		"long":                {good + "a", domain.ErrTokenLength},
		"other prefix":        {"sk_prod_" + good[8:], domain.ErrTokenPrefix},
		"upper-case prefix":   {"SK_LIVE_" + good[8:], domain.ErrTokenPrefix},
		"upper in identifier": {good[:8] + "A" + good[9:], domain.ErrTokenChars},
		"dash in secret":      {good[:30] + "-" + good[31:], domain.ErrTokenChars},
	}
	for name, c := range cases {
		_, err := domain.ParseToken(c.token)
		if !errors.Is(err, domain.ErrInvalidAPIKey) || !errors.Is(err, c.reason) {
			t.Errorf("%s: err %v, want invalid_api_key because %v", name, err, c.reason)
		}
	}
}

// TestChecksumCatchesEverySingleChange mutates each character after the
// prefix to every other character of its alphabet: CRC32 detects them all.
func TestChecksumCatchesEverySingleChange(t *testing.T) {
	t.Parallel()
	good := newToken(t, domain.ModeTest).Plaintext()
	const idChars = "0123456789abcdefghijklmnopqrstuvwxyz"
	const b62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	for i := 8; i < 56; i++ {
		alphabet := b62
		if i < 24 {
			alphabet = idChars
		}
		for _, c := range []byte(alphabet) {
			if c == good[i] {
				continue
			}
			bad := good[:i] + string(c) + good[i+1:]
			if _, err := domain.ParseToken(bad); !errors.Is(err, domain.ErrTokenChecksum) {
				t.Fatalf("changing position %d to %q: err %v, want a checksum error", i, c, err)
			}
		}
	}
}

func TestAPIKeyVerify(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	tok := newToken(t, domain.ModeLive)
	key, err := domain.NewAPIKey("key_x", "wsp_x", "ci", tok, now)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains([]byte(key.Identifier+key.Name), []byte(tok.Plaintext()[24:])) {
		t.Fatal("the stored key holds the secret")
	}
	if err := key.Verify(tok, now); err != nil {
		t.Fatalf("the right token is refused: %v", err)
	}
	// Another token with the same identifier: forge one with a valid checksum.
	other := newToken(t, domain.ModeLive)
	forged := tok.Plaintext()[:24] + other.Plaintext()[24:56]
	forgedTok := mustParse(t, forged+checksumOf(forged))
	if err := key.Verify(forgedTok, now); !errors.Is(err, domain.ErrKeyWrongSecret) || !errors.Is(err, domain.ErrInvalidAPIKey) {
		t.Errorf("wrong secret: %v", err)
	}

	later := now.Add(time.Hour)
	revoked := key
	revoked.Revoke(now)
	if err := revoked.Verify(tok, now); !errors.Is(err, domain.ErrKeyRevoked) {
		t.Errorf("revoked at now: %v", err)
	}
	first := *revoked.RevokedAt
	revoked.Revoke(later)
	if !revoked.RevokedAt.Equal(first) {
		t.Errorf("revoking twice moved the revocation time")
	}
	future := key
	future.RevokedAt = &later
	if err := future.Verify(tok, now); err != nil {
		t.Errorf("a revocation in the future must not refuse the key yet: %v", err)
	}
	expired := key
	expired.ExpiresAt = &now
	if err := expired.Verify(tok, now); !errors.Is(err, domain.ErrKeyExpired) {
		t.Errorf("expired: %v", err)
	}
}

func mustParse(t *testing.T, s string) domain.Token {
	t.Helper()
	tok, err := domain.ParseToken(s)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func checksumOf(body string) string {
	n := crc32.ChecksumIEEE([]byte(body))
	const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	sum := make([]byte, 6)
	for i := 5; i >= 0; i-- {
		sum[i] = alphabet[n%62]
		n /= 62
	}
	return string(sum)
}
