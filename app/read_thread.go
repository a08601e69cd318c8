package app

import (
	"context"
	"slices"
	"time"

	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// ReadThread opens a contact's conversation in the dashboard: one page of
// it, and, on the newest page, marks what it shows read. Cursor, when not
// empty, asks for older entries.
type ReadThread struct {
	Workspace domain.WorkspaceID
	ContactID string
	Cursor    string
}

// ThreadView is a page of a conversation as a chat shows it.
type ThreadView struct {
	Contact domain.Contact
	// Entries are oldest first, as a chat reads.
	Entries []domain.Entry
	// Older is the cursor of the entries before these; empty when these
	// are the first.
	Older string
	// Failures are the reasons of the failed messages among Entries.
	Failures map[domain.EntryID]domain.Failure
	// Now is when the page was read, for the window's time left.
	Now time.Time
	// ReceiptError is why WhatsApp was not told the contact's latest
	// message was read, when it was not; the page reads fine without it.
	ReceiptError error
}

// threadPageSize is how many entries a thread page shows.
const threadPageSize = 50

// ReadThreadHandler answers ReadThread.
type ReadThreadHandler struct {
	contacts ports.ContactRepository
	convs    ports.ConversationRepository
	inbox    ports.InboxRepository
	messages ports.MessageRepository
	markRead *MarkReadHandler
	clock    ports.Clock
	obs      *usecase.Observer
}

// NewReadThreadHandler builds the handler; markRead tells WhatsApp.
func NewReadThreadHandler(contacts ports.ContactRepository, convs ports.ConversationRepository, inbox ports.InboxRepository,
	messages ports.MessageRepository, markRead *MarkReadHandler, clock ports.Clock, obs *usecase.Observer) *ReadThreadHandler {
	return &ReadThreadHandler{contacts: contacts, convs: convs, inbox: inbox, messages: messages, markRead: markRead, clock: clock, obs: obs}
}

// Handle returns the page, or contact_not_found. On the newest page the
// thread is marked read through its newest entry, and when the contact's
// latest message was not read before, WhatsApp is told so, as POST
// /v1/messages/{id}/read does, through the sender of the message's mode
// (the sandbox for a test contact). WhatsApp's refusal, or its absence,
// does not fail the page: it is returned in ReceiptError.
func (h *ReadThreadHandler) Handle(ctx context.Context, q ReadThread) (ThreadView, error) {
	return usecase.Observe(ctx, h.obs, "read_thread", func(ctx context.Context) (ThreadView, error) {
		id, err := domain.ParseContactID(q.ContactID)
		if err != nil {
			return ThreadView{}, err
		}
		page, err := checkPage(ports.Page{Cursor: q.Cursor, Limit: threadPageSize})
		if err != nil {
			return ThreadView{}, err
		}
		c, err := h.contacts.GetContact(ctx, q.Workspace, id)
		if err != nil {
			return ThreadView{}, err
		}
		entries, older, err := h.convs.ListEntries(ctx, q.Workspace, id, domain.KeyMode{}, page)
		if err != nil {
			return ThreadView{}, err
		}
		v := ThreadView{Contact: c, Older: older, Failures: map[domain.EntryID]domain.Failure{}, Now: h.clock.Now()}
		for _, e := range entries {
			if e.Direction != domain.Outbound || e.Status != domain.StatusFailed || e.MessageID == "" {
				continue
			}
			m, err := h.messages.GetMessage(ctx, q.Workspace, e.MessageID)
			if err != nil {
				return ThreadView{}, err
			}
			if m.Failure != nil {
				v.Failures[e.ID] = *m.Failure
			}
		}
		if q.Cursor == "" && len(entries) > 0 {
			before, err := h.inbox.MarkThreadRead(ctx, q.Workspace, id, entries[0].ID)
			if err != nil {
				return ThreadView{}, err
			}
			if i := slices.IndexFunc(entries, func(e domain.Entry) bool { return e.Direction == domain.Inbound }); i >= 0 &&
				domain.IsUnread(entries[i], before) && entries[i].ProviderID != "" {
				_, v.ReceiptError = h.markRead.Handle(ctx, MarkRead{
					Principal: domain.Principal{Workspace: q.Workspace, Mode: entries[i].Mode}, ID: entries[i].ProviderID})
			}
		}
		slices.Reverse(entries)
		v.Entries = entries
		return v, nil
	})
}
