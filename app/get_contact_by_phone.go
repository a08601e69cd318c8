package app

import (
	"context"

	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// GetContactByPhone looks a contact up by phone number.
type GetContactByPhone struct {
	Principal   domain.Principal
	PhoneNumber string
}

// GetContactByPhoneHandler answers GetContactByPhone.
type GetContactByPhoneHandler struct {
	contacts ports.ContactRepository
	obs      *usecase.Observer
}

// NewGetContactByPhoneHandler builds the handler.
func NewGetContactByPhoneHandler(contacts ports.ContactRepository, obs *usecase.Observer) *GetContactByPhoneHandler {
	return &GetContactByPhoneHandler{contacts: contacts, obs: obs}
}

// Handle validates the number (invalid_phone_number) and returns the
// contact of the key's mode or contact_not_found. The number may be in any
// form WhatsApp writes it, Mexico's +521… included, which E.164 refuses:
// +5582999448232 and +558299448232 find one contact.
func (h *GetContactByPhoneHandler) Handle(ctx context.Context, q GetContactByPhone) (domain.Contact, error) {
	return usecase.Observe(ctx, h.obs, "get_contact_by_phone", func(ctx context.Context) (domain.Contact, error) {
		phone, err := domain.ParseWhatsAppNumber(q.PhoneNumber)
		if err != nil {
			return domain.Contact{}, err
		}
		return h.contacts.GetContactByPhone(ctx, q.Principal.Workspace, q.Principal.Mode, phone)
	})
}
