package app

import (
	"context"
	"strings"

	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// ListContacts lists a workspace's contacts, newest first, optionally only
// those whose number starts with Phone. Phone may be written loosely
// ("49 151 2345", "+49151…"): spaces, dashes, dots and parentheses are
// dropped and a leading "+" is added.
type ListContacts struct {
	Workspace domain.WorkspaceID
	Phone     string
	Page      ports.Page
}

// ContactPage is one page of contacts and the cursor of the next.
type ContactPage struct {
	Contacts   []domain.Contact
	NextCursor string
}

// ListContactsHandler answers ListContacts.
type ListContactsHandler struct {
	contacts ports.ContactRepository
	obs      *usecase.Observer
}

// NewListContactsHandler builds the handler.
func NewListContactsHandler(contacts ports.ContactRepository, obs *usecase.Observer) *ListContactsHandler {
	return &ListContactsHandler{contacts: contacts, obs: obs}
}

// Handle returns one page. A Phone with anything but digits after
// cleaning is invalid_phone_number.
func (h *ListContactsHandler) Handle(ctx context.Context, q ListContacts) (ContactPage, error) {
	return usecase.Observe(ctx, h.obs, "list_contacts", func(ctx context.Context) (ContactPage, error) {
		page, err := checkPage(q.Page)
		if err != nil {
			return ContactPage{}, err
		}
		prefix, err := phonePrefix(q.Phone)
		if err != nil {
			return ContactPage{}, err
		}
		cs, next, err := h.contacts.ListContacts(ctx, q.Workspace, ports.ContactFilter{PhonePrefix: prefix}, page)
		return ContactPage{Contacts: cs, NextCursor: next}, err
	})
}

// phonePrefix cleans a searched number into the E.164 prefix it stands for.
func phonePrefix(s string) (string, error) {
	s = strings.Map(func(r rune) rune {
		if strings.ContainsRune(" -.()\u00a0", r) {
			return -1
		}
		return r
	}, s)
	s = strings.TrimPrefix(s, "+")
	if s == "" {
		return "", nil
	}
	if len(s) > 15 || strings.Trim(s, "0123456789") != "" {
		return "", &domain.Error{Code: domain.CodeInvalidPhoneNumber, Param: "phone",
			Detail: "search by the digits of a number, such as +49151 or 49151"}
	}
	return "+" + s, nil
}
