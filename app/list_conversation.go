package app

import (
	"context"

	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// ListConversation reads one page of a contact's thread, newest first.
type ListConversation struct {
	Principal domain.Principal
	ContactID string
	Page      ports.Page
}

// ConversationPage is one page of a thread and the cursor of the next.
type ConversationPage struct {
	Contact    domain.Contact
	Entries    []domain.Entry
	NextCursor string
}

// ListConversationHandler answers ListConversation.
type ListConversationHandler struct {
	contacts ports.ContactRepository
	convs    ports.ConversationRepository
	obs      *usecase.Observer
}

// NewListConversationHandler builds the handler.
func NewListConversationHandler(contacts ports.ContactRepository, convs ports.ConversationRepository, obs *usecase.Observer) *ListConversationHandler {
	return &ListConversationHandler{contacts: contacts, convs: convs, obs: obs}
}

// Handle returns the page, or contact_not_found: for a contact of another
// mode than the key's too. A key sees the entries of its own mode; the
// dashboard's operator sees them all.
func (h *ListConversationHandler) Handle(ctx context.Context, q ListConversation) (ConversationPage, error) {
	return usecase.Observe(ctx, h.obs, "list_conversation", func(ctx context.Context) (ConversationPage, error) {
		id, err := domain.ParseContactID(q.ContactID)
		if err != nil {
			return ConversationPage{}, err
		}
		page, err := checkPage(q.Page)
		if err != nil {
			return ConversationPage{}, err
		}
		c, err := h.contacts.GetContact(ctx, q.Principal.Workspace, id)
		if err != nil {
			return ConversationPage{}, err
		}
		if !q.Principal.Sees(c.Mode) {
			return ConversationPage{}, domain.NotFound(domain.ErrContactNotFound)
		}
		entries, next, err := h.convs.ListEntries(ctx, q.Principal.Workspace, id, q.Principal.Mode, page)
		if err != nil {
			return ConversationPage{}, err
		}
		return ConversationPage{Contact: c, Entries: entries, NextCursor: next}, nil
	})
}
