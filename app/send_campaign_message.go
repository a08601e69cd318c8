package app

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"time"

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
	// domain.IdempotencyRetention the same key with the same request
	// replays the first answer instead of sending again.
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
	Wake        *Wakeup // signalled after each accepted message; may be nil
	Obs         *Observer
}

// SendCampaignMessageHandler accepts messages for delivery. Checks run in
// DESIGN's order (phone, campaign exists, active, variables, media header,
// opt-out); on success the message, the contact (created if new), the
// conversation entry, the Idempotency-Key's claim and the day's send count
// are committed in one transaction before it returns.
type SendCampaignMessageHandler struct {
	d        SendCampaignDeps
	cfg      Config
	inFlight inFlight
}

// NewSendCampaignMessageHandler builds the handler.
func NewSendCampaignMessageHandler(d SendCampaignDeps) *SendCampaignMessageHandler {
	return &SendCampaignMessageHandler{d: d, cfg: d.Config.WithDefaults(), inFlight: inFlight{keys: map[inFlightKey]struct{}{}}}
}

// Handle runs the checks and stores the message.
func (h *SendCampaignMessageHandler) Handle(ctx context.Context, cmd SendCampaignMessage) (SendCampaignMessageResult, error) {
	return observe(ctx, h.d.Obs, "send_campaign_message", func(ctx context.Context) (SendCampaignMessageResult, error) {
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
	ws, key := cmd.Principal.Workspace, cmd.IdempotencyKey
	release, ok := h.inFlight.enter(ws, key)
	if !ok {
		return SendCampaignMessageResult{}, domain.ErrIdempotencyInFlight
	}
	defer release()
	fp := cmd.fingerprint()
	if res, done, err := h.replay(ctx, ws, key, fp); done {
		return res, err
	}
	res, err := h.handle(ctx, cmd, fp)
	if errors.Is(err, errKeyClaimed) {
		if res, done, err := h.replay(ctx, ws, key, fp); done {
			return res, err
		}
		return SendCampaignMessageResult{}, domain.ErrIdempotencyInFlight
	}
	return res, err
}

// replay answers a request whose key is already claimed; done is false when
// no live claim exists.
func (h *SendCampaignMessageHandler) replay(ctx context.Context, ws domain.WorkspaceID, key domain.IdempotencyKey, fp domain.Fingerprint) (res SendCampaignMessageResult, done bool, err error) {
	rec, found, err := h.d.Idempotency.FindIdempotencyRecord(ctx, ws, key)
	if err != nil {
		return res, true, err
	}
	if !found || rec.Expired(h.d.Clock.Now()) {
		return res, false, nil
	}
	if err := rec.Replay(fp); err != nil {
		return res, true, err
	}
	msg, err := h.d.Messages.GetMessage(ctx, ws, rec.Message)
	if err != nil {
		return res, true, err
	}
	return SendCampaignMessageResult{Message: msg, Replayed: true}, true, nil
}

// errKeyClaimed says another request claimed the Idempotency-Key between
// the lookup and the transaction.
var errKeyClaimed = errors.New("idempotency key claimed concurrently")

// handle runs the checks and stores the message; with an Idempotency-Key it
// claims the key, for the request whose fingerprint is fp.
func (h *SendCampaignMessageHandler) handle(ctx context.Context, cmd SendCampaignMessage, fp domain.Fingerprint) (SendCampaignMessageResult, error) {
	ws := cmd.Principal.Workspace
	phone, err := domain.ParsePhoneNumber(cmd.PhoneNumber)
	if err != nil {
		return SendCampaignMessageResult{}, err
	}
	campaignID, err := domain.ParseCampaignID(cmd.CampaignID)
	if err != nil {
		return SendCampaignMessageResult{}, withParam(err, "campaignId")
	}
	campaign, err := h.d.Campaigns.GetCampaign(ctx, ws, campaignID)
	if err != nil {
		return SendCampaignMessageResult{}, withParam(err, "campaignId")
	}
	prep, err := campaign.Prepare(cmd.Variables, cmd.MediaHeaderURL, h.cfg.Media)
	if err != nil {
		return SendCampaignMessageResult{}, err
	}
	if err := h.inspectMedia(ctx, campaign.Template.HeaderFormat, prep.MediaHeaderURL); err != nil {
		return SendCampaignMessageResult{}, err
	}
	now := h.d.Clock.Now()

	if cmd.DryRun {
		return h.dryRun(ctx, cmd.Principal, campaign, phone, prep)
	}

	msgID := domain.MessageID(h.d.IDs.NewID(domain.PrefixMessage))
	var msg domain.Message
	send := func(ctx context.Context, r ports.Repos) error {
		// The key is claimed first, so a concurrent request with the same
		// key waits here (PostgreSQL) or before its transaction (SQLite)
		// instead of doing the work twice.
		if cmd.IdempotencyKey != "" {
			rec := domain.IdempotencyRecord{Workspace: ws, Key: cmd.IdempotencyKey, Fingerprint: fp,
				Message: msgID, CreatedAt: now}
			err := r.Idempotency.ClaimIdempotencyKey(ctx, rec, domain.IdempotencyStaleBefore(now))
			if errors.Is(err, domain.ErrConflict) {
				return errKeyClaimed
			}
			if err != nil {
				return err
			}
		}
		if err := h.countSend(ctx, r, cmd.Principal, now); err != nil {
			return err
		}
		// The contact's row is locked first (found and touched in one
		// read-modify-write), so concurrent sends to one contact queue
		// instead of deadlocking on PostgreSQL: inserting the message and
		// entry only re-enters a lock this transaction holds.
		contact, err := r.Contacts.UpdateContactByPhone(ctx, ws, phone, func(c *domain.Contact) error {
			if err := c.CanReceive(); err != nil {
				return err
			}
			c.Touch(now)
			return nil
		})
		if errors.Is(err, domain.ErrContactNotFound) {
			contact = domain.NewContact(domain.ContactID(h.d.IDs.NewID(domain.PrefixContact)),
				domain.ConversationID(h.d.IDs.NewID(domain.PrefixConversation)), ws, phone, now)
			contact.Touch(now)
			err = r.Contacts.CreateContact(ctx, contact)
		}
		if err != nil {
			return err
		}
		msg = domain.NewMessage(msgID, campaign, contact, cmd.Principal, prep, now)
		if err := r.Messages.CreateMessage(ctx, msg); err != nil {
			return err
		}
		entry := domain.OutboundEntry(domain.EntryID(h.d.IDs.NewID(domain.PrefixEntry)), msg, contact)
		return r.Conversations.AppendEntry(ctx, entry)
	}
	err = h.d.Tx.WithinTx(ctx, send)
	if errors.Is(err, domain.ErrConflict) {
		// Another request created this contact between our read and insert;
		// the retry finds it.
		err = h.d.Tx.WithinTx(ctx, send)
	}
	if err != nil {
		return SendCampaignMessageResult{}, err
	}
	h.d.Wake.Signal()
	return SendCampaignMessageResult{Message: msg}, nil
}

// PurgeExpired deletes Idempotency-Keys past their retention and send
// counts of days before yesterday.
func (h *SendCampaignMessageHandler) PurgeExpired(ctx context.Context) error {
	now := h.d.Clock.Now()
	if _, err := h.d.Idempotency.PurgeIdempotencyRecords(ctx, domain.IdempotencyStaleBefore(now)); err != nil {
		return err
	}
	_, err := h.d.SendCounts.PurgeSendCounts(ctx, now.UTC().Truncate(24*time.Hour).Add(-24*time.Hour))
	return err
}

// inspectMedia checks the resource a media header names against Meta's
// rules for the template's header kind.
func (h *SendCampaignMessageHandler) inspectMedia(ctx context.Context, header domain.HeaderFormat, url string) error {
	if url == "" {
		return nil
	}
	if h.d.Media == nil {
		return errors.New("app: send-campaign has no media inspector")
	}
	info, err := h.d.Media.InspectMedia(ctx, url, header)
	if err != nil {
		return err
	}
	return header.CheckMedia(info)
}

// countSend counts the send against the workspace's daily cap, when one is
// set, in the send's transaction: a send that rolls back is not counted.
func (h *SendCampaignMessageHandler) countSend(ctx context.Context, r ports.Repos, p domain.Principal, now time.Time) error {
	limit := h.cfg.DailySendCap
	if limit <= 0 {
		return nil
	}
	day := now.UTC().Truncate(24 * time.Hour)
	counted, err := r.SendCounts.CountSend(ctx, p.Workspace, p.Mode, day, limit)
	if err != nil {
		return err
	}
	if !counted {
		return domain.DailySendCapReached(limit, p.Mode, day.Add(24*time.Hour).Sub(now))
	}
	return nil
}

func (h *SendCampaignMessageHandler) dryRun(ctx context.Context, p domain.Principal, c domain.Campaign, phone domain.PhoneNumber, prep domain.Prepared) (SendCampaignMessageResult, error) {
	contact, err := h.d.Contacts.GetContactByPhone(ctx, p.Workspace, phone)
	switch {
	case errors.Is(err, domain.ErrContactNotFound):
		contact = domain.Contact{Phone: phone}
	case err != nil:
		return SendCampaignMessageResult{}, err
	}
	if err := contact.CanReceive(); err != nil {
		return SendCampaignMessageResult{}, err
	}
	// The message gets an id, never stored, so the payload shows
	// biz_opaque_callback_data as a real send would carry it.
	msg := domain.NewMessage(domain.MessageID(h.d.IDs.NewID(domain.PrefixMessage)), c, contact, p, prep, h.d.Clock.Now())
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

type inFlightKey struct {
	ws  domain.WorkspaceID
	key domain.IdempotencyKey
}

// enter marks the key in flight, or reports false when it already is.
func (f *inFlight) enter(ws domain.WorkspaceID, key domain.IdempotencyKey) (release func(), ok bool) {
	k := inFlightKey{ws, key}
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
