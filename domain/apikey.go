package domain

import (
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"hash/crc32"
	"io"
	"time"
)

// KeyMode tells live keys, whose messages reach WhatsApp, from test keys, whose
// messages stay in the sandbox.
type KeyMode struct{ s string }

// The key modes.
var (
	ModeLive = KeyMode{"live"}
	ModeTest = KeyMode{"test"}
)

// ParseKeyMode parses "live" or "test".
func ParseKeyMode(s string) (KeyMode, error) {
	switch s {
	case "live":
		return ModeLive, nil
	case "test":
		return ModeTest, nil
	}
	return KeyMode{}, InvalidParameter("mode", `mode must be "live" or "test"`)
}

func (m KeyMode) String() string { return m.s }

// IsZero reports whether m is the zero value.
func (m KeyMode) IsZero() bool { return m.s == "" }

// Token layout (DESIGN §2): "sk_live_" or "sk_test_", a 16-character
// identifier [0-9a-z], then a 38-character secret part [0-9A-Za-z] whose last
// 6 characters are the base62 CRC32 of everything before them.
const (
	TokenLength      = 62
	tokenPrefixLen   = 8
	IdentifierLength = 16
	secretLength     = 38
	checksumLength   = 6
	identifierChars  = "0123456789abcdefghijklmnopqrstuvwxyz"
	base62Chars      = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
)

// Token is a parsed API key token. Its String method never reveals the secret;
// Plaintext does, for the one time the token is shown to its owner.
type Token struct {
	raw  string
	mode KeyMode
}

// Why a token failed to parse. These reasons go to logs only: every one of
// them is the same invalid_api_key on the wire.
var (
	ErrTokenLength   = errors.New("token has the wrong length")
	ErrTokenPrefix   = errors.New("token prefix is not sk_live_ or sk_test_")
	ErrTokenChars    = errors.New("token has characters outside its alphabet")
	ErrTokenChecksum = errors.New("token checksum does not match")
)

// ParseToken checks a token's shape and checksum without any lookup, so
// malformed and mistyped tokens never reach storage.
func ParseToken(s string) (Token, error) {
	if len(s) != TokenLength {
		return Token{}, invalidKey(ErrTokenLength)
	}
	var mode KeyMode
	switch s[:tokenPrefixLen] {
	case "sk_live_":
		mode = ModeLive
	case "sk_test_":
		mode = ModeTest
	default:
		return Token{}, invalidKey(ErrTokenPrefix)
	}
	for i := tokenPrefixLen; i < tokenPrefixLen+IdentifierLength; i++ {
		if !isIdentifierChar(s[i]) {
			return Token{}, invalidKey(ErrTokenChars)
		}
	}
	for i := tokenPrefixLen + IdentifierLength; i < TokenLength; i++ {
		if !isBase62(s[i]) {
			return Token{}, invalidKey(ErrTokenChars)
		}
	}
	body := s[:TokenLength-checksumLength]
	if checksum(body) != s[TokenLength-checksumLength:] {
		return Token{}, invalidKey(ErrTokenChecksum)
	}
	return Token{raw: s, mode: mode}, nil
}

// NewToken makes a fresh token of the given mode from random, which should be
// a cryptographically secure source.
func NewToken(mode KeyMode, random io.Reader) (Token, error) {
	if mode.IsZero() {
		return Token{}, InvalidParameter("mode", "a key needs a mode")
	}
	b := make([]byte, 0, TokenLength)
	b = append(b, "sk_"+mode.String()+"_"...)
	id, err := randomString(random, identifierChars, IdentifierLength)
	if err != nil {
		return Token{}, err
	}
	secret, err := randomString(random, base62Chars, secretLength-checksumLength)
	if err != nil {
		return Token{}, err
	}
	b = append(b, id...)
	b = append(b, secret...)
	b = append(b, checksum(string(b))...)
	return Token{raw: string(b), mode: mode}, nil
}

// Mode is the token's mode, read from its prefix.
func (t Token) Mode() KeyMode { return t.mode }

// Identifier is the public, indexed part of the token.
func (t Token) Identifier() string {
	return t.raw[tokenPrefixLen : tokenPrefixLen+IdentifierLength]
}

// Hash is the SHA-256 of the whole token: the only form stored.
func (t Token) Hash() [sha256.Size]byte { return sha256.Sum256([]byte(t.raw)) }

// Plaintext returns the whole token. Call it only to show the token to its
// owner once.
func (t Token) Plaintext() string { return t.raw }

// String shows the prefix and identifier, never the secret.
func (t Token) String() string {
	if t.raw == "" {
		return ""
	}
	return t.raw[:tokenPrefixLen+IdentifierLength] + "…"
}

// APIKey is a stored API key: everything but the token itself.
type APIKey struct {
	ID         KeyID
	Workspace  WorkspaceID
	Name       string
	Mode       KeyMode
	Identifier string
	Hash       [sha256.Size]byte
	CreatedAt  time.Time
	LastUsedAt *time.Time
	RevokedAt  *time.Time
	ExpiresAt  *time.Time
}

// Why a well-formed token was refused; for logs only.
var (
	ErrKeyUnknown     = errors.New("no key has this identifier")
	ErrKeyWrongSecret = errors.New("secret does not match")
	ErrKeyRevoked     = errors.New("key is revoked")
	ErrKeyExpired     = errors.New("key has expired")
)

// NewAPIKey builds the stored form of a freshly made token.
func NewAPIKey(id KeyID, ws WorkspaceID, name string, tok Token, now time.Time) (APIKey, error) {
	if err := CheckText("name", "the name", name); err != nil {
		return APIKey{}, err
	}
	if name == "" || len(name) > 200 {
		return APIKey{}, InvalidParameter("name", "a key needs a name of 1 to 200 characters")
	}
	return APIKey{
		ID: id, Workspace: ws, Name: name, Mode: tok.Mode(),
		Identifier: tok.Identifier(), Hash: tok.Hash(), CreatedAt: now.UTC().Truncate(time.Microsecond),
	}, nil
}

// Verify checks tok against the key in constant time and then the key's
// revocation and expiry at now. Every failure is invalid_api_key, wrapping the
// precise reason for the log.
func (k APIKey) Verify(tok Token, now time.Time) error {
	h := tok.Hash()
	if subtle.ConstantTimeCompare(h[:], k.Hash[:]) != 1 {
		return invalidKey(ErrKeyWrongSecret)
	}
	if k.RevokedAt != nil && !now.Before(*k.RevokedAt) {
		return invalidKey(ErrKeyRevoked)
	}
	if k.ExpiresAt != nil && !now.Before(*k.ExpiresAt) {
		return invalidKey(ErrKeyExpired)
	}
	return nil
}

// Revoke marks the key revoked at now; revoking twice keeps the first time.
func (k *APIKey) Revoke(now time.Time) {
	if k.RevokedAt == nil {
		t := now.UTC().Truncate(time.Microsecond)
		k.RevokedAt = &t
	}
}

// KeyAuthError is invalid_api_key with the reason kept for logs.
type KeyAuthError struct{ Reason error }

func (e *KeyAuthError) Error() string { return "invalid api key: " + e.Reason.Error() }

// Unwrap exposes both the domain error (for the wire) and the reason.
func (e *KeyAuthError) Unwrap() []error { return []error{ErrInvalidAPIKey, e.Reason} }

func invalidKey(reason error) error { return &KeyAuthError{Reason: reason} }

// UnknownKey is the error for a well-formed token whose identifier is unknown.
func UnknownKey() error { return invalidKey(ErrKeyUnknown) }

func checksum(body string) string {
	n := crc32.ChecksumIEEE([]byte(body))
	var out [checksumLength]byte
	for i := checksumLength - 1; i >= 0; i-- {
		out[i] = base62Chars[n%62]
		n /= 62
	}
	return string(out[:])
}

func randomString(r io.Reader, alphabet string, n int) (string, error) {
	out := make([]byte, 0, n)
	buf := make([]byte, n*2)
	limit := 256 - 256%len(alphabet) // reject bytes that would bias the draw
	for len(out) < n {
		if _, err := io.ReadFull(r, buf); err != nil {
			return "", err
		}
		for _, c := range buf {
			if int(c) < limit && len(out) < n {
				out = append(out, alphabet[int(c)%len(alphabet)])
			}
		}
	}
	return string(out), nil
}

func isIdentifierChar(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' }

func isBase62(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
