package whatsapp_test

import (
	"crypto/hmac"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/heraldhq/herald/adapters/whatsapp"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/test/fakemeta"
)

func TestVerifySignature(t *testing.T) {
	t.Parallel()
	body := fakemeta.StatusPayload(waba, phoneID, fakemeta.StatusUpdate{WAMID: "wamid.A", Status: "sent", RecipientID: user, At: at})
	flipped := append([]byte(nil), body...)
	flipped[10] ^= 1
	// Meta signs the bytes it sends, in which non-ASCII is escaped: the
	// same JSON value written with raw UTF-8 has another signature.
	raw := []byte(`{"object":"whatsapp_business_account","entry":[],"note":"é😀"}`)
	escaped := fakemeta.EscapeNonASCII(raw)
	sha1mac := hmac.New(sha1.New, []byte("s3cret"))
	sha1mac.Write(body)
	valid := fakemeta.Sign("s3cret", body)

	for _, c := range []struct {
		name    string
		secrets []string
		body    []byte
		header  string
		ok      bool
	}{
		{"valid", []string{"s3cret"}, body, valid, true},
		{"one byte of the body flipped", []string{"s3cret"}, flipped, valid, false},
		{"header missing", []string{"s3cret"}, body, "", false},
		{"sha1 only", []string{"s3cret"}, body, "sha1=" + hex.EncodeToString(sha1mac.Sum(nil)), false},
		{"uppercase hex", []string{"s3cret"}, body, "sha256=" + strings.ToUpper(strings.TrimPrefix(valid, "sha256=")), false},
		{"no prefix", []string{"s3cret"}, body, strings.TrimPrefix(valid, "sha256="), false},
		{"one digit short", []string{"s3cret"}, body, valid[:len(valid)-1], false},
		{"one digit long", []string{"s3cret"}, body, valid + "0", false},
		{"not hex", []string{"s3cret"}, body, valid[:len(valid)-1] + "g", false},
		{"wrong secret", []string{"other"}, body, valid, false},
		{"second of two secrets", []string{"old", "s3cret"}, body, valid, true},
		{"raw UTF-8 body", []string{"s3cret"}, raw, fakemeta.Sign("s3cret", raw), true},
		{"Meta's escaped body", []string{"s3cret"}, escaped, fakemeta.Sign("s3cret", escaped), true},
		{"escaped body, signature of the raw one", []string{"s3cret"}, escaped, fakemeta.Sign("s3cret", raw), false},
		{"no secrets configured", nil, body, valid, false},
		{"only an empty secret", []string{""}, body, fakemeta.Sign("", body), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			err := whatsapp.NewWebhooks(whatsapp.WebhookConfig{AppSecrets: c.secrets}).VerifySignature(c.body, c.header)
			if c.ok && err != nil {
				t.Errorf("err = %v, want nil", err)
			}
			if !c.ok && !errors.Is(err, domain.ErrInvalidSignature) {
				t.Errorf("err = %v, want invalid_signature", err)
			}
		})
	}
}

func TestVerifySubscription(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, configured, mode, token string
		ok                            bool
	}{
		{"token matches", "tok-123", "subscribe", "tok-123", true},
		{"wrong token", "tok-123", "subscribe", "tok-124", false},
		{"token prefix", "tok-123", "subscribe", "tok-12", false},
		{"empty token", "tok-123", "subscribe", "", false},
		{"other mode", "tok-123", "unsubscribe", "tok-123", false},
		{"no mode", "tok-123", "", "tok-123", false},
		{"none configured", "", "subscribe", "", false},
		{"none configured, any token", "", "subscribe", "tok-123", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			err := whatsapp.NewWebhooks(whatsapp.WebhookConfig{VerifyToken: c.configured}).VerifySubscription(c.mode, c.token)
			if c.ok && err != nil {
				t.Errorf("err = %v, want nil", err)
			}
			if !c.ok && !errors.Is(err, domain.ErrVerificationFailed) {
				t.Errorf("err = %v, want verification_failed", err)
			}
		})
	}
}

// storedSecrets is the stored Meta apps' secrets as the registry gives
// them.
type storedSecrets [][]byte

func (s storedSecrets) AppSecrets() [][]byte { return s }

// Several apps send to one Herald, each signing with its own secret: a
// call signed by any configured or stored app's secret is Meta's, and a
// secret no app has is refused.
func TestVerifySignatureOfEachApp(t *testing.T) {
	t.Parallel()
	body := fakemeta.StatusPayload(waba, phoneID, fakemeta.StatusUpdate{WAMID: "wamid.B", Status: "sent", RecipientID: user, At: at})
	w := whatsapp.NewWebhooks(whatsapp.WebhookConfig{AppSecrets: []string{"env-secret"}}).
		WithStoredSecrets(storedSecrets{[]byte("app-one-secret"), []byte("app-two-secret")})
	for _, secret := range []string{"env-secret", "app-one-secret", "app-two-secret"} {
		if err := w.VerifySignature(body, fakemeta.Sign(secret, body)); err != nil {
			t.Errorf("signed by %s: %v", secret, err)
		}
	}
	if err := w.VerifySignature(body, fakemeta.Sign("another-app", body)); !errors.Is(err, domain.ErrInvalidSignature) {
		t.Errorf("signed by an unknown app: %v", err)
	}
	// With no configured secret, the stored ones alone are enough.
	only := whatsapp.NewWebhooks(whatsapp.WebhookConfig{}).WithStoredSecrets(storedSecrets{[]byte("app-one-secret")})
	if err := only.VerifySignature(body, fakemeta.Sign("app-one-secret", body)); err != nil {
		t.Errorf("stored secret alone: %v", err)
	}
}
