package delivery

import (
	"context"

	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/ports"
)

// VerifyWebhookSubscription is Meta's verification handshake.
type VerifyWebhookSubscription struct {
	Mode, Token, Challenge string
}

// VerifyWebhookSubscriptionHandler answers the handshake.
type VerifyWebhookSubscriptionHandler struct {
	verifier ports.WebhookVerifier
	obs      *usecase.Observer
}

// NewVerifyWebhookSubscriptionHandler builds the handler.
func NewVerifyWebhookSubscriptionHandler(verifier ports.WebhookVerifier, obs *usecase.Observer) *VerifyWebhookSubscriptionHandler {
	return &VerifyWebhookSubscriptionHandler{verifier: verifier, obs: obs}
}

// Handle returns the challenge to echo, or domain.ErrVerificationFailed.
func (h *VerifyWebhookSubscriptionHandler) Handle(ctx context.Context, q VerifyWebhookSubscription) (string, error) {
	return usecase.Observe(ctx, h.obs, "verify_webhook_subscription", func(ctx context.Context) (string, error) {
		if err := h.verifier.VerifySubscription(q.Mode, q.Token); err != nil {
			return "", err
		}
		return q.Challenge, nil
	})
}
