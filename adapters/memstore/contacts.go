package memstore

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// phoneKey is a value unique among a workspace's contacts of a mode: a
// number key ("n:" and domain.Contact.NumberKey, the number in any form) or
// a BSUID ("u:" and the id).
type phoneKey struct {
	ws   domain.WorkspaceID
	mode domain.KeyMode
	key  string
}

// numberKey is the key a phone number is found by.
func numberKey(ws domain.WorkspaceID, mode domain.KeyMode, p domain.PhoneNumber) phoneKey {
	return phoneKey{ws, mode, "n:" + p.Key()}
}

// contactKeys are the unique keys c holds.
func contactKeys(c domain.Contact) []phoneKey {
	var ks []phoneKey
	if k := c.NumberKey(); k != "" {
		ks = append(ks, phoneKey{c.Workspace, c.Mode, "n:" + k})
	}
	if c.UserID != "" {
		ks = append(ks, phoneKey{c.Workspace, c.Mode, "u:" + c.UserID})
	}
	return ks
}

// takeKeys moves the keys from those of old (nil for a new contact) to
// those of c, after checking that none of c's is held by another contact.
func (r *repos) takeKeys(old *domain.Contact, c domain.Contact) error {
	for _, k := range contactKeys(c) {
		if id, ok := r.st.contactIDs[k]; ok && id != c.ID {
			return conflict("a contact with this number or BSUID exists")
		}
	}
	if old != nil {
		for _, k := range contactKeys(*old) {
			del(r.st, r.st.contactIDs, k)
		}
	}
	for _, k := range contactKeys(c) {
		put(r.st, r.st.contactIDs, k, c.ID)
	}
	return nil
}

// CreateContact stores a new contact; its number, in any form, and its
// BSUID must be unused in the workspace and mode.
func (r *repos) CreateContact(ctx context.Context, c domain.Contact) error {
	defer r.enter(ctx)()
	if _, ok := r.st.contacts[c.ID]; ok {
		return conflict("a contact with this id exists")
	}
	if err := r.takeKeys(nil, c); err != nil {
		return err
	}
	put(r.st, r.st.contacts, c.ID, copyContact(c))
	return nil
}

// GetContact returns one of the workspace's contacts.
func (r *repos) GetContact(ctx context.Context, ws domain.WorkspaceID, id domain.ContactID) (domain.Contact, error) {
	defer r.enter(ctx)()
	c, ok := r.st.contacts[id]
	if !ok || c.Workspace != ws {
		return domain.Contact{}, domain.NotFound(domain.ErrContactNotFound)
	}
	return copyContact(c), nil
}

// GetContactByPhone returns the workspace's contact of mode with this phone
// number, in any form.
func (r *repos) GetContactByPhone(ctx context.Context, ws domain.WorkspaceID, mode domain.KeyMode, phone domain.PhoneNumber) (domain.Contact, error) {
	defer r.enter(ctx)()
	id, ok := r.st.contactIDs[numberKey(ws, mode, phone)]
	if !ok {
		return domain.Contact{}, domain.NotFound(domain.ErrContactNotFound)
	}
	return copyContact(r.st.contacts[id]), nil
}

// ListContactsByPhone returns the contacts of mode with this phone number,
// in any form, in every workspace, the most recently active first
// (contacts without a last message last), then by id.
func (r *repos) ListContactsByPhone(ctx context.Context, mode domain.KeyMode, phone domain.PhoneNumber) ([]domain.Contact, error) {
	defer r.enter(ctx)()
	return r.listContacts(func(c domain.Contact) bool { return c.Mode == mode && c.NumberKey() == phone.Key() }), nil
}

// ListContactsOfUser returns the contacts of mode, in every workspace, whose
// BSUID is userID, whose wa_id is one of waIDs or whose number key is the
// key of one of them, ordered as ListContactsByPhone.
func (r *repos) ListContactsOfUser(ctx context.Context, mode domain.KeyMode, userID string, waIDs []string) ([]domain.Contact, error) {
	defer r.enter(ctx)()
	return r.listContacts(func(c domain.Contact) bool {
		if c.Mode != mode {
			return false
		}
		if userID != "" && c.UserID == userID {
			return true
		}
		for _, w := range waIDs {
			if w != "" && (c.WaID == w || c.NumberKey() == domain.NumberKey(w)) {
				return true
			}
		}
		return false
	}), nil
}

// listContacts returns the contacts keep keeps, the most recently active
// first (contacts without a last message last), then by id.
func (r *repos) listContacts(keep func(domain.Contact) bool) []domain.Contact {
	out := []domain.Contact{}
	for _, c := range r.st.contacts {
		if keep(c) {
			out = append(out, copyContact(c))
		}
	}
	slices.SortFunc(out, func(a, b domain.Contact) int {
		switch {
		case a.LastMessageAt == nil && b.LastMessageAt != nil:
			return 1
		case a.LastMessageAt != nil && b.LastMessageAt == nil:
			return -1
		case a.LastMessageAt != nil:
			if c := b.LastMessageAt.Compare(*a.LastMessageAt); c != 0 {
				return c
			}
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return out
}

// ListContacts returns one page of the workspace's contacts, newest first,
// keeping only numbers that start with f.PhonePrefix when it is set, and
// only f.Mode's contacts when it is set.
func (r *repos) ListContacts(ctx context.Context, ws domain.WorkspaceID, f ports.ContactFilter, p ports.Page) ([]domain.Contact, string, error) {
	defer r.enter(ctx)()
	var all []domain.Contact
	for _, c := range r.st.contacts {
		if c.Workspace == ws && strings.HasPrefix(c.Phone.String(), f.PhonePrefix) && (f.Mode.IsZero() || c.Mode == f.Mode) {
			all = append(all, c)
		}
	}
	out, next := page(all, func(c domain.Contact) string { return string(c.ID) }, p)
	for i := range out {
		out[i] = copyContact(out[i])
	}
	return out, next, nil
}

// UpdateContact runs fn on the contact and stores the result if fn succeeds.
// A new number, in any form, or BSUID must be unused in the workspace and
// mode.
func (r *repos) UpdateContact(ctx context.Context, ws domain.WorkspaceID, id domain.ContactID, fn func(*domain.Contact) error) (domain.Contact, error) {
	defer r.enter(ctx)()
	old, ok := r.st.contacts[id]
	if !ok || old.Workspace != ws {
		return domain.Contact{}, domain.NotFound(domain.ErrContactNotFound)
	}
	c := copyContact(old)
	if err := fn(&c); err != nil {
		return domain.Contact{}, err
	}
	c.ID, c.Workspace, c.Mode, c.ConversationID = old.ID, old.Workspace, old.Mode, old.ConversationID
	if err := r.takeKeys(&old, c); err != nil {
		return domain.Contact{}, err
	}
	c = copyContact(c)
	put(r.st, r.st.contacts, id, c)
	return copyContact(c), nil
}

// FindContactsByPhone returns the workspace's contacts of mode with these
// phone numbers, in any form, ordered by number key; unknown numbers, and
// numbers asked for twice, add nothing. The store's lock is the only lock: inside
// a transaction nothing else runs until it ends.
func (r *repos) FindContactsByPhone(ctx context.Context, ws domain.WorkspaceID, mode domain.KeyMode, phones []domain.PhoneNumber) ([]domain.Contact, error) {
	defer r.enter(ctx)()
	out := []domain.Contact{}
	seen := make(map[domain.ContactID]bool, len(phones))
	for _, p := range phones {
		id, ok := r.st.contactIDs[numberKey(ws, mode, p)]
		if !ok || seen[id] {
			continue
		}
		seen[id] = true
		out = append(out, copyContact(r.st.contacts[id]))
	}
	slices.SortFunc(out, func(a, b domain.Contact) int { return cmp.Compare(a.NumberKey(), b.NumberKey()) })
	return out, nil
}

// SaveContacts creates the contacts with new ids and replaces those of the
// same workspace and mode, all or nothing. A number key or BSUID must be
// free before the call, or held by the contact that keeps it, and carried
// by one contact of the call: so two contacts cannot swap numbers in one
// call, as a row at a time unique check would refuse too.
func (r *repos) SaveContacts(ctx context.Context, cs ...domain.Contact) error {
	defer r.enter(ctx)()
	ids := make(map[domain.ContactID]bool, len(cs))
	phones := make(map[phoneKey]bool, len(cs))
	for _, c := range cs {
		if ids[c.ID] {
			return fmt.Errorf("memstore: save contacts: contact %s appears twice", c.ID)
		}
		ids[c.ID] = true
		if old, ok := r.st.contacts[c.ID]; ok && (old.Workspace != c.Workspace || old.Mode != c.Mode) {
			return conflict("another workspace or mode holds a contact with this id")
		}
		for _, pk := range contactKeys(c) {
			if id, ok := r.st.contactIDs[pk]; (ok && id != c.ID) || phones[pk] {
				return conflict("a contact with this number or BSUID exists")
			}
			phones[pk] = true
		}
	}
	for _, c := range cs {
		if old, ok := r.st.contacts[c.ID]; ok {
			for _, k := range contactKeys(old) {
				del(r.st, r.st.contactIDs, k)
			}
		}
	}
	for _, c := range cs {
		for _, k := range contactKeys(c) {
			put(r.st, r.st.contactIDs, k, c.ID)
		}
		put(r.st, r.st.contacts, c.ID, copyContact(c))
	}
	return nil
}

func copyContact(c domain.Contact) domain.Contact {
	c.Attributes = maps.Clone(c.Attributes)
	c.Tags = slices.Clone(c.Tags)
	c.CreatedAt, c.UpdatedAt = utc(c.CreatedAt), utc(c.UpdatedAt)
	c.LastMessageAt = utcPtr(c.LastMessageAt)
	c.LastInboundAt = utcPtr(c.LastInboundAt)
	c.OptOutChangedAt = utcPtr(c.OptOutChangedAt)
	c.Marketing.ChangedAt = utcPtr(c.Marketing.ChangedAt)
	return c
}
