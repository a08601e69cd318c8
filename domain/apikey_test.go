package domain_test

import (
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"hash/crc32"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/heraldhq/herald/domain"
)

const (
	identifierAlphabet = "0123456789abcdefghijklmnopqrstuvwxyz"
	base62Alphabet     = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
)

func newToken(t *testing.T, mode domain.KeyMode) domain.Token {
	t.Helper()
	tok, err := domain.NewToken(mode, rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func mustParseToken(t *testing.T, s string) domain.Token {
	t.Helper()
	tok, err := domain.ParseToken(s)
	if err != nil {
		t.Fatalf("ParseToken(%q): %v", s, err)
	}
	return tok
}

// checksumOf is the token checksum computed independently of the domain
// package: CRC-32 (IEEE) of the body, as 6 base62 digits, most significant
// first.
func checksumOf(body string) string {
	n := crc32.ChecksumIEEE([]byte(body))
	sum := make([]byte, 6)
	for i := 5; i >= 0; i-- {
		sum[i] = base62Alphabet[n%62]
		n /= 62
	}
	return string(sum)
}

func TestNewTokenShape(t *testing.T) {
	t.Parallel()
	for _, mode := range []domain.KeyMode{domain.ModeLive, domain.ModeTest} {
		t.Run(mode.String(), func(t *testing.T) {
			t.Parallel()
			tok := newToken(t, mode)
			s := tok.Plaintext()
			if len(s) != 62 || domain.TokenLength != 62 {
				t.Fatalf("token %q has %d characters, want 62", s, len(s))
			}
			if prefix := "sk_" + mode.String() + "_"; !strings.HasPrefix(s, prefix) {
				t.Fatalf("token %q does not start with %s", s, prefix)
			}
			if tok.Mode() != mode {
				t.Fatalf("Mode() = %v, want %v", tok.Mode(), mode)
			}
			id := tok.Identifier()
			if len(id) != 16 || strings.Trim(id, identifierAlphabet) != "" || id != s[8:24] {
				t.Fatalf("identifier %q is not the 16 [0-9a-z] characters after the prefix of %q", id, s)
			}
			if strings.Trim(s[24:], base62Alphabet) != "" {
				t.Fatalf("secret part %q is not base62", s[24:])
			}
			if got, want := s[56:], checksumOf(s[:56]); got != want {
				t.Fatalf("checksum %q, want %q", got, want)
			}
			parsed := mustParseToken(t, s)
			if parsed.Mode() != mode || parsed.Identifier() != id || parsed.Plaintext() != s || parsed.Hash() != tok.Hash() {
				t.Fatalf("parsed %v/%s, want %v/%s", parsed.Mode(), parsed.Identifier(), mode, id)
			}
			if tok.Hash() != sha256.Sum256([]byte(s)) {
				t.Fatal("Hash() is not the SHA-256 of the whole token")
			}
		})
	}
}

func TestNewTokensDiffer(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for range 200 {
		tok := newToken(t, domain.ModeLive)
		if seen[tok.Identifier()] {
			t.Fatalf("identifier %s made twice", tok.Identifier())
		}
		seen[tok.Identifier()] = true
	}
}

func TestNewTokenRefuses(t *testing.T) {
	t.Parallel()
	if _, err := domain.NewToken(domain.KeyMode{}, rand.Reader); !errors.Is(err, domain.ErrInvalidParameter) {
		t.Errorf("a token without a mode: %v, want invalid_parameter", err)
	}
	broken := iotest.ErrReader(errors.New("entropy exhausted"))
	if _, err := domain.NewToken(domain.ModeTest, broken); err == nil || err.Error() != "entropy exhausted" {
		t.Errorf("a failing random source: %v, want its error", err)
	}
}

func TestTokenStringHidesTheSecret(t *testing.T) {
	t.Parallel()
	for range 20 {
		tok := newToken(t, domain.ModeTest)
		s := tok.Plaintext()
		str := tok.String()
		if str != s[:24]+"…" {
			t.Fatalf("String() = %q, want the prefix and identifier %q and an ellipsis", str, s[:24])
		}
		// No 6-character run of the secret part may appear.
		for i := 24; i+6 <= len(s); i++ {
			if strings.Contains(str, s[i:i+6]) {
				t.Fatalf("String() = %q reveals %q of the secret", str, s[i:i+6])
			}
		}
	}
	if got := (domain.Token{}).String(); got != "" {
		t.Errorf("zero token String() = %q, want empty", got)
	}
}

// TestGoldenToken pins the checksum format with a token built by hand: the
// CRC-32 (IEEE) of the first 56 characters in base62, most significant digit
// first, zero-padded to 6 digits. The literal guards against the test helper
// and the code drifting together.
func TestGoldenToken(t *testing.T) {
	t.Parallel()
	cases := []struct {
		body, checksum string
		mode           domain.KeyMode
		identifier     string
	}{
		{"sk_test_0123456789abcdef" + "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef", "4Dp5fo", domain.ModeTest, "0123456789abcdef"},
		{"sk_live_zzzzzzzzzzzzzzzz" + "00000000000000000000000000000000", "2TBg8j", domain.ModeLive, "zzzzzzzzzzzzzzzz"},
	}
	for _, c := range cases {
		if got := checksumOf(c.body); got != c.checksum {
			t.Fatalf("independent checksum of %q = %q, want %q", c.body, got, c.checksum)
		}
		tok := mustParseToken(t, c.body+c.checksum)
		if tok.Mode() != c.mode || tok.Identifier() != c.identifier {
			t.Errorf("golden token parsed as %v/%s, want %v/%s", tok.Mode(), tok.Identifier(), c.mode, c.identifier)
		}
		// Any other checksum is refused, including the same digits in
		// another case and a shifted encoding.
		for _, wrong := range []string{strings.ToLower(c.checksum), strings.ToUpper(c.checksum), c.checksum[1:] + "0", "0" + c.checksum[:5]} {
			if wrong == c.checksum {
				continue
			}
			if _, err := domain.ParseToken(c.body + wrong); !errors.Is(err, domain.ErrTokenChecksum) {
				t.Errorf("checksum %q for %q: %v, want a checksum error", wrong, c.body, err)
			}
		}
	}
}

func TestParseTokenRefuses(t *testing.T) {
	t.Parallel()
	good := newToken(t, domain.ModeLive).Plaintext()
	withChecksum := func(body string) string { return body + checksumOf(body) }
	cases := []struct {
		name   string
		token  string
		reason error
	}{
		{"empty", "", domain.ErrTokenLength},
		{"one short", good[:61], domain.ErrTokenLength},
		{"one long", good + "a", domain.ErrTokenLength},
		{"prefix only", "sk_live_", domain.ErrTokenLength},
		{"surrounding space", " " + good[:61], domain.ErrTokenPrefix},
		{"another environment", "sk_prod_" + good[8:], domain.ErrTokenPrefix},
		{"upper-case prefix", "SK_LIVE_" + good[8:], domain.ErrTokenPrefix},
		{"publishable-style prefix", "pk_live_" + good[8:], domain.ErrTokenPrefix},
		{"upper case in identifier", withChecksum(good[:8] + "A" + good[9:56]), domain.ErrTokenChars},
		{"underscore in identifier", withChecksum(good[:12] + "_" + good[13:56]), domain.ErrTokenChars},
		{"dash in secret", withChecksum(good[:30] + "-" + good[31:56]), domain.ErrTokenChars},
		{"dash in checksum", good[:61] + "-", domain.ErrTokenChars},
		{"multi-byte character", good[:59] + "é" + good[61:], domain.ErrTokenChars}, // é is 2 bytes: 62 bytes in all
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, err := domain.ParseToken(c.token)
			if !errors.Is(err, domain.ErrInvalidAPIKey) || !errors.Is(err, c.reason) {
				t.Fatalf("ParseToken(%q): %v, want invalid_api_key because %v", c.token, err, c.reason)
			}
			var de *domain.Error
			if !errors.As(err, &de) || de.Code != domain.CodeInvalidAPIKey {
				t.Fatalf("the error does not carry the invalid_api_key code for the wire: %#v", err)
			}
			if strings.Contains(err.Error(), good[24:]) {
				t.Fatalf("the error %q reveals the secret", err)
			}
		})
	}
}

// TestChecksumCatchesEverySingleChange changes each character of the
// identifier and secret part, in turn, to every other character of its
// alphabet: the CRC-32 detects every such change.
func TestChecksumCatchesEverySingleChange(t *testing.T) {
	t.Parallel()
	for _, mode := range []domain.KeyMode{domain.ModeLive, domain.ModeTest} {
		good := newToken(t, mode).Plaintext()
		for i := 8; i < 62; i++ {
			alphabet := base62Alphabet
			if i < 24 {
				alphabet = identifierAlphabet
			}
			for _, c := range []byte(alphabet) {
				if c == good[i] {
					continue
				}
				bad := good[:i] + string(c) + good[i+1:]
				_, err := domain.ParseToken(bad)
				if !errors.Is(err, domain.ErrTokenChecksum) || !errors.Is(err, domain.ErrInvalidAPIKey) {
					t.Fatalf("changing position %d of %q to %q: %v, want invalid_api_key (checksum)", i, good, c, err)
				}
			}
		}
	}
}

func TestParseKeyMode(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]domain.KeyMode{"live": domain.ModeLive, "test": domain.ModeTest} {
		if got, err := domain.ParseKeyMode(s); err != nil || got != want {
			t.Errorf("ParseKeyMode(%q) = %v, %v", s, got, err)
		}
	}
	for _, s := range []string{"", "LIVE", "prod", "sandbox"} {
		if _, err := domain.ParseKeyMode(s); !errors.Is(err, domain.ErrInvalidParameter) {
			t.Errorf("ParseKeyMode(%q): %v, want invalid_parameter", s, err)
		}
	}
}

func TestNewAPIKey(t *testing.T) {
	t.Parallel()
	tok := newToken(t, domain.ModeTest)
	now := time.Date(2026, 11, 22, 10, 0, 0, 123456789, time.FixedZone("CET", 3600))
	k, err := domain.NewAPIKey("key_x", "wsp_x", "ci", tok, now)
	if err != nil {
		t.Fatal(err)
	}
	want := domain.APIKey{ID: "key_x", Workspace: "wsp_x", Name: "ci", Mode: domain.ModeTest,
		Identifier: tok.Identifier(), Hash: sha256.Sum256([]byte(tok.Plaintext())),
		CreatedAt: time.Date(2026, 11, 22, 9, 0, 0, 123456000, time.UTC)}
	if diff := cmp.Diff(want, k, cmp.AllowUnexported(domain.KeyMode{})); diff != "" {
		t.Fatalf("stored key (-want +got):\n%s", diff)
	}
	for _, name := range []string{"", strings.Repeat("n", 201)} {
		if _, err := domain.NewAPIKey("key_x", "wsp_x", name, tok, now); !errors.Is(err, domain.ErrInvalidParameter) {
			t.Errorf("name of %d bytes: %v, want invalid_parameter", len(name), err)
		}
	}
}

func TestAPIKeyVerify(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	before, after := now.Add(-time.Second), now.Add(time.Second)
	tok := newToken(t, domain.ModeLive)
	key, err := domain.NewAPIKey("key_x", "wsp_x", "ci", tok, now.Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	// Another token with the same identifier and a valid checksum.
	other := newToken(t, domain.ModeLive).Plaintext()
	forgedBody := tok.Plaintext()[:24] + other[24:56]
	forged := mustParseToken(t, forgedBody+checksumOf(forgedBody))
	// The same identifier and secret with the other mode's prefix.
	testBody := "sk_test_" + tok.Plaintext()[8:56]
	otherMode := mustParseToken(t, testBody+checksumOf(testBody))

	cases := []struct {
		name    string
		tok     domain.Token
		revoked *time.Time
		expires *time.Time
		reason  error // nil: accepted
	}{
		{"right token", tok, nil, nil, nil},
		{"same identifier, other secret", forged, nil, nil, domain.ErrKeyWrongSecret},
		{"same identifier and secret, other mode", otherMode, nil, nil, domain.ErrKeyWrongSecret},
		{"revoked before now", tok, &before, nil, domain.ErrKeyRevoked},
		{"revoked at now", tok, &now, nil, domain.ErrKeyRevoked},
		{"revocation in the future", tok, &after, nil, nil},
		{"expired before now", tok, nil, &before, domain.ErrKeyExpired},
		{"expires at now", tok, nil, &now, domain.ErrKeyExpired},
		{"expires later", tok, nil, &after, nil},
		{"wrong secret wins over revoked", forged, &before, nil, domain.ErrKeyWrongSecret},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			k := key
			k.RevokedAt, k.ExpiresAt = c.revoked, c.expires
			err := k.Verify(c.tok, now)
			if c.reason == nil {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if !errors.Is(err, domain.ErrInvalidAPIKey) || !errors.Is(err, c.reason) {
				t.Fatalf("err %v, want invalid_api_key because %v", err, c.reason)
			}
		})
	}
}

func TestAPIKeyRevokeKeepsTheFirstTime(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 10, 0, 0, 999, time.UTC)
	k, err := domain.NewAPIKey("key_x", "wsp_x", "ci", newToken(t, domain.ModeTest), now)
	if err != nil {
		t.Fatal(err)
	}
	k.Revoke(now)
	first := now.Truncate(time.Microsecond)
	if k.RevokedAt == nil || !k.RevokedAt.Equal(first) {
		t.Fatalf("revoked at %v, want %v", k.RevokedAt, first)
	}
	k.Revoke(now.Add(time.Hour))
	if !k.RevokedAt.Equal(first) {
		t.Fatalf("revoking again moved the time to %v", k.RevokedAt)
	}
}

func TestUnknownKey(t *testing.T) {
	t.Parallel()
	err := domain.UnknownKey()
	if !errors.Is(err, domain.ErrInvalidAPIKey) || !errors.Is(err, domain.ErrKeyUnknown) {
		t.Fatalf("UnknownKey() = %v, want invalid_api_key because the key is unknown", err)
	}
}
