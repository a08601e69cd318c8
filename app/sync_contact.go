package app

import (
	"context"
	"errors"

	"github.com/heraldhq/herald/app/delivery"
	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// SyncContact creates or updates the contact with a phone number.
type SyncContact struct {
	Principal   domain.Principal
	PhoneNumber string
	Changes     domain.ContactSync
}

// SyncContactResult is the contact after the sync and whether it is new.
type SyncContactResult struct {
	Contact domain.Contact
	Created bool
}

// SyncContactHandler upserts contacts by phone number: the contact of the
// key's mode, so a test key never changes what live sends see (a name, an
// opt-out), nor the other way round. A principal without a mode (the
// dashboard's operator) works on the live contact. A sync that opts the
// contact out fails their messages still waiting to be sent.
type SyncContactHandler struct {
	tx     ports.Transactor
	clock  ports.Clock
	ids    ports.IDGenerator
	events *usecase.Events
	obs    *usecase.Observer
}

// NewSyncContactHandler builds the handler. An opt-out or opt-in writes its
// contact event, and each message it fails its message.failed, in the
// sync's transaction.
func NewSyncContactHandler(tx ports.Transactor, clock ports.Clock, ids ports.IDGenerator, events *usecase.Events, obs *usecase.Observer) *SyncContactHandler {
	return &SyncContactHandler{tx: tx, clock: clock, ids: ids, events: events, obs: obs}
}

// Handle applies the changes atomically; invalid changes store nothing.
func (h *SyncContactHandler) Handle(ctx context.Context, cmd SyncContact) (SyncContactResult, error) {
	return usecase.Observe(ctx, h.obs, "sync_contact", func(ctx context.Context) (SyncContactResult, error) {
		phone, err := domain.ParsePhoneNumber(cmd.PhoneNumber)
		if err != nil {
			return SyncContactResult{}, err
		}
		ws, mode := cmd.Principal.Workspace, cmd.Principal.Mode
		if mode.IsZero() {
			mode = domain.ModeLive
		}
		now := h.clock.Now()
		var res SyncContactResult
		sync := func(ctx context.Context, r ports.Repos) error {
			c, err := r.Contacts.GetContactByPhone(ctx, ws, mode, phone)
			if errors.Is(err, domain.ErrContactNotFound) {
				c = domain.NewContact(domain.ContactID(h.ids.NewID(domain.PrefixContact)),
					domain.ConversationID(h.ids.NewID(domain.PrefixConversation)), ws, mode, phone, now)
				if err := c.ApplySync(cmd.Changes, now); err != nil {
					return err
				}
				res = SyncContactResult{Contact: c, Created: true}
				if err := r.Contacts.CreateContact(ctx, c); err != nil {
					return err
				}
				return h.events.Contact(ctx, r.Events, domain.Contact{}, c, now)
			}
			if err != nil {
				return err
			}
			var before domain.Contact
			c, err = r.Contacts.UpdateContact(ctx, ws, c.ID, func(c *domain.Contact) error {
				before = *c
				return c.ApplySync(cmd.Changes, now)
			})
			res = SyncContactResult{Contact: c}
			if err != nil {
				return err
			}
			if err := h.events.Contact(ctx, r.Events, before, c, now); err != nil {
				return err
			}
			if before.OptedOut || !c.OptedOut {
				return nil
			}
			// Opted out now: what still waits to be sent to them fails
			// with the opt-out, in the same transaction.
			_, err = delivery.StopQueued(ctx, r, h.events, c, now)
			return err
		}
		err = h.tx.WithinTx(ctx, sync)
		if errors.Is(err, domain.ErrConflict) {
			err = h.tx.WithinTx(ctx, sync) // created concurrently: update it instead
		}
		if err != nil {
			return SyncContactResult{}, err
		}
		return res, nil
	})
}
