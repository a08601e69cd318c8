package delivery

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// StopQueued fails at once, in the caller's transaction, the messages to c
// that are still waiting to be sent and that c no longer takes (all of them
// after an opt-out, the marketing ones after a stop of marketing messages),
// with Herald's code contact_opted_out. A send already in flight is left to
// its dispatcher, which reads the contact again right before sending. It
// returns how many messages failed; each failure writes its
// message.failed event.
func StopQueued(ctx context.Context, r ports.Repos, ev *usecase.Events, c domain.Contact, now time.Time) (int, error) {
	if !c.OptedOut && !c.Marketing.Stopped {
		return 0, nil
	}
	failed, err := r.Queue.FailQueuedMessages(ctx, c, now)
	if err != nil {
		return 0, err
	}
	return len(failed), ev.FailedMessages(ctx, r, c.Workspace, failed, now)
}

// marketingOutcome is what setMarketing changed.
type marketingOutcome struct {
	stopped, resumed int // contacts whose marketing state flipped
	queuedFailed     int // waiting marketing messages failed by a stop
}

// setMarketing records a user's stop (stopped) or resume of the business's
// marketing messages, said at the time at, on contacts: the user's live
// contacts in every workspace (Meta keeps the preference per business, not
// per team), found as a reply or a STOP finds them (findUser,
// recipientsOf). The latest word wins (domain.Contact.SetMarketingOptOut);
// a stop fails the contacts' marketing messages still waiting to be sent.
// Each change writes its contact event, and each failure its message
// event.
func setMarketing(ctx context.Context, r ports.Repos, ev *usecase.Events, contacts []domain.Contact, stopped bool, at, now time.Time) (marketingOutcome, error) {
	var out marketingOutcome
	for _, c := range contacts {
		var before domain.Contact
		c, err := r.Contacts.UpdateContact(ctx, c.Workspace, c.ID, func(c *domain.Contact) error {
			before = *c
			if !c.SetMarketingOptOut(stopped, at, now) {
				return usecase.ErrUnchanged
			}
			return nil
		})
		switch {
		case errors.Is(err, usecase.ErrUnchanged):
			continue // an older word, or the same one again
		case err != nil:
			return out, err
		}
		switch {
		case c.Marketing.Stopped && !before.Marketing.Stopped:
			out.stopped++
		case !c.Marketing.Stopped && before.Marketing.Stopped:
			out.resumed++
		}
		if err := ev.Contact(ctx, r.Events, before, c, now); err != nil {
			return out, err
		}
		n, err := StopQueued(ctx, r, ev, c, now)
		if err != nil {
			return out, err
		}
		out.queuedFailed += n
	}
	return out, nil
}

// recipientsOf finds the live contacts that are the person live message m
// was sent to: m's own contact in its workspace and, in the other
// workspaces, the contact found for the same user (findUser: BSUID, then
// wa_id, then number in any form) from what a status says of its
// recipient, the wa_id Meta answered the send with, and the number sent
// to.
func recipientsOf(ctx context.Context, contacts ports.ContactRepository, m domain.Message, recipient domain.WhatsAppUser) ([]domain.Contact, error) {
	u, _ := recipient.Clean()
	if u.WaID == "" && domain.ValidWaID(m.WaID) {
		u.WaID = m.WaID
	}
	found, err := findUser(ctx, contacts, u, strings.TrimPrefix(m.Phone.String(), "+"))
	if err != nil {
		return nil, err
	}
	var out []domain.Contact
	own, err := contacts.GetContact(ctx, m.Workspace, m.ContactID)
	switch {
	case err == nil:
		out = append(out, own)
	case !errors.Is(err, domain.ErrContactNotFound):
		return nil, err
	}
	for _, c := range found.people {
		if len(out) > 0 && c.Workspace == m.Workspace {
			continue // m's own contact is the one sent to
		}
		out = append(out, c)
	}
	return out, nil
}
