package delivery

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"time"

	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// ReceiveWebhook is one call of Meta's webhooks: the raw body and its
// X-Hub-Signature-256 header.
type ReceiveWebhook struct {
	Body      []byte
	Signature string
}

// ReceiveWebhookResult is the stored event and what applying it did.
type ReceiveWebhookResult struct {
	Event domain.WebhookEvent
	// Duplicate is set when the same body was received before: it is
	// stored once, and applied again only if it had not been applied.
	Duplicate bool
	// Applied is set when the event is applied (now or before). When it
	// is not, ApplyError says why; the event is kept and tried again.
	Applied    bool
	ApplyError error
	Report     WebhookReport
}

// ReceiveWebhookHandler takes Meta's webhook calls: it checks the signature
// over the raw bytes before anything else, stores the event durably, and
// then applies it. Once the event is stored the call has succeeded: a
// failure while applying loses nothing, since the event is tried again by
// the retry loop or `herald webhooks replay`. Storing and applying commit
// together when every item applies (one transaction per call, not two,
// shared with the calls that arrive meanwhile: webhook_groups.go);
// otherwise the event is stored alone first, then applied.
type ReceiveWebhookHandler struct {
	verifier ports.WebhookVerifier
	events   ports.WebhookEventRepository
	apply    *ApplyWebhookEventHandler
	clock    ports.Clock
	ids      ports.IDGenerator
	log      *usecase.Logger
	obs      *usecase.Observer
	groups   *usecase.Batcher[*webhookCall]
}

// NewReceiveWebhookHandler builds the handler.
func NewReceiveWebhookHandler(verifier ports.WebhookVerifier, events ports.WebhookEventRepository, apply *ApplyWebhookEventHandler, clock ports.Clock, ids ports.IDGenerator, obs *usecase.Observer) *ReceiveWebhookHandler {
	return &ReceiveWebhookHandler{verifier: verifier, events: events, apply: apply, clock: clock, ids: ids,
		log: obs.Logger("webhooks"), obs: obs,
		groups: usecase.NewBatcher(webhookGroupRunners, maxWebhookGroup, apply.storeGroup)}
}

// storeGrace bounds storing a webhook event whose request's time ran out
// while it was being stored and applied in one transaction.
const storeGrace = 5 * time.Second

// ErrWebhookNotJSON refuses a correctly signed body that is not JSON: no
// webhook payload, so nothing is stored.
var ErrWebhookNotJSON = errors.New("the webhook body is not JSON")

// Handle verifies, stores and applies one call. It fails only when the
// signature does not match (domain.ErrInvalidSignature: nothing is stored),
// the body is not JSON (ErrWebhookNotJSON) or the event could not be stored
// (then Meta must send it again).
func (h *ReceiveWebhookHandler) Handle(ctx context.Context, cmd ReceiveWebhook) (ReceiveWebhookResult, error) {
	return usecase.Observe(ctx, h.obs, "receive_webhook", func(ctx context.Context) (ReceiveWebhookResult, error) {
		if err := h.verifier.VerifySignature(cmd.Body, cmd.Signature); err != nil {
			return ReceiveWebhookResult{}, err
		}
		if !json.Valid(cmd.Body) {
			return ReceiveWebhookResult{}, ErrWebhookNotJSON
		}
		sum := sha256.Sum256(cmd.Body)
		ev := domain.NewWebhookEvent(domain.WebhookEventID(h.ids.NewID(domain.PrefixWebhookEvent)),
			cmd.Body, hex.EncodeToString(sum[:]), h.clock.Now())
		call := &webhookCall{ctx: ctx, ev: ev}
		if h.groups.Do(call, ctx.Done()) && call.alone {
			h.apply.storeAndApply(ctx, []*webhookCall{call})
		}
		if call.ok {
			h.obs.Metrics().WebhookReceived(!call.created)
			return ReceiveWebhookResult{Event: call.stored, Duplicate: !call.created, Applied: true, Report: call.rep}, nil
		}
		// The request's time may have run out in that transaction: the event
		// is stored all the same (by its digest, once), and applying it is
		// left to the retry loop, as when applying alone runs out of time.
		saveCtx := ctx
		if ctx.Err() != nil {
			var cancel context.CancelFunc
			saveCtx, cancel = context.WithTimeout(context.WithoutCancel(ctx), storeGrace)
			defer cancel()
		}
		stored, created, err := h.events.SaveWebhookEvent(saveCtx, ev)
		if err != nil {
			return ReceiveWebhookResult{}, err
		}
		res := ReceiveWebhookResult{Event: stored, Duplicate: !created, Applied: stored.AppliedAt != nil}
		h.obs.Metrics().WebhookReceived(res.Duplicate)
		if res.Applied {
			return res, nil
		}
		// Meta waits for the answer: applying is bounded by the request's
		// context, and a cancelled apply is simply tried again later.
		res.Report, res.ApplyError = h.apply.Apply(ctx, stored)
		res.Applied = res.ApplyError == nil
		if res.ApplyError != nil {
			h.log.Warn("webhook event stored but not applied; it will be tried again",
				"event_id", string(stored.ID), "error", res.ApplyError)
		}
		return res, nil
	})
}
