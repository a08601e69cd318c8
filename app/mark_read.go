package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/heraldhq/herald/app/delivery"
	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// MarkRead marks a contact's message read on WhatsApp: ID is its wamid
// (providerMessageId in the thread). Typing also shows the typing
// indicator, for up to 25 seconds or until our next message.
type MarkRead struct {
	Principal domain.Principal
	ID        string
	Typing    bool
}

// MarkReadHandler marks inbound messages read through the sender of the
// key's mode: Meta for live keys, the sandbox for test keys.
type MarkReadHandler struct {
	convs    ports.ConversationRepository
	senders  delivery.Senders
	obs      *usecase.Observer
	contacts ports.ContactRepository // nil: live marks go through the live sender
}

// WithContacts returns h marking a live message read from the business
// number the contact wrote to (their last), with that number's token.
func (h *MarkReadHandler) WithContacts(contacts ports.ContactRepository) *MarkReadHandler {
	h.contacts = contacts
	return h
}

// NewMarkReadHandler builds the handler.
func NewMarkReadHandler(convs ports.ConversationRepository, senders delivery.Senders, obs *usecase.Observer) *MarkReadHandler {
	return &MarkReadHandler{convs: convs, senders: senders, obs: obs}
}

// Handle finds the inbound message in the key's workspace and mode
// (message_not_found otherwise) and marks it read.
func (h *MarkReadHandler) Handle(ctx context.Context, cmd MarkRead) (domain.Entry, error) {
	return usecase.Observe(ctx, h.obs, "mark_read", func(ctx context.Context) (domain.Entry, error) {
		p := cmd.Principal
		if p.Mode == domain.ModeLive && !liveSending(ctx, h.senders.Live != nil, liveNumbers(h.senders)) {
			return domain.Entry{}, errWhatsAppNotConfigured
		}
		if cmd.ID == "" || len(cmd.ID) > domain.MaxProviderRef {
			return domain.Entry{}, domain.NotFound(domain.ErrMessageNotFound)
		}
		e, err := h.convs.GetInboundEntry(ctx, p.Workspace, p.Mode, cmd.ID)
		if err != nil {
			return domain.Entry{}, err
		}
		sender := h.senders.For(p.Mode)
		if p.Mode == domain.ModeLive && h.contacts != nil && h.senders.Numbers != nil {
			c, err := h.contacts.GetContact(ctx, p.Workspace, e.ContactID)
			if err != nil && !errors.Is(err, domain.ErrContactNotFound) {
				return domain.Entry{}, err
			}
			if s := h.senders.Numbers.SenderOf(ctx, c.LastNumber); s != nil {
				sender = s
			}
		}
		marker, ok := sender.(ports.ReadMarker)
		if !ok {
			return domain.Entry{}, errors.New("app: the sender cannot mark messages read")
		}
		if err := marker.MarkRead(ctx, e.ProviderID, cmd.Typing); err != nil {
			var se *ports.SendError
			if errors.As(err, &se) && se.Class != ports.ClassPermanent {
				return domain.Entry{}, fmt.Errorf("app: marking read: %w: %w", ports.ErrUnavailable, err)
			}
			return domain.Entry{}, &domain.Error{Code: domain.CodeInvalidParameter, Param: "id",
				Detail: "WhatsApp refused to mark the message read: " + err.Error()}
		}
		return e, nil
	})
}
