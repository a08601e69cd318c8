package dashboard

import (
	"net/http"
	"strings"

	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

type contactsPage struct {
	Phone    string
	Contacts []domain.Contact
	Next     string
}

// contacts lists contacts newest first, or those whose number starts with
// the digits searched for.
func (h *dash) contacts(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	p := contactsPage{Phone: q.Get("phone")}
	page, err := h.d.ListContacts.Handle(r.Context(), app.ListContacts{Workspace: operator(r).session.Workspace,
		Phone: p.Phone, Page: ports.Page{Cursor: q.Get("cursor")}})
	v := view{Title: "Contacts", Nav: "contacts"}
	if err != nil {
		msg := formError(err)
		if msg == "" {
			h.failErr(w, r, err)
			return
		}
		v.Error, v.Page = msg, p
		h.render(w, r, http.StatusUnprocessableEntity, "contacts", v)
		return
	}
	p.Contacts, p.Next = page.Contacts, page.NextCursor
	v.Page = p
	h.render(w, r, http.StatusOK, "contacts", v)
}

type contactPage struct {
	Contact domain.Contact
	// Form is the tags and opt-out form, as typed when it was refused.
	Form    contactForm
	Entries []domain.Entry
	Next    string
	// Buttons are each sent message's buttons, as the recipient sees them.
	Buttons map[domain.EntryID][]previewButton
}

// contactForm is the contact's tags (comma-separated) and opt-out state.
type contactForm struct {
	Tags     string
	OptedOut bool
}

// contact shows a contact and its thread, newest first.
func (h *dash) contact(w http.ResponseWriter, r *http.Request) {
	h.contactWith(w, r, http.StatusOK, view{}, nil)
}

// contactWith shows the contact page; f, when not nil, is the edit form
// as typed.
func (h *dash) contactWith(w http.ResponseWriter, r *http.Request, status int, v view, f *contactForm) {
	page, err := h.d.Conversation.Handle(r.Context(), app.ListConversation{
		Principal: domain.Principal{Workspace: operator(r).session.Workspace}, ContactID: r.PathValue("id"),
		Page: ports.Page{Cursor: r.URL.Query().Get("cursor"), Limit: 50}})
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	p := contactPage{Contact: page.Contact, Entries: page.Entries, Next: page.NextCursor, Buttons: map[domain.EntryID][]previewButton{},
		Form: contactForm{Tags: strings.Join(page.Contact.Tags, ", "), OptedOut: page.Contact.OptedOut}}
	if f != nil {
		p.Form = *f
	}
	for _, e := range page.Entries {
		if e.Direction != domain.Outbound || e.MessageID == "" || h.d.GetMessage == nil {
			continue
		}
		m, err := h.d.GetMessage.Handle(r.Context(), app.GetMessage{Principal: domain.Principal{Workspace: operator(r).session.Workspace},
			MessageID: string(e.MessageID)})
		if err != nil {
			continue // the thread still shows the message's text
		}
		slots := make([]domain.Slot, len(m.Values))
		for i, v := range m.Values {
			slots[i] = v.Slot
		}
		if bs := partsOf(domain.Template{Slots: slots}).Buttons; len(bs) > 0 {
			p.Buttons[e.ID] = bs
		}
	}
	v.Title, v.Nav, v.Page = page.Contact.Handle(), "contacts", p
	h.render(w, r, status, "contact", v)
}
