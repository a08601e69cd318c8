package app

import (
	"context"
	"time"

	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// SimulateInbound makes a customer's text message arrive in test mode, as
// if they had written from From to the business: the sandbox's inbound
// (herald sandbox inbound). It opens the test contact's 24-hour window, so
// a developer can try session replies with a test key without Meta.
type SimulateInbound struct {
	Workspace string // empty: the default workspace
	From      string
	Text      string
}

// SimulateInboundResult is the test contact who wrote and the thread
// entry of their message.
type SimulateInboundResult struct {
	Contact domain.Contact
	Entry   domain.Entry
}

// SimulateInboundHandler records simulated inbound messages.
type SimulateInboundHandler struct {
	workspaces ports.WorkspaceRepository
	tx         ports.Transactor
	def        *EnsureDefaultWorkspaceHandler
	clock      ports.Clock
	ids        ports.IDGenerator
	emit       *usecase.Events
}

// NewSimulateInboundHandler builds the handler.
func NewSimulateInboundHandler(workspaces ports.WorkspaceRepository, tx ports.Transactor, def *EnsureDefaultWorkspaceHandler,
	clock ports.Clock, ids ports.IDGenerator, emit *usecase.Events) *SimulateInboundHandler {
	return &SimulateInboundHandler{workspaces: workspaces, tx: tx, def: def, clock: clock, ids: ids, emit: emit}
}

// Handle checks the number and the text, finds or makes the workspace's
// test contact for the number, and records the message in their thread,
// their window and the events of test mode, in one transaction. Live
// contacts are never touched: only Meta speaks for real people.
func (h *SimulateInboundHandler) Handle(ctx context.Context, cmd SimulateInbound) (SimulateInboundResult, error) {
	phone, err := domain.ParsePhoneNumber(cmd.From)
	if err != nil {
		return SimulateInboundResult{}, withParam(err, "from")
	}
	if err := domain.CheckText("text", "the text", cmd.Text); err != nil {
		return SimulateInboundResult{}, err
	}
	if cmd.Text == "" || len([]rune(cmd.Text)) > domain.MaxTextBody {
		return SimulateInboundResult{}, domain.InvalidParameter("text", "the text is 1 to 4096 characters")
	}
	ws, err := resolveWorkspace(ctx, h.workspaces, h.def, cmd.Workspace)
	if err != nil {
		return SimulateInboundResult{}, err
	}
	now := h.clock.Now().UTC().Truncate(time.Microsecond)
	var res SimulateInboundResult
	err = h.tx.WithinTx(ctx, func(ctx context.Context, r ports.Repos) error {
		found, err := r.Contacts.FindContactsByPhone(ctx, ws, domain.ModeTest, []domain.PhoneNumber{phone})
		if err != nil {
			return err
		}
		var contact domain.Contact
		if len(found) > 0 {
			contact = found[0]
		} else {
			contact = domain.NewContact(domain.ContactID(h.ids.NewID(domain.PrefixContact)),
				domain.ConversationID(h.ids.NewID(domain.PrefixConversation)), ws, domain.ModeTest, phone, now)
			if err := r.Contacts.CreateContact(ctx, contact); err != nil {
				return err
			}
		}
		msg := domain.InboundMessage{ProviderID: "wamid.SBXIN" + h.ids.NewID("in"), Kind: domain.KindText, Text: cmd.Text, At: now}
		entry := domain.InboundEntry(domain.EntryID(h.ids.NewID(domain.PrefixEntry)), contact, msg, "")
		entry.Mode = domain.ModeTest // it never came from Meta
		if err := r.Conversations.AppendEntries(ctx, entry); err != nil {
			return err
		}
		var before domain.Contact
		updated, err := r.Contacts.UpdateContact(ctx, ws, contact.ID, func(c *domain.Contact) error {
			before = *c
			c.RecordInbound("", "", now, now)
			return nil
		})
		if err != nil {
			return err
		}
		if err := h.emit.Inbound(ctx, r.Events, entry, updated, now); err != nil {
			return err
		}
		if err := h.emit.Contact(ctx, r.Events, before, updated, now); err != nil {
			return err
		}
		res = SimulateInboundResult{Contact: updated, Entry: entry}
		return nil
	})
	return res, err
}
