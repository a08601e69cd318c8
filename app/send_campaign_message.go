package app

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"sync"
	"time"

	"github.com/heraldhq/herald/app/delivery"
	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// SendCampaignMessage asks to send a campaign's template to one number.
type SendCampaignMessage struct {
	Principal      domain.Principal
	PhoneNumber    string
	CampaignID     string
	Variables      []string
	MediaHeaderURL string
	DryRun         bool // run every check, store and send nothing
	// IdempotencyKey, when not empty, names this send: within
	// domain.IdempotencyRetention the same key with the same request, from
	// the same workspace and a key of the same mode, replays the first
	// answer instead of sending again.
	IdempotencyKey domain.IdempotencyKey
}

// fingerprint identifies the request's content as the caller sent it.
func (c SendCampaignMessage) fingerprint() domain.Fingerprint {
	parts := append([]string{c.PhoneNumber, c.CampaignID, c.MediaHeaderURL, strconv.Itoa(len(c.Variables))}, c.Variables...)
	return domain.FingerprintOf(parts...)
}

// SendCampaignMessageResult is the accepted message, or for a dry run the
// message that would have been stored and the exact provider payload.
type SendCampaignMessageResult struct {
	Message domain.Message
	Payload ports.TemplatePayload
	DryRun  bool
	// Replayed says the Idempotency-Key was used before: Message is the one
	// the first request accepted, and nothing new was stored.
	Replayed bool
}

// SendCampaignDeps are what the send-campaign handler needs. Media may be
// nil only where no send carries a media header (some tests and load
// tools); a media header then fails.
type SendCampaignDeps struct {
	Tx          ports.Transactor
	Campaigns   ports.CampaignRepository
	Contacts    ports.ContactRepository
	Messages    ports.MessageRepository
	Idempotency ports.IdempotencyRepository
	SendCounts  ports.SendCountRepository
	Media       ports.MediaInspector
	Clock       ports.Clock
	IDs         ports.IDGenerator
	Config      Config
	Wake        *delivery.Wakeup // signalled after each accepted message; may be nil
	Obs         *usecase.Observer
	// LiveSending says live messages have somewhere to go: Meta's Cloud
	// API is configured. Without it a live key's send (dry runs too) is
	// refused with whatsapp_not_configured, never routed to the sandbox.
	LiveSending bool
	// LiveNumbers, when set, says live messages have somewhere to go
	// although LiveSending is false: a stored number with a token.
	LiveNumbers LiveNumbers
}

// SendCampaignMessageHandler accepts messages for delivery. Checks run in
// DESIGN's order (phone, campaign exists, active, variables, media header,
// opt-out); on success the message, the contact (created if new), the
// conversation entry, the Idempotency-Key's claim and the day's send count
// are committed before it returns, in one transaction with the other sends
// accepted at the same moment (send_batch.go).
type SendCampaignMessageHandler struct {
	d         SendCampaignDeps
	cfg       Config
	inFlight  inFlight
	batches   *usecase.Batcher[*pendingSend]
	campaigns campaignCache
}

// NewSendCampaignMessageHandler builds the handler.
func NewSendCampaignMessageHandler(d SendCampaignDeps) *SendCampaignMessageHandler {
	h := &SendCampaignMessageHandler{d: d, cfg: d.Config.WithDefaults(), inFlight: inFlight{keys: map[inFlightKey]struct{}{}}}
	h.batches = usecase.NewBatcher(sendBatchRunners, maxSendBatch, h.storeBatch)
	return h
}

// Handle runs the checks and stores the message.
func (h *SendCampaignMessageHandler) Handle(ctx context.Context, cmd SendCampaignMessage) (SendCampaignMessageResult, error) {
	return usecase.Observe(ctx, h.d.Obs, "send_campaign_message", func(ctx context.Context) (SendCampaignMessageResult, error) {
		if cmd.IdempotencyKey == "" || cmd.DryRun {
			return h.handle(ctx, cmd, "")
		}
		return h.handleIdempotent(ctx, cmd)
	})
}

// handleIdempotent runs a send that carries an Idempotency-Key. A key this
// instance is still working on is refused at once (409, retry shortly); a
// key already claimed replays its message, or is refused when the request
// differs. Otherwise the send runs and claims the key in its transaction;
// should another instance claim it first, the claim fails, the transaction
// rolls back, and the other instance's message is replayed.
func (h *SendCampaignMessageHandler) handleIdempotent(ctx context.Context, cmd SendCampaignMessage) (SendCampaignMessageResult, error) {
	k := inFlightKey{cmd.Principal.Workspace, cmd.Principal.Mode, cmd.IdempotencyKey}
	return idempotentSend(ctx, &h.inFlight, k, cmd.fingerprint(), h.d.Idempotency, h.d.Messages, h.d.Clock,
		func(fp domain.Fingerprint) (SendCampaignMessageResult, error) { return h.handle(ctx, cmd, fp) },
		func(m domain.Message) SendCampaignMessageResult {
			return SendCampaignMessageResult{Message: m, Replayed: true}
		})
}

// errWhatsAppNotConfigured refuses a live send on a server without Meta's
// Cloud API, and says what to do about it. A dry run is refused too: it
// promises the answer the real send would get.
var errWhatsAppNotConfigured = &domain.Error{Code: domain.CodeWhatsAppNotConfigured,
	Detail: "live keys send only through WhatsApp, and this server has no WhatsApp Cloud API number configured: " +
		"set HERALD_WHATSAPP_ACCESS_TOKEN and HERALD_WHATSAPP_PHONE_NUMBER_ID on the server, or send with an sk_test_ key " +
		"to use the sandbox; nothing was stored"}

// errKeyClaimed says another request claimed the Idempotency-Key between
// the lookup and the transaction.
var errKeyClaimed = errors.New("idempotency key claimed concurrently")

// handle runs the checks and stores the message; with an Idempotency-Key it
// claims the key, for the request whose fingerprint is fp. A send checked
// against a campaign that changed before it was stored is checked again.
func (h *SendCampaignMessageHandler) handle(ctx context.Context, cmd SendCampaignMessage, fp domain.Fingerprint) (SendCampaignMessageResult, error) {
	for round := 1; ; round++ {
		res, err := h.checkAndStore(ctx, cmd, fp, round > 1)
		if !errors.Is(err, errCampaignChanged) || round == 3 {
			return res, err
		}
	}
}

// checkAndStore runs the checks, with the campaign as stored when fresh is
// set and as remembered otherwise, and stores the message.
func (h *SendCampaignMessageHandler) checkAndStore(ctx context.Context, cmd SendCampaignMessage, fp domain.Fingerprint, fresh bool) (SendCampaignMessageResult, error) {
	if cmd.Principal.Mode == domain.ModeLive && !liveSending(ctx, h.d.LiveSending, h.d.LiveNumbers) {
		return SendCampaignMessageResult{}, errWhatsAppNotConfigured
	}
	ws := cmd.Principal.Workspace
	phone, err := domain.ParsePhoneNumber(cmd.PhoneNumber)
	if err != nil {
		return SendCampaignMessageResult{}, err
	}
	campaignID, err := domain.ParseCampaignID(cmd.CampaignID)
	if err != nil {
		return SendCampaignMessageResult{}, withParam(err, "campaignId")
	}
	campaign, cached, err := h.campaign(ctx, ws, campaignID, fresh || cmd.DryRun)
	if err != nil {
		return SendCampaignMessageResult{}, withParam(err, "campaignId")
	}
	prep, err := h.checkCampaign(ctx, campaign, cmd)
	if err != nil && cached && ctx.Err() == nil {
		// The remembered campaign may be out of date: the refusal stands
		// only if the stored campaign is the same. A request whose time
		// ran out during the checks (a slow media server) keeps its
		// refusal: reading the campaign again could only fail, as 503.
		stored, _, serr := h.campaign(ctx, ws, campaignID, true)
		if serr != nil {
			return SendCampaignMessageResult{}, withParam(serr, "campaignId")
		}
		if !reflect.DeepEqual(stored, campaign) {
			campaign = stored
			prep, err = h.checkCampaign(ctx, campaign, cmd)
		}
	}
	if err != nil {
		return SendCampaignMessageResult{}, err
	}
	now := h.d.Clock.Now()

	if cmd.DryRun {
		return h.dryRun(ctx, cmd.Principal, campaign, phone, prep)
	}

	p := &pendingSend{ctx: ctx, cmd: cmd, fp: fp, campaign: campaign, prep: prep, phone: phone, now: now,
		msgID: domain.MessageID(h.d.IDs.NewID(domain.PrefixMessage))}
	if !h.batches.Do(p, ctx.Done()) {
		return SendCampaignMessageResult{}, fmt.Errorf("app: send not stored: %w: %w", ports.ErrUnavailable, ctx.Err())
	}
	if p.err != nil {
		return SendCampaignMessageResult{}, p.err
	}
	h.d.Wake.Signal()
	return SendCampaignMessageResult{Message: p.msg}, nil
}

// PurgeExpired deletes Idempotency-Keys past their retention and send
// counts of days before yesterday.
func (h *SendCampaignMessageHandler) PurgeExpired(ctx context.Context) error {
	now := h.d.Clock.Now()
	if _, err := h.d.Idempotency.PurgeIdempotencyRecords(ctx, domain.IdempotencyStaleBefore(now)); err != nil {
		return err
	}
	if _, err := h.d.SendCounts.PurgeSendCounts(ctx, now.UTC().Truncate(24*time.Hour).Add(-24*time.Hour)); err != nil {
		return err
	}
	// Recipients reached before the messaging limit's window count no more.
	return h.d.Tx.WithinTx(ctx, func(ctx context.Context, r ports.Repos) error {
		_, err := r.Reach.PurgeReach(ctx, now.Add(-domain.MessagingWindow))
		return err
	})
}

// checkCampaign checks the send's variables and media header against the
// campaign, and prepares them: a document header gets its file name from
// the inspection.
func (h *SendCampaignMessageHandler) checkCampaign(ctx context.Context, c domain.Campaign, cmd SendCampaignMessage) (domain.Prepared, error) {
	prep, err := c.Prepare(cmd.Variables, cmd.MediaHeaderURL, h.cfg.Media)
	if err != nil {
		return domain.Prepared{}, err
	}
	// Every media header is inspected: the template's own (from
	// mediaHeaderUrl or fixed) and each carousel card's.
	for i, v := range prep.Values {
		if v.Slot.Kind != domain.SlotHeaderMedia || v.Value == "" {
			continue
		}
		info, err := h.inspectMedia(ctx, cmd.Principal, v.Slot.Media, v.Value)
		if err != nil {
			return domain.Prepared{}, slotMediaError(v.Slot, err)
		}
		if v.Slot.Media == domain.HeaderDocument {
			prep.Values[i].Filename = v.Slot.Media.MediaFilename(v.Value, info)
			if v.Slot.Source.MediaHeaderURL {
				prep.MediaFilename = prep.Values[i].Filename
			}
		}
	}
	return prep, nil
}

// slotMediaError names the variable that gave a media header whose
// resource was refused; the template's own header keeps mediaHeaderUrl.
func slotMediaError(s domain.Slot, err error) error {
	var de *domain.Error
	if s.Source.Position == 0 || !errors.As(err, &de) {
		return err
	}
	c := *de
	i := strconv.Itoa(s.Source.Position - 1)
	c.Param = "variables[" + i + "]"
	c.Detail = "variables[" + i + "] fills " + s.Describe() + " (slot " + s.Key + "): " + de.Detail
	return &c
}

// inspectMedia checks the resource a media header names against Meta's
// rules for the template's header kind, and returns what it found.
func (h *SendCampaignMessageHandler) inspectMedia(ctx context.Context, caller domain.Principal, header domain.HeaderFormat, url string) (domain.MediaInfo, error) {
	if url == "" {
		return domain.MediaInfo{}, nil
	}
	if h.d.Media == nil {
		return domain.MediaInfo{}, errors.New("app: send-campaign has no media inspector")
	}
	info, err := h.d.Media.InspectMedia(ctx, caller, url, header)
	if err != nil {
		return domain.MediaInfo{}, err
	}
	return info, header.CheckMedia(info)
}

func (h *SendCampaignMessageHandler) dryRun(ctx context.Context, p domain.Principal, c domain.Campaign, phone domain.PhoneNumber, prep domain.Prepared) (SendCampaignMessageResult, error) {
	contact, err := h.d.Contacts.GetContactByPhone(ctx, p.Workspace, p.Mode, phone)
	switch {
	case errors.Is(err, domain.ErrContactNotFound):
		contact = domain.Contact{Phone: phone}
	case err != nil:
		return SendCampaignMessageResult{}, err
	}
	if err := contact.CanReceiveCampaign(c); err != nil {
		return SendCampaignMessageResult{}, err
	}
	// The message gets an id, never stored, so the payload shows
	// biz_opaque_callback_data as a real send would carry it.
	msg := domain.NewMessage(domain.MessageID(h.d.IDs.NewID(domain.PrefixMessage)), c, contact, p, prep, h.d.Clock.Now())
	msg.Phone = phone // the contact may hold another form of it
	return SendCampaignMessageResult{Message: msg, Payload: ports.OutboundFor(msg).Payload(), DryRun: true}, nil
}

// withParam names param on a domain error that has none, so a not-found
// campaign points at the field that named it.
func withParam(err error, param string) error {
	var de *domain.Error
	if errors.As(err, &de) && de.Param == "" {
		c := *de
		c.Param = param
		return &c
	}
	return err
}

// inFlight tracks the Idempotency-Keys this instance is working on.
type inFlight struct {
	mu   sync.Mutex
	keys map[inFlightKey]struct{}
}

// inFlightKey is an Idempotency-Key in the space it names a send in: its
// workspace and its mode.
type inFlightKey struct {
	ws   domain.WorkspaceID
	mode domain.KeyMode
	key  domain.IdempotencyKey
}

// enter marks the key in flight, or reports false when it already is.
func (f *inFlight) enter(k inFlightKey) (release func(), ok bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, busy := f.keys[k]; busy {
		return nil, false
	}
	f.keys[k] = struct{}{}
	return func() {
		f.mu.Lock()
		delete(f.keys, k)
		f.mu.Unlock()
	}, true
}

// LiveNumbers says whether a stored business number can send live
// messages (delivery.Numbers).
type LiveNumbers interface {
	AnyLive(ctx context.Context) bool
}

// liveSending reports whether a live message has somewhere to go.
func liveSending(ctx context.Context, configured bool, numbers LiveNumbers) bool {
	return configured || (numbers != nil && numbers.AnyLive(ctx))
}
