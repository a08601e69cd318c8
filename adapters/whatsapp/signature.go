package whatsapp

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"slices"
	"strings"

	"github.com/heraldhq/herald/domain"
)

// The checks of Meta's calls, before anything else is read: the
// subscription handshake and the signature over the raw body.

// VerifySubscription accepts Meta's handshake when mode is "subscribe" and
// token is the configured verify token. Both tokens are hashed before the
// constant-time comparison, so neither their contents nor their lengths
// show in the timing.
func (w *Webhooks) VerifySubscription(mode, token string) error {
	if w.token == "" || mode != "subscribe" {
		return domain.ErrVerificationFailed
	}
	got, want := sha256.Sum256([]byte(token)), sha256.Sum256([]byte(w.token))
	if subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
		return domain.ErrVerificationFailed
	}
	return nil
}

// VerifySignature checks X-Hub-Signature-256: exactly "sha256=" and 64
// lowercase hex digits, the HMAC-SHA256 of the raw body under one of the
// app secrets, configured or stored with a Meta app (several apps may send
// to one Herald, each signing with its own). Every secret is tried, so the time taken does not say which
// one matched.
func (w *Webhooks) VerifySignature(body []byte, header string) error {
	digits, ok := strings.CutPrefix(header, "sha256=")
	if !ok || len(digits) != 2*sha256.Size || strings.Trim(digits, "0123456789abcdef") != "" {
		return domain.ErrInvalidSignature
	}
	want, err := hex.DecodeString(digits)
	if err != nil {
		return domain.ErrInvalidSignature
	}
	matched := false
	secrets := w.secrets
	if w.stored != nil {
		secrets = append(slices.Clip(secrets), w.stored.AppSecrets()...)
	}
	for _, secret := range secrets {
		mac := hmac.New(sha256.New, secret)
		mac.Write(body)
		if hmac.Equal(mac.Sum(nil), want) {
			matched = true
		}
	}
	if !matched {
		return domain.ErrInvalidSignature
	}
	return nil
}
