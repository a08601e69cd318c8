package domain

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Deliveries are signed as the Standard Webhooks specification says: the
// signed content is "{webhook-id}.{webhook-timestamp}.{body}", the
// signature "v1," and the base64 of its HMAC-SHA256 keyed with the
// secret's bytes, and several signatures, space-separated, let a receiver
// switch secrets without losing a delivery.

// WebhookSecretPrefix starts every webhook secret as shown to its owner.
const WebhookSecretPrefix = "whsec_"

// WebhookSecretSize is the length in bytes of the secrets Herald makes.
// Secrets read back from their text may be 24 to 64 bytes, the range the
// specification allows.
const WebhookSecretSize = 32

const (
	minSecretKey = 24
	maxSecretKey = 64
)

// NewWebhookSecretKey reads a fresh secret key of WebhookSecretSize bytes
// from r (crypto/rand.Reader).
func NewWebhookSecretKey(r io.Reader) ([]byte, error) {
	key := make([]byte, WebhookSecretSize)
	if _, err := io.ReadFull(r, key); err != nil {
		return nil, err
	}
	return key, nil
}

// FormatWebhookSecret is key as its owner configures it in a receiver:
// "whsec_" and the standard, padded base64 of the key.
func FormatWebhookSecret(key []byte) string {
	return WebhookSecretPrefix + base64.StdEncoding.EncodeToString(key)
}

// ParseWebhookSecret reads a secret written as FormatWebhookSecret writes
// it, and returns its key.
func ParseWebhookSecret(s string) ([]byte, error) {
	b64, ok := strings.CutPrefix(s, WebhookSecretPrefix)
	key, err := base64.StdEncoding.Strict().DecodeString(b64)
	if !ok || err != nil {
		return nil, InvalidParameter("secret", "a webhook secret is whsec_ followed by the base64 of its key")
	}
	if err := checkSecretKey(key); err != nil {
		return nil, err
	}
	return key, nil
}

func checkSecretKey(key []byte) error {
	if len(key) < minSecretKey || len(key) > maxSecretKey {
		return InvalidParameter("secret", "a webhook secret's key is 24 to 64 bytes")
	}
	return nil
}

// SignWebhook is the webhook-signature header of a delivery of body, the
// event id's, sent at ts (its webhook-timestamp, in Unix seconds): one
// "v1,<base64 HMAC-SHA256>" per secret active at ts, newest first,
// space-separated. It is empty when no secret is active.
func SignWebhook(secrets []EndpointSecret, id EventID, ts time.Time, body []byte) string {
	active := make([]EndpointSecret, 0, len(secrets))
	for _, s := range secrets {
		if s.ActiveAt(ts) {
			active = append(active, s)
		}
	}
	slices.SortStableFunc(active, func(a, b EndpointSecret) int { return b.CreatedAt.Compare(a.CreatedAt) })
	unix := strconv.FormatInt(ts.Unix(), 10)
	sigs := make([]string, 0, len(active))
	for _, s := range active {
		mac := hmac.New(sha256.New, s.Key)
		mac.Write([]byte(id))
		mac.Write([]byte{'.'})
		mac.Write([]byte(unix))
		mac.Write([]byte{'.'})
		mac.Write(body)
		sigs = append(sigs, "v1,"+base64.StdEncoding.EncodeToString(mac.Sum(nil)))
	}
	return strings.Join(sigs, " ")
}
