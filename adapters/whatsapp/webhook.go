package whatsapp

import "github.com/heraldhq/herald/ports"

// WebhookConfig says how Meta's webhook calls are authenticated.
type WebhookConfig struct {
	// AppSecrets are the Meta app secrets that may sign a call: more than
	// one while a secret is being rotated. Empty ones are ignored.
	AppSecrets []string
	// VerifyToken is the token Meta sends back in the subscription
	// handshake; none configured means every handshake fails.
	VerifyToken string
	// PhoneNumberIDs are the business numbers Herald sends from (Meta's
	// phone number ids): events for other numbers are stored, not
	// applied (numbers.go). Empty ones are ignored.
	PhoneNumberIDs []string
}

// Webhooks authenticates Meta's webhook calls (signature.go), decodes their
// payloads (decode.go, decode_marketing.go) and knows which business numbers
// are Herald's (numbers.go).
type Webhooks struct {
	secrets [][]byte
	stored  ports.AppSecretSource // nil: the configured secrets only
	token   string
	numbers map[string]bool
}

// NewWebhooks returns the webhook checks and decoder for cfg.
func NewWebhooks(cfg WebhookConfig) *Webhooks {
	w := &Webhooks{token: cfg.VerifyToken, numbers: map[string]bool{}}
	for _, id := range cfg.PhoneNumberIDs {
		if id != "" {
			w.numbers[id] = true
		}
	}
	for _, s := range cfg.AppSecrets {
		// An HMAC under an empty key is one anybody can compute.
		if s != "" {
			w.secrets = append(w.secrets, []byte(s))
		}
	}
	return w
}

// WithStoredSecrets returns w checking signatures with the stored apps'
// secrets too.
func (w *Webhooks) WithStoredSecrets(src ports.AppSecretSource) *Webhooks {
	w.stored = src
	return w
}

var (
	_ ports.WebhookVerifier = (*Webhooks)(nil)
	_ ports.WebhookDecoder  = (*Webhooks)(nil)
	_ ports.BusinessNumbers = (*Webhooks)(nil)
)
