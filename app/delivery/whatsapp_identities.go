package delivery

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// A WhatsApp user has several identities: the number Herald sends to, the
// wa_id Meta reports (which may be another form of that number: Brazil's
// ninth digit, Mexico's 521), a business-scoped user id (BSUID) and a
// username. Herald treats them as one person: what the user writes, the
// statuses of what Herald sent them and their STOP land on the contact
// Herald sent to (decision 0018).

// userContacts are the live contacts an event's user may be.
type userContacts struct {
	// people has the best match in each workspace, the most recently
	// active workspace first.
	people []domain.Contact
	// all is every contact found, for telling whether another contact of
	// a workspace holds a number.
	all []domain.Contact
}

// findUser finds the live contacts that are the user, who wrote from the
// number from (may be empty): in each workspace the contact with their
// BSUID, else with their wa_id, else with their number in any form
// (domain.Contact.Matches); among equals, the most recently active.
func findUser(ctx context.Context, contacts ports.ContactRepository, u domain.WhatsAppUser, from string) (userContacts, error) {
	all, err := contacts.ListContactsOfUser(ctx, domain.ModeLive, u.UserID, []string{u.WaID, from})
	if err != nil {
		return userContacts{}, err
	}
	out := userContacts{all: all}
	best := map[domain.WorkspaceID]int{} // index in out.people
	for _, c := range all {
		m := c.Matches(u, from)
		if m == domain.MatchNone {
			continue
		}
		i, ok := best[c.Workspace]
		switch {
		case !ok:
			best[c.Workspace] = len(out.people)
			out.people = append(out.people, c)
		case m > out.people[i].Matches(u, from):
			out.people[i] = c
		}
	}
	return out, nil
}

// heldElsewhere reports whether another contact of c's workspace found for
// the user has the number key.
func (f userContacts) heldElsewhere(c domain.Contact, key string) bool {
	return slices.ContainsFunc(f.all, func(o domain.Contact) bool {
		return o.ID != c.ID && o.Workspace == c.Workspace && o.NumberKey() == key
	})
}

// forContact is what of u may be recorded on c: all of it, except a wa_id
// that would give c, a contact without a number, the number key of another
// contact of its workspace (two contacts are then one person, and stay
// two).
func (f userContacts) forContact(c domain.Contact, u domain.WhatsAppUser) domain.WhatsAppUser {
	if c.Phone.IsZero() && u.WaID != "" && u.WaID != c.WaID && f.heldElsewhere(c, domain.NumberKey(u.WaID)) {
		u.WaID = ""
	}
	return u
}

// phoneFor is the number to give c, which has none, now that the user's
// wa_id is known: the number people type for it, unless that is not a
// number Herald can address or another contact of c's workspace holds it.
// It is zero when c keeps what it has.
func (f userContacts) phoneFor(c domain.Contact, u domain.WhatsAppUser) domain.PhoneNumber {
	if !c.Phone.IsZero() || u.WaID == "" {
		return domain.PhoneNumber{}
	}
	p, err := domain.PhoneForWaID(u.WaID)
	if err != nil || f.heldElsewhere(c, p.Key()) {
		return domain.PhoneNumber{}
	}
	return p
}

// newContactOf makes the workspace's live contact for a user who wrote
// first (or stopped marketing messages first; item names what): under the number people type for their wa_id; under the wa_id
// alone when it is not a number Herald can address (Herald never drops
// what a person wrote, and logs why the number looked odd); under the
// BSUID alone for a user who came without a number.
func (h *ApplyWebhookEventHandler) newContactOf(ctx context.Context, contacts ports.ContactRepository, ws domain.WorkspaceID, u domain.WhatsAppUser, item string, now time.Time) (domain.Contact, error) {
	var phone domain.PhoneNumber
	if u.WaID != "" {
		p, err := domain.PhoneForWaID(u.WaID)
		if err != nil {
			var de *domain.Error
			why := err.Error()
			if errors.As(err, &de) {
				why = de.Detail
			}
			h.log.Info("contact kept under their WhatsApp id: the number is not one Herald can address",
				"item", item, "why", why)
		}
		phone = p
	}
	c := domain.NewContact(domain.ContactID(h.ids.NewID(domain.PrefixContact)),
		domain.ConversationID(h.ids.NewID(domain.PrefixConversation)), ws, domain.ModeLive, phone, now)
	c.RecordUser(u, now)
	if err := contacts.CreateContact(ctx, c); err != nil {
		return domain.Contact{}, err
	}
	return c, nil
}

// recordRecipient records on m's contact what a status says of its
// recipient when it says something the message does not: a BSUID, a
// username, or a wa_id other than the number sent to and the one Meta
// answered the send with. A BSUID another contact of the workspace holds
// (a user who wrote without their number before) stays there.
func recordRecipient(ctx context.Context, contacts ports.ContactRepository, m domain.Message, u domain.WhatsAppUser, now time.Time) error {
	u, _ = u.Clean()
	digits := strings.TrimPrefix(m.Phone.String(), "+")
	if u.WaID == m.WaID || u.WaID == digits {
		u.WaID = ""
	}
	if u.UserID == "" && u.ParentUserID == "" && u.Username == "" && u.WaID == "" {
		return nil
	}
	c, err := contacts.GetContact(ctx, m.Workspace, m.ContactID)
	if errors.Is(err, domain.ErrContactNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if probe := c; !probe.RecordUser(u, now) {
		return nil
	}
	if u.UserID != "" && u.UserID != c.UserID {
		holders, err := contacts.ListContactsOfUser(ctx, c.Mode, u.UserID, nil)
		if err != nil {
			return err
		}
		if slices.ContainsFunc(holders, func(o domain.Contact) bool { return o.Workspace == c.Workspace && o.ID != c.ID }) {
			u.UserID, u.ParentUserID = "", ""
		}
	}
	_, err = contacts.UpdateContact(ctx, c.Workspace, c.ID, func(c *domain.Contact) error {
		if !c.RecordUser(u, now) {
			return usecase.ErrUnchanged
		}
		return nil
	})
	if errors.Is(err, usecase.ErrUnchanged) {
		return nil
	}
	return err
}

// applyIdentityChange applies WhatsApp's notice that a user changed their
// number or their business-scoped user id to the live contacts that were
// that user, in every workspace (decision 0018). After a change of number
// the contact's wa_id and BSUIDs are the new ones, and its number moves to
// the new one: the old number no longer reaches this person, and may
// reach someone else. It stays when the new one is not a number Herald can
// address, or when another contact of the workspace holds it (two contacts
// are then one person; neither is merged into the other). After a change of
// user id the contact's BSUIDs are the new ones. Nothing is added to the
// thread.
func (h *ApplyWebhookEventHandler) applyIdentityChange(ctx context.Context, r ports.Repos, e ports.IdentityChangeEvent, now time.Time, rep *WebhookReport) error {
	old, _ := e.Old.Clean()
	next, dropped := e.New.Clean()
	if len(dropped) > 0 {
		rep.Skipped = append(rep.Skipped, e.Kind+" notice "+e.ProviderID+": new "+strings.Join(dropped, ", ")+
			" not in WhatsApp's form, not kept")
	}
	if old.IsZero() || next.IsZero() {
		rep.Skipped = append(rep.Skipped, e.Kind+" notice "+e.ProviderID+": names no user Herald can keep")
		return nil
	}
	if e.Kind == ports.UserChangedUserID {
		next.WaID = "" // the number did not change
	}
	was, err := findUser(ctx, r.Contacts, old, old.WaID)
	if err != nil {
		return err
	}
	if len(was.people) == 0 {
		rep.Skipped = append(rep.Skipped, e.Kind+" notice "+e.ProviderID+": no contact is that user")
		return nil
	}
	// What the new identities already belong to, in each workspace.
	holders, err := r.Contacts.ListContactsOfUser(ctx, domain.ModeLive, next.UserID, []string{next.WaID})
	if err != nil {
		return err
	}
	var phone domain.PhoneNumber
	if e.Kind == ports.UserChangedNumber && next.WaID != "" {
		if p, err := domain.PhoneForWaID(next.WaID); err == nil {
			phone = p
		}
	}
	for _, c := range was.people {
		heldBy := func(held func(o domain.Contact) bool) bool {
			return slices.ContainsFunc(holders, func(o domain.Contact) bool {
				return o.Workspace == c.Workspace && o.ID != c.ID && held(o)
			})
		}
		u := next
		if u.UserID != "" && heldBy(func(o domain.Contact) bool { return o.UserID == u.UserID }) {
			u.UserID, u.ParentUserID = "", ""
		}
		move := !phone.IsZero() && !heldBy(func(o domain.Contact) bool { return o.NumberKey() == phone.Key() })
		if !move && c.Phone.IsZero() && u.WaID != "" &&
			heldBy(func(o domain.Contact) bool { return o.NumberKey() == domain.NumberKey(u.WaID) }) {
			u.WaID = "" // it would give c the number key of another contact
		}
		_, err := r.Contacts.UpdateContact(ctx, c.Workspace, c.ID, func(c *domain.Contact) error {
			changed := c.RecordUser(u, now)
			if move && c.Phone != phone {
				c.Phone, c.UpdatedAt, changed = phone, now.UTC().Truncate(time.Microsecond), true
			}
			if !changed {
				return usecase.ErrUnchanged
			}
			return nil
		})
		switch {
		case errors.Is(err, usecase.ErrUnchanged):
			continue
		case err != nil:
			return err
		}
		rep.Identities++
		h.log.Info("WhatsApp user changed their identity; contact updated", "kind", e.Kind,
			"contact_id", string(c.ID), "number_moved", move)
	}
	return nil
}
