package whatsapp_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"testing"

	"github.com/heraldhq/herald/adapters/whatsapp"
	"github.com/heraldhq/herald/domain"
)

// sign is X-Hub-Signature-256 as Meta computes it, written independently of
// the package and of fakemeta.
func sign(secret string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

// FuzzVerifyWebhookSignature: with the app secrets secret1 and secret2 (an
// empty one is not configured), VerifySignature accepts exactly the headers
// "sha256=" + lowercase hex HMAC-SHA256(secret, body) for a configured
// secret, whatever their order, and refuses everything else with
// invalid_signature; a valid signature stops verifying when any byte of the
// body or of the header changes, or when either is cut or extended. The
// changed header byte is the fuzzed one, the first hex digit and the last.
func FuzzVerifyWebhookSignature(f *testing.F) {
	body := []byte(`{"object":"whatsapp_business_account","entry":[]}`)
	f.Add("s3cret", "", body, sign("s3cret", body), uint16(0), byte(1))
	f.Add("old", "s3cret", body, sign("s3cret", body), uint16(7), byte(0x20))
	f.Add("", "", body, sign("", body), uint16(70), byte(0xff))
	f.Add("s3cret", "", []byte{}, "sha256=", uint16(3), byte(0x80))
	f.Fuzz(func(t *testing.T, secret1, secret2 string, body []byte, header string, pos uint16, delta byte) {
		var secrets []string
		for _, s := range []string{secret1, secret2} {
			if s != "" {
				secrets = append(secrets, s)
			}
		}
		w := whatsapp.NewWebhooks(whatsapp.WebhookConfig{AppSecrets: []string{secret1, secret2}})
		reversed := whatsapp.NewWebhooks(whatsapp.WebhookConfig{AppSecrets: []string{secret2, secret1}})
		// matches is the specification: the header is the signature under
		// one of the configured secrets.
		matches := func(body []byte, header string) bool {
			for _, s := range secrets {
				if header == sign(s, body) {
					return true
				}
			}
			return false
		}
		verify := func(what string, body []byte, header string, want bool) {
			t.Helper()
			for _, v := range []*whatsapp.Webhooks{w, reversed} {
				err := v.VerifySignature(body, header)
				if want && err != nil {
					t.Fatalf("%s: refused header %q for body %q with secrets %q: %v", what, header, body, secrets, err)
				}
				if !want && !errors.Is(err, domain.ErrInvalidSignature) {
					t.Fatalf("%s: header %q for body %q with secrets %q gave %v, want invalid_signature", what, header, body, secrets, err)
				}
			}
		}

		verify("arbitrary header", body, header, matches(body, header))
		verify("empty secret's signature", body, sign("", body), matches(body, sign("", body)))
		if len(secrets) == 0 {
			return
		}
		good := sign(secrets[len(secrets)-1], body)
		verify("valid signature", body, good, true)

		if delta == 0 {
			delta = 1
		}
		if len(body) > 0 {
			changed := append([]byte(nil), body...)
			changed[int(pos)%len(body)] ^= delta
			verify("one body byte changed", changed, good, false)
			verify("body cut short", body[:len(body)-1], good, false)
		}
		verify("body extended", append(append([]byte(nil), body...), byte(pos)), good, false)

		for _, i := range []int{int(pos) % len(good), len("sha256="), len(good) - 1} {
			h := []byte(good)
			h[i] ^= delta
			verify(fmt.Sprintf("header byte %d changed", i), body, string(h), false)
		}
		verify("header cut short", body, good[:int(pos)%len(good)], false)
		verify("header extended", body, good+string(rune(delta)), false)
	})
}
