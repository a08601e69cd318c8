package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/heraldhq/herald/app/delivery"
	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// SendSessionMessage asks to send a free-form message inside the contact's
// customer-service window (decision 0024). The recipient is To (a phone
// number) or ContactID, not both.
type SendSessionMessage struct {
	Principal domain.Principal
	To        string
	ContactID string
	Content   domain.SessionContent
	// ReplyTo quotes an earlier message: Herald's msg_ id of a message it
	// sent, or Meta's wamid of any message (the contact's included).
	ReplyTo string
	// From names the business number (pn_…) the message leaves from; by
	// default it leaves from the number the contact last wrote to.
	From           string
	IdempotencyKey domain.IdempotencyKey
}

// fingerprint identifies the request's content as the caller sent it.
func (c SendSessionMessage) fingerprint() domain.Fingerprint {
	content, _ := json.Marshal(c.Content)
	return domain.FingerprintOf("session", c.To, c.ContactID, c.ReplyTo, c.From, string(content))
}

// SendSessionMessageResult is the accepted message; Replayed says the
// Idempotency-Key was used before and Message is the first request's.
type SendSessionMessageResult struct {
	Message  domain.Message
	Replayed bool
}

// SendSessionDeps are what the session send needs.
type SendSessionDeps struct {
	Tx          ports.Transactor
	Messages    ports.MessageRepository
	Idempotency ports.IdempotencyRepository
	Media       ports.MediaRepository // the files named by mediaId
	Clock       ports.Clock
	IDs         ports.IDGenerator
	Config      Config
	Wake        *delivery.Wakeup // signalled after each accepted message; may be nil
	Obs         *usecase.Observer
	// LiveSending says live messages have somewhere to go (Meta's Cloud
	// API is configured), as for send-campaign.
	LiveSending bool
	// LiveNumbers, as for send-campaign.
	LiveNumbers LiveNumbers
	// Numbers are the stored business numbers; nil: session messages
	// leave from the server's one number and From is refused.
	Numbers ports.NumberRepository
}

// SendSessionMessageHandler accepts session messages. Checks run in this
// order: a live key on a server without the Cloud API, the recipient's
// form, the content against Meta's limits, the quoted message, then in the
// transaction the recipient, its opt-out, its window and the daily cap. The
// accepted message, its thread entry and the Idempotency-Key's claim are
// committed together, and the message waits in the same queue as
// templates.
type SendSessionMessageHandler struct {
	d        SendSessionDeps
	cfg      Config
	inFlight inFlight
}

// NewSendSessionMessageHandler builds the handler.
func NewSendSessionMessageHandler(d SendSessionDeps) *SendSessionMessageHandler {
	return &SendSessionMessageHandler{d: d, cfg: d.Config.WithDefaults(), inFlight: inFlight{keys: map[inFlightKey]struct{}{}}}
}

// Handle runs the checks and stores the message.
func (h *SendSessionMessageHandler) Handle(ctx context.Context, cmd SendSessionMessage) (SendSessionMessageResult, error) {
	return usecase.Observe(ctx, h.d.Obs, "send_session_message", func(ctx context.Context) (SendSessionMessageResult, error) {
		if cmd.IdempotencyKey == "" {
			return h.handle(ctx, cmd, "")
		}
		k := inFlightKey{cmd.Principal.Workspace, cmd.Principal.Mode, cmd.IdempotencyKey}
		return idempotentSend(ctx, &h.inFlight, k, cmd.fingerprint(), h.d.Idempotency, h.d.Messages, h.d.Clock,
			func(fp domain.Fingerprint) (SendSessionMessageResult, error) { return h.handle(ctx, cmd, fp) },
			func(m domain.Message) SendSessionMessageResult {
				return SendSessionMessageResult{Message: m, Replayed: true}
			})
	})
}

func (h *SendSessionMessageHandler) handle(ctx context.Context, cmd SendSessionMessage, fp domain.Fingerprint) (SendSessionMessageResult, error) {
	p := cmd.Principal
	if p.Mode == domain.ModeLive && !liveSending(ctx, h.d.LiveSending, h.d.LiveNumbers) {
		return SendSessionMessageResult{}, errWhatsAppNotConfigured
	}
	var phone domain.PhoneNumber
	var contactID domain.ContactID
	switch {
	case cmd.To != "" && cmd.ContactID != "":
		return SendSessionMessageResult{}, domain.InvalidParameter("to", "give to or contactId, not both")
	case cmd.To != "":
		var err error
		if phone, err = domain.ParseWhatsAppNumber(cmd.To); err != nil {
			var de *domain.Error
			if errors.As(err, &de) {
				c := *de
				c.Param = "to"
				return SendSessionMessageResult{}, &c
			}
			return SendSessionMessageResult{}, err
		}
	case cmd.ContactID != "":
		var err error
		if contactID, err = domain.ParseContactID(cmd.ContactID); err != nil {
			return SendSessionMessageResult{}, withParam(err, "contactId")
		}
	default:
		return SendSessionMessageResult{}, domain.InvalidParameter("to", "give the recipient: to (a phone number) or contactId")
	}
	if err := cmd.Content.Check(h.cfg.Media); err != nil {
		return SendSessionMessageResult{}, err
	}
	if err := domain.CheckReplyTo(cmd.ReplyTo, cmd.Content.Type); err != nil {
		return SendSessionMessageResult{}, err
	}
	if err := h.checkMedia(ctx, p, cmd.Content); err != nil {
		return SendSessionMessageResult{}, err
	}
	from, err := h.from(ctx, p, cmd.From)
	if err != nil {
		return SendSessionMessageResult{}, err
	}
	content := cmd.Content
	replyTo, err := h.wamid(ctx, p, "replyTo", cmd.ReplyTo)
	if err != nil {
		return SendSessionMessageResult{}, err
	}
	if content.Reaction != nil {
		r := *content.Reaction
		if r.MessageID, err = h.wamid(ctx, p, "reaction.messageId", r.MessageID); err != nil {
			return SendSessionMessageResult{}, err
		}
		content.Reaction = &r
	}

	now := h.d.Clock.Now()
	msgID := domain.MessageID(h.d.IDs.NewID(domain.PrefixMessage))
	var msg domain.Message
	err = h.d.Tx.WithinTx(ctx, func(ctx context.Context, r ports.Repos) error {
		c, err := findRecipient(ctx, r, p, phone, contactID)
		if err != nil {
			return err
		}
		if err := c.CanReceive(); err != nil {
			return err
		}
		if err := c.CheckServiceWindow(now); err != nil {
			return err
		}
		if err := h.countSend(ctx, r, p, now); err != nil {
			return err
		}
		if cmd.IdempotencyKey != "" {
			rec := domain.IdempotencyRecord{Workspace: p.Workspace, Mode: p.Mode, Key: cmd.IdempotencyKey,
				Fingerprint: fp, Message: msgID, CreatedAt: now}
			err := r.Idempotency.ClaimIdempotencyKey(ctx, rec, domain.IdempotencyStaleBefore(now))
			if errors.Is(err, domain.ErrConflict) {
				return errKeyClaimed
			}
			if err != nil {
				return err
			}
		}
		to := phone
		if to.IsZero() {
			to = c.Phone
		}
		msg = domain.NewSessionMessage(msgID, c, p, to, content, replyTo, now)
		if p.Mode == domain.ModeLive {
			// From the number named, else the one the contact last
			// wrote to: the one whose chat they see it in.
			msg.Number = from
			if msg.Number == "" {
				msg.Number = c.LastNumber
			}
		}
		if _, err := r.Contacts.UpdateContact(ctx, p.Workspace, c.ID, func(c *domain.Contact) error {
			c.Touch(now)
			return nil
		}); err != nil {
			return err
		}
		if err := r.Messages.CreateMessages(ctx, msg); err != nil {
			return err
		}
		return r.Conversations.AppendEntries(ctx, domain.OutboundEntry(domain.EntryID(h.d.IDs.NewID(domain.PrefixEntry)), msg, c))
	})
	if err != nil {
		return SendSessionMessageResult{}, err
	}
	h.d.Wake.Signal()
	return SendSessionMessageResult{Message: msg}, nil
}

// findRecipient finds the contact of the key's mode by number or id. A
// number Herald has no contact for has never written: its window never
// opened.
func findRecipient(ctx context.Context, r ports.Repos, p domain.Principal, phone domain.PhoneNumber, id domain.ContactID) (domain.Contact, error) {
	if id != "" {
		c, err := r.Contacts.GetContact(ctx, p.Workspace, id)
		if err == nil && !p.Sees(c.Mode) {
			err = domain.NotFound(domain.ErrContactNotFound)
		}
		return c, withParam(err, "contactId")
	}
	found, err := r.Contacts.FindContactsByPhone(ctx, p.Workspace, p.Mode, []domain.PhoneNumber{phone})
	if err != nil {
		return domain.Contact{}, err
	}
	if len(found) == 0 {
		return domain.Contact{}, domain.OutsideServiceWindow(time.Time{})
	}
	return found[0], nil
}

// countSend counts the message against the workspace's daily cap, as a
// campaign's send is counted.
func (h *SendSessionMessageHandler) countSend(ctx context.Context, r ports.Repos, p domain.Principal, now time.Time) error {
	limit := h.cfg.DailySendCap
	if limit <= 0 {
		return nil
	}
	day := now.UTC().Truncate(24 * time.Hour)
	counted, err := r.SendCounts.CountSend(ctx, p.Workspace, p.Mode, day, limit)
	if err == nil && !counted {
		return domain.DailySendCapReached(limit, p.Mode, day.Add(24*time.Hour).Sub(now))
	}
	return err
}

// wamid turns a reference to a message into Meta's wamid: Herald's msg_
// id of a message Meta has accepted becomes its wamid; anything else is
// taken as a wamid.
func (h *SendSessionMessageHandler) wamid(ctx context.Context, p domain.Principal, param, ref string) (string, error) {
	if !strings.HasPrefix(ref, domain.PrefixMessage+"_") {
		return ref, nil
	}
	id, err := domain.ParseMessageID(ref)
	if err != nil {
		return "", withParam(err, param)
	}
	m, err := h.d.Messages.GetMessage(ctx, p.Workspace, id)
	if err == nil && !p.Sees(m.Mode) {
		err = domain.NotFound(domain.ErrMessageNotFound)
	}
	if err != nil {
		return "", withParam(err, param)
	}
	if m.ProviderID == "" {
		return "", domain.InvalidParameter(param, fmt.Sprintf("message %s has not reached WhatsApp yet (it is %s), so it cannot be quoted or reacted to", m.ID, m.Status))
	}
	return m.ProviderID, nil
}

// checkMedia finds the files the content names by Herald's id in the
// key's workspace and mode (media_not_found otherwise, naming the field),
// and checks each may be sent as the message's type.
func (h *SendSessionMessageHandler) checkMedia(ctx context.Context, p domain.Principal, s domain.SessionContent) error {
	check := func(id, param, kind string) error {
		mid, err := domain.ParseMediaID(id)
		if err != nil {
			return withParam(err, param)
		}
		f, err := h.d.Media.GetMedia(ctx, p.Workspace, mid)
		if err == nil && !p.Sees(f.Mode) {
			err = domain.NotFound(domain.ErrMediaNotFound)
		}
		if err != nil {
			return withParam(err, param)
		}
		return f.CheckMediaKind(kind, param)
	}
	switch {
	case s.Media != nil && s.Media.MediaID != "":
		return check(s.Media.MediaID, s.Type+".mediaId", s.Type)
	case s.Interactive != nil && s.Interactive.Header != nil && s.Interactive.Header.Media != nil && s.Interactive.Header.Media.MediaID != "":
		t := s.Interactive.Header.Type
		return check(s.Interactive.Header.Media.MediaID, "interactive.header."+t+".mediaId", t)
	}
	return nil
}

// from checks the number a session message is asked to leave from: one the
// key's workspace may use; a test key's messages leave from the sandbox's
// number, which it may name too.
func (h *SendSessionMessageHandler) from(ctx context.Context, p domain.Principal, named string) (domain.BusinessNumberID, error) {
	if named == "" {
		return "", nil
	}
	notFound := &domain.Error{Code: domain.CodePhoneNumberNotFound, Param: "from", Detail: domain.ErrPhoneNumberNotFound.Detail}
	if p.Mode != domain.ModeLive {
		if named != string(domain.SandboxNumberID) {
			return "", notFound
		}
		return "", nil
	}
	if h.d.Numbers == nil {
		return "", notFound
	}
	id, err := NumberFor(ctx, h.d.Numbers, p.Workspace, named)
	if err != nil {
		if de := (*domain.Error)(nil); errors.As(err, &de) && de.Code == domain.CodePhoneNumberNotFound {
			return "", notFound
		}
		return "", err
	}
	return id, nil
}
