package httpapi

import (
	"net/http"

	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/domain"
)

type contactDTO struct {
	ID          string            `json:"id"`
	PhoneNumber *string           `json:"phoneNumber"`
	Name        string            `json:"name"`
	Email       string            `json:"email"`
	Attributes  map[string]string `json:"attributes"`
	Tags        []string          `json:"tags"`
	OptedOut    bool              `json:"optedOut"`
	// MarketingOptedOut says the contact stopped the business's marketing
	// messages on WhatsApp: marketing campaigns are refused, utility and
	// authentication ones still go.
	MarketingOptedOut bool    `json:"marketingOptedOut"`
	WaID              *string `json:"waId"`
	ProfileName       *string `json:"profileName"`
	UserID            *string `json:"userId"`
	ParentUserID      *string `json:"parentUserId"`
	Username          *string `json:"username"`
	CreatedAt         string  `json:"createdAt"`
	UpdatedAt         string  `json:"updatedAt"`
	LastMessageAt     *string `json:"lastMessageAt"`
	// ServiceWindowExpiresAt is when the contact's 24-hour
	// customer-service window closes (or closed); null when they never
	// wrote.
	ServiceWindowExpiresAt *string `json:"serviceWindowExpiresAt"`
	ConversationID         string  `json:"conversationId"`
}

func toContactDTO(c domain.Contact) contactDTO {
	out := contactDTO{ID: string(c.ID), PhoneNumber: nonEmpty(c.Phone.String()), Name: c.Name, Email: c.Email,
		Attributes: c.Attributes, Tags: c.Tags, OptedOut: c.OptedOut, MarketingOptedOut: c.Marketing.Stopped,
		CreatedAt: rfc3339(c.CreatedAt),
		UpdatedAt: rfc3339(c.UpdatedAt), LastMessageAt: rfc3339Ptr(c.LastMessageAt), ConversationID: string(c.ConversationID),
		ServiceWindowExpiresAt: serviceWindow(c),
		WaID:                   nonEmpty(c.WaID), ProfileName: nonEmpty(c.ProfileName), UserID: nonEmpty(c.UserID),
		ParentUserID: nonEmpty(c.ParentUserID), Username: nonEmpty(c.Username)}
	if out.Attributes == nil {
		out.Attributes = map[string]string{}
	}
	if out.Tags == nil {
		out.Tags = []string{}
	}
	return out
}

// contactsGet serves GET /v1/contacts/by-phone/{phone} and
// GET /v1/contacts/{id}/conversation.
func (a *api) contactsGet(w http.ResponseWriter, r *http.Request) {
	first, second := r.PathValue("first"), r.PathValue("second")
	switch {
	case first == "by-phone":
		a.contactByPhone(w, r, second)
	case second == "conversation":
		a.conversation(w, r, first)
	default:
		writeProblem(w, r, CodeNotFound, "", "no route for "+r.URL.Path)
	}
}

func (a *api) contactByPhone(w http.ResponseWriter, r *http.Request, phone string) {
	// PathValue unescapes, so "%2B1415…" and "+1415…" both arrive as "+1415…".
	// A space (a "+" that a client form-encoded) is not a "+": it fails as
	// an invalid number rather than matching a contact by accident. Any
	// form WhatsApp writes of the number finds the contact (app).
	c, err := a.d.ContactByPhone.Handle(r.Context(), app.GetContactByPhone{
		Principal: principalFrom(r.Context()), PhoneNumber: phone})
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	writeJSON(w, http.StatusOK, toContactDTO(c))
}

type syncContactRequest struct {
	PhoneNumber string            `json:"phoneNumber"`
	Name        *string           `json:"name"`
	Email       *string           `json:"email"`
	Attributes  map[string]string `json:"attributes"`
	Tags        []string          `json:"tags"`
	OptedOut    *bool             `json:"optedOut"`
}

var syncContactSpec = bodySpec{
	fields:   []string{"phoneNumber", "name", "email", "attributes", "tags", "optedOut"},
	required: []string{"phoneNumber"},
}

func (a *api) syncContact(w http.ResponseWriter, r *http.Request) {
	var in syncContactRequest
	if !a.decodeBody(w, r, syncContactSpec, &in) {
		return
	}
	res, err := a.d.SyncContact.Handle(r.Context(), app.SyncContact{
		Principal: principalFrom(r.Context()), PhoneNumber: in.PhoneNumber,
		Changes: domain.ContactSync{Name: in.Name, Email: in.Email, Attributes: in.Attributes, Tags: in.Tags, OptedOut: in.OptedOut},
	})
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	status := http.StatusOK
	if res.Created {
		status = http.StatusCreated
	}
	writeJSON(w, status, toContactDTO(res.Contact))
}

type entryDTO struct {
	ID                string         `json:"id"`
	Direction         string         `json:"direction"`
	Type              string         `json:"type"`
	MessageID         *string        `json:"messageId"`
	Status            *string        `json:"status"`
	Body              string         `json:"body"`
	ProviderMessageID *string        `json:"providerMessageId"`
	Payload           *string        `json:"payload"`
	Media             *attachmentDTO `json:"media"`
	ReplyTo           *string        `json:"replyTo"`
	CreatedAt         string         `json:"createdAt"`
}

type attachmentDTO struct {
	ID       string  `json:"id"`
	MediaID  string  `json:"mediaId"` // Herald's: GET /v1/media/{mediaId}/content reads the file
	MimeType string  `json:"mimeType"`
	SHA256   *string `json:"sha256"`
	Filename *string `json:"filename"`
}

func toEntryDTO(e domain.Entry) entryDTO {
	d := entryDTO{ID: string(e.ID), Direction: e.Direction.String(), Type: e.Kind, Body: e.Body, CreatedAt: rfc3339(e.CreatedAt),
		MessageID: nonEmpty(string(e.MessageID)), ProviderMessageID: nonEmpty(e.ProviderID), Payload: nonEmpty(e.Payload),
		ReplyTo: nonEmpty(string(e.ReplyTo))}
	if !e.Status.IsZero() {
		s := e.Status.String()
		d.Status = &s
	}
	if e.Media != nil {
		d.Media = &attachmentDTO{ID: e.Media.ID, MediaID: string(domain.InboundMediaID(e.ID)), MimeType: e.Media.MimeType, SHA256: nonEmpty(e.Media.SHA256), Filename: nonEmpty(e.Media.Filename)}
	}
	return d
}

type conversationDTO struct {
	ContactID      string     `json:"contactId"`
	ConversationID string     `json:"conversationId"`
	Data           []entryDTO `json:"data"`
	NextCursor     *string    `json:"nextCursor"`
}

func (a *api) conversation(w http.ResponseWriter, r *http.Request, contactID string) {
	page, err := pageFrom(r)
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	res, err := a.d.Conversation.Handle(r.Context(), app.ListConversation{
		Principal: principalFrom(r.Context()), ContactID: contactID, Page: page})
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	out := conversationDTO{ContactID: string(res.Contact.ID), ConversationID: string(res.Contact.ConversationID),
		Data: make([]entryDTO, len(res.Entries)), NextCursor: nonEmpty(res.NextCursor)}
	for i, e := range res.Entries {
		out.Data[i] = toEntryDTO(e)
	}
	writeJSON(w, http.StatusOK, out)
}

// serviceWindow is when c's customer-service window closes, or nil.
func serviceWindow(c domain.Contact) *string {
	if at, ok := c.ServiceWindowExpiresAt(); ok {
		return rfc3339Ptr(&at)
	}
	return nil
}
