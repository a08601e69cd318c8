package app

import (
	"context"
	"errors"
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
}

// SendCampaignMessageResult is the accepted message, or for a dry run the
// message that would have been stored and the exact provider payload.
type SendCampaignMessageResult struct {
	Message domain.Message
	Payload ports.TemplatePayload
	DryRun  bool
}

// SendCampaignMessageHandler accepts messages for delivery. Checks run in
// DESIGN's order (phone, campaign exists, active, variables, media header,
// opt-out); on success the message, the contact (created if new) and the
// conversation entry are committed in one transaction before it returns.
type SendCampaignMessageHandler struct {
	tx       ports.Transactor
	camps    ports.CampaignRepository
	contacts ports.ContactRepository
	clock    ports.Clock
	ids      ports.IDGenerator
	wake     *Wakeup
	obs      *Observer
}

// NewSendCampaignMessageHandler builds the handler. wake, when not nil, is
// signalled after each accepted message so the dispatcher picks it up at once.
func NewSendCampaignMessageHandler(tx ports.Transactor, camps ports.CampaignRepository, contacts ports.ContactRepository, clock ports.Clock, ids ports.IDGenerator, wake *Wakeup, obs *Observer) *SendCampaignMessageHandler {
	return &SendCampaignMessageHandler{tx: tx, camps: camps, contacts: contacts, clock: clock, ids: ids, wake: wake, obs: obs}
}

// Handle runs the checks and stores the message.
func (h *SendCampaignMessageHandler) Handle(ctx context.Context, cmd SendCampaignMessage) (SendCampaignMessageResult, error) {
	return observe(ctx, h.obs, "send_campaign_message", func(ctx context.Context) (SendCampaignMessageResult, error) {
		return h.handle(ctx, cmd)
	})
}

func (h *SendCampaignMessageHandler) handle(ctx context.Context, cmd SendCampaignMessage) (SendCampaignMessageResult, error) {
	ws := cmd.Principal.Workspace
	phone, err := domain.ParsePhoneNumber(cmd.PhoneNumber)
	if err != nil {
		return SendCampaignMessageResult{}, err
	}
	campaignID, err := domain.ParseCampaignID(cmd.CampaignID)
	if err != nil {
		return SendCampaignMessageResult{}, withParam(err, "campaignId")
	}
	campaign, err := h.camps.GetCampaign(ctx, ws, campaignID)
	if err != nil {
		return SendCampaignMessageResult{}, withParam(err, "campaignId")
	}
	prep, err := campaign.Prepare(cmd.Variables, cmd.MediaHeaderURL)
	if err != nil {
		return SendCampaignMessageResult{}, err
	}
	now := h.clock.Now()

	if cmd.DryRun {
		return h.dryRun(ctx, cmd.Principal, campaign, phone, prep)
	}

	msgID := domain.MessageID(h.ids.NewID(domain.PrefixMessage))
	var msg domain.Message
	send := func(ctx context.Context, r ports.Repos) error {
		contact, err := findOrCreateContact(ctx, r.Contacts, h.ids, ws, phone, now)
		if err != nil {
			return err
		}
		if err := contact.CanReceive(); err != nil {
			return err
		}
		// Lock the contact row first (the touch is a read-modify-write):
		// inserting the message and entry then only re-enters a lock this
		// transaction holds, so concurrent sends to one contact queue
		// instead of deadlocking on PostgreSQL.
		contact, err = r.Contacts.UpdateContact(ctx, ws, contact.ID, func(c *domain.Contact) error {
			c.Touch(now)
			return nil
		})
		if err != nil {
			return err
		}
		msg = domain.NewMessage(msgID, campaign, contact, cmd.Principal, prep, now)
		if err := r.Messages.CreateMessage(ctx, msg); err != nil {
			return err
		}
		entry := domain.OutboundEntry(domain.EntryID(h.ids.NewID(domain.PrefixEntry)), msg, contact)
		return r.Conversations.AppendEntry(ctx, entry)
	}
	err = h.tx.WithinTx(ctx, send)
	if errors.Is(err, domain.ErrConflict) {
		// Another request created this contact between our read and insert;
		// the retry finds it.
		err = h.tx.WithinTx(ctx, send)
	}
	if err != nil {
		return SendCampaignMessageResult{}, err
	}
	h.wake.Signal()
	return SendCampaignMessageResult{Message: msg}, nil
}

func (h *SendCampaignMessageHandler) dryRun(ctx context.Context, p domain.Principal, c domain.Campaign, phone domain.PhoneNumber, prep domain.Prepared) (SendCampaignMessageResult, error) {
	contact, err := h.contacts.GetContactByPhone(ctx, p.Workspace, phone)
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
	msg := domain.NewMessage(domain.MessageID(h.ids.NewID(domain.PrefixMessage)), c, contact, p, prep, h.clock.Now())
	return SendCampaignMessageResult{Message: msg, Payload: ports.OutboundFor(msg).Payload(), DryRun: true}, nil
}

// findOrCreateContact returns the workspace's contact for phone, creating it (and
// its conversation) if it is new: for a send, or for a message the contact
// wrote.
func findOrCreateContact(ctx context.Context, contacts ports.ContactRepository, ids ports.IDGenerator, ws domain.WorkspaceID, phone domain.PhoneNumber, now time.Time) (domain.Contact, error) {
	c, err := contacts.GetContactByPhone(ctx, ws, phone)
	if !errors.Is(err, domain.ErrContactNotFound) {
		return c, err
	}
	c = domain.NewContact(domain.ContactID(ids.NewID(domain.PrefixContact)),
		domain.ConversationID(ids.NewID(domain.PrefixConversation)), ws, phone, now)
	if err := contacts.CreateContact(ctx, c); err != nil {
		return domain.Contact{}, err
	}
	return c, nil
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
