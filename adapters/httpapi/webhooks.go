package httpapi

import (
	"errors"
	"net/http"

	"github.com/heraldhq/herald/app/delivery"
)

// verifyWebhook answers Meta's verification handshake: the challenge as
// plain text when the verify token matches, 403 otherwise.
func (a *api) verifyWebhook(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	challenge, err := a.d.WebhookVerify.Handle(r.Context(), delivery.VerifyWebhookSubscription{
		Mode: q.Get("hub.mode"), Token: q.Get("hub.verify_token"), Challenge: q.Get("hub.challenge")})
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	w.Write([]byte(challenge))
}

type webhookReceiptDTO struct {
	EventID   string `json:"eventId"`
	Duplicate bool   `json:"duplicate"`
	Applied   bool   `json:"applied"`
}

// receiveWebhook takes one call of Meta's webhooks. The signature is checked
// over the raw bytes before anything reads them as JSON; once the event is
// stored the answer is 200, even if applying it failed (it is kept and
// tried again), so Meta does not send it again. A store that cannot be
// reached answers 503, and Meta retries.
func (a *api) receiveWebhook(w http.ResponseWriter, r *http.Request) {
	body, derr := readBody(w, r, a.cfg.WebhookBodyLimit)
	if derr != nil {
		writeProblem(w, r, derr.code, derr.param, derr.detail)
		return
	}
	res, err := a.d.Webhook.Handle(r.Context(), delivery.ReceiveWebhook{Body: body, Signature: r.Header.Get("X-Hub-Signature-256")})
	if err != nil {
		if errors.Is(err, delivery.ErrWebhookNotJSON) {
			writeProblem(w, r, CodeInvalidJSON, "", "the body is not JSON")
			return
		}
		writeError(w, r, a.log, err)
		return
	}
	writeJSON(w, http.StatusOK, webhookReceiptDTO{EventID: string(res.Event.ID), Duplicate: res.Duplicate, Applied: res.Applied})
}
