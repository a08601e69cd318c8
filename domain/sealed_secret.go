package domain

import (
	"encoding/base64"
	"errors"
	"strings"
)

// SealedSecret is a secret (an access token, an app secret) encrypted at
// rest: the id of the key that sealed it and the sealed bytes (nonce and
// ciphertext with its tag). Its String never shows the bytes.
type SealedSecret struct {
	KeyID string
	Data  []byte
}

// IsZero reports whether there is no secret.
func (s SealedSecret) IsZero() bool { return s.KeyID == "" && len(s.Data) == 0 }

// String names the key only.
func (s SealedSecret) String() string {
	if s.IsZero() {
		return "none"
	}
	return "sealed under " + s.KeyID
}

// GoString is String, so %#v shows no bytes either.
func (s SealedSecret) GoString() string { return s.String() }

// Encode is the stored form: the key id, a colon and the sealed bytes in
// unpadded base64url; "" for no secret.
func (s SealedSecret) Encode() string {
	if s.IsZero() {
		return ""
	}
	return s.KeyID + ":" + base64.RawURLEncoding.EncodeToString(s.Data)
}

// ParseSealedSecret reads the stored form Encode writes.
func ParseSealedSecret(v string) (SealedSecret, error) {
	if v == "" {
		return SealedSecret{}, nil
	}
	kid, data, ok := strings.Cut(v, ":")
	if !ok || !ValidSecretKeyID(kid) {
		return SealedSecret{}, errors.New("sealed secret: no key id")
	}
	b, err := base64.RawURLEncoding.DecodeString(data)
	if err != nil || len(b) == 0 {
		return SealedSecret{}, errors.New("sealed secret: malformed data")
	}
	return SealedSecret{KeyID: kid, Data: b}, nil
}

// ValidSecretKeyID reports whether id can name a secret key: 1 to 32
// characters of [0-9a-z_-].
func ValidSecretKeyID(id string) bool {
	if id == "" || len(id) > 32 {
		return false
	}
	return strings.Trim(id, "0123456789abcdefghijklmnopqrstuvwxyz_-") == ""
}
