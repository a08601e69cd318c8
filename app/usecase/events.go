package usecase

import (
	"context"
	"slices"
	"time"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// Events writes the events a change reports (decision 0020), through the
// change's transaction (ports.Repos.Events), so that a change that rolls
// back leaves no event: each method is called inside the transaction,
// after the change it reports, with the values as the change left them.
// The data is rendered there, by the ports.EventRenderer, from those
// values; ids come from the id generator (domain.PrefixEvent) and the time
// is the change's own. A nil *Events writes nothing: a unit test of other
// behaviour may leave it out; app.Module always provides one.
type Events struct {
	ids     ports.IDGenerator
	render  ports.EventRenderer
	metrics ports.Metrics
}

// NewEvents builds the writer of events.
func NewEvents(ids ports.IDGenerator, render ports.EventRenderer) *Events {
	return &Events{ids: ids, render: render, metrics: ports.NoMetrics{}}
}

// WithMetrics returns a copy of e that also counts each message reaching
// a status (ports.Metrics.MessageStatus) once its transaction commits.
func (e *Events) WithMetrics(m ports.Metrics) *Events {
	c := *e
	c.metrics = m
	return &c
}

// Message writes the event of m reaching its status, when its status is
// not before's and is one that has an event (domain.EventTypeForStatus):
// sent, delivered, read or failed. A status webhook that changes nothing
// (a late delivered after read) makes none. The event is of m's mode.
func (e *Events) Message(ctx context.Context, w ports.EventWriter, before domain.MessageStatus, m domain.Message, now time.Time) error {
	if e == nil {
		return nil
	}
	if m.Status == before {
		return nil
	}
	t, ok := domain.EventTypeForStatus(m.Status)
	if !ok {
		return nil
	}
	if e.metrics != nil {
		mode, status, failure := m.Mode, m.Status, m.Failure
		AfterCommit(ctx, func() { e.metrics.MessageStatus(mode, status, failure) })
	}
	data, err := e.render.RenderMessage(m)
	if err != nil {
		return err
	}
	return e.append(ctx, w, m.Workspace, m.Mode, t, string(m.ID), data, now)
}

// FailedMessages writes message.failed for each of the workspace's
// messages ids, which a change failed in this transaction without
// reading them (ports.MessageQueue.FailQueuedMessages).
func (e *Events) FailedMessages(ctx context.Context, r ports.Repos, ws domain.WorkspaceID, ids []domain.MessageID, now time.Time) error {
	if e == nil {
		return nil
	}
	for _, id := range ids {
		m, err := r.Messages.GetMessage(ctx, ws, id)
		if err != nil {
			return err
		}
		if err := e.Message(ctx, r.Events, domain.StatusQueued, m, now); err != nil {
			return err
		}
	}
	return nil
}

// Inbound writes message.received for entry, which contact wrote, of the
// entry's mode (live: it came from Meta). Its subject is the contact's id,
// as for the contact's own events: on each endpoint a person's messages
// and opt-outs arrive in the order they happened.
func (e *Events) Inbound(ctx context.Context, w ports.EventWriter, entry domain.Entry, contact domain.Contact, now time.Time) error {
	if e == nil {
		return nil
	}
	data, err := e.render.RenderInbound(entry, contact)
	if err != nil {
		return err
	}
	return e.append(ctx, w, entry.Workspace, entry.Mode, domain.EventMessageReceived, string(contact.ID), data, now)
}

// Contact writes contact.opted_out when c stopped taking messages it took
// before (an opt-out, or a stop of marketing messages), and
// contact.opted_in when it takes again what it had stopped; was is the
// contact before the change. A change that turns one off and the other
// on is told as an opt-out. The event is of c's mode; its subject is c's
// id (see Inbound).
func (e *Events) Contact(ctx context.Context, w ports.EventWriter, was, c domain.Contact, now time.Time) error {
	if e == nil {
		return nil
	}
	var t domain.EventType
	switch {
	case c.OptedOut && !was.OptedOut, c.Marketing.Stopped && !was.Marketing.Stopped:
		t = domain.EventContactOptedOut
	case !c.OptedOut && was.OptedOut, !c.Marketing.Stopped && was.Marketing.Stopped:
		t = domain.EventContactOptedIn
	default:
		return nil
	}
	data, err := e.render.RenderContact(c)
	if err != nil {
		return err
	}
	return e.append(ctx, w, c.Workspace, c.Mode, t, string(c.ID), data, now)
}

// TemplateStatus writes template.status_changed for a workspace whose
// campaigns send the template whose status changed, naming those
// campaigns, once per mode: a verdict concerns both modes' sends alike.
func (e *Events) TemplateStatus(ctx context.Context, w ports.EventWriter, ws domain.WorkspaceID, ch ports.TemplateStatusChange, now time.Time) error {
	if e == nil {
		return nil
	}
	ch.Campaigns = slices.Clone(ch.Campaigns)
	slices.Sort(ch.Campaigns)
	data, err := e.render.RenderTemplateStatus(ch)
	if err != nil {
		return err
	}
	return e.eachMode(ctx, w, ws, domain.EventTemplateStatusChanged, data, now)
}

// CampaignStatus writes campaign.status_changed for c, whose status was
// previous, once per mode: a paused campaign refuses both modes' sends.
// Nothing is written when the status did not change.
func (e *Events) CampaignStatus(ctx context.Context, w ports.EventWriter, c domain.Campaign, previous domain.CampaignStatus, now time.Time) error {
	if e == nil {
		return nil
	}
	if c.Status == previous {
		return nil
	}
	data, err := e.render.RenderCampaignStatus(c, previous)
	if err != nil {
		return err
	}
	return e.eachMode(ctx, w, c.Workspace, domain.EventCampaignStatusChanged, data, now)
}

func (e *Events) eachMode(ctx context.Context, w ports.EventWriter, ws domain.WorkspaceID, t domain.EventType, data []byte, now time.Time) error {
	es := make([]domain.Event, 0, 2)
	for _, mode := range []domain.KeyMode{domain.ModeLive, domain.ModeTest} {
		ev, err := domain.NewEvent(domain.EventID(e.ids.NewID(domain.PrefixEvent)), ws, mode, t, "", data, now)
		if err != nil {
			return err
		}
		es = append(es, ev)
	}
	return w.AppendEvents(ctx, es...)
}

func (e *Events) append(ctx context.Context, w ports.EventWriter, ws domain.WorkspaceID, mode domain.KeyMode, t domain.EventType, subject string, data []byte, now time.Time) error {
	ev, err := domain.NewEvent(domain.EventID(e.ids.NewID(domain.PrefixEvent)), ws, mode, t, subject, data, now)
	if err != nil {
		return err
	}
	return w.AppendEvents(ctx, ev)
}
