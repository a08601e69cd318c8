package delivery

import (
	"context"
	"errors"
	"time"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// optedOutError is why the dispatcher did not send a claimed message: its
// contact opted out (of every message, or of marketing ones) after the
// message was claimed.
type optedOutError struct{ failure *domain.Failure }

func (e *optedOutError) Error() string { return e.failure.Title }

// optOut reads m's contact's opt-out state right before its send and
// returns the failure the message gets if the contact no longer takes it,
// or nil. The campaign is read only for a contact who stopped marketing
// messages, to know whether its template is marketing. A contact or
// campaign that cannot be found stops nothing here: the send goes on as
// before.
func (d *Dispatcher) optOut(ctx context.Context, m domain.Message) (*domain.Failure, error) {
	st, err := d.optOuts.GetOptOutState(ctx, m.Workspace, m.ContactID)
	switch {
	case errors.Is(err, domain.ErrContactNotFound):
		return nil, nil
	case err != nil:
		return nil, err
	case st.Receives():
		return nil, nil
	}
	var cat domain.TemplateCategory
	if m.IsSession() {
		return st.SessionFailure(), nil // stopping marketing stops templates only
	}
	if !st.OptedOut {
		camp, err := d.camps.GetCampaign(ctx, m.Workspace, m.CampaignID)
		if err != nil && !errors.Is(err, domain.ErrCampaignNotFound) {
			return nil, err
		}
		cat = camp.Category
	}
	return st.Failure(cat), nil
}

// stopIfOptedOut fails m, released for a retry in r's transaction, with the
// other messages waiting for its contact, when the contact opted out since
// it was claimed; it reports whether it did.
func (d *Dispatcher) stopIfOptedOut(ctx context.Context, r ports.Repos, m domain.Message, now time.Time) (bool, error) {
	c, err := r.Contacts.GetContact(ctx, m.Workspace, m.ContactID)
	switch {
	case errors.Is(err, domain.ErrContactNotFound):
		return false, nil
	case err != nil:
		return false, err
	case !c.OptedOut && !c.Marketing.Stopped:
		return false, nil
	}
	failed, err := r.Queue.FailQueuedMessages(ctx, c, now)
	if err != nil {
		return false, err
	}
	if err := d.emit.FailedMessages(ctx, r, c.Workspace, failed, now); err != nil {
		return false, err
	}
	for _, id := range failed {
		if id == m.ID {
			return true, nil
		}
	}
	return false, nil
}
