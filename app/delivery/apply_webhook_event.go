package delivery

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// WebhookReport says what applying one webhook event did.
type WebhookReport struct {
	Statuses  int // status events that changed a message
	Unchanged int // duplicate or stale status events
	Parked    int // status events for a wamid no message holds yet
	Inbound   int // inbound messages added to threads
	Repeated  int // inbound messages already recorded
	OptedOut  int // contacts who opted out (STOP) by this event
	OptedIn   int // contacts who opted back in (START)
	Templates int // campaigns whose template status changed
	// Identities counts contacts changed by a user's change of number or
	// user id; Foreign counts items for business numbers that are not
	// Herald's (stored, not applied).
	Identities int
	Foreign    int
	// Marketing opt-outs (marketing_opt_out.go): contacts who stopped or
	// resumed marketing messages, campaigns whose template category
	// changed, and messages still waiting to be sent that an opt-out
	// failed.
	MarketingStopped int
	MarketingResumed int
	Categories       int
	QueuedFailed     int
	// Health counts business numbers whose quality or tier changed, and
	// PausedOnRed the marketing campaigns paused because their number's
	// quality turned RED (number_health.go).
	Health      int
	PausedOnRed int
	// Skipped says what was not applied and why, one line each.
	Skipped []string
	// Failed says which items could not be applied, and the error, one
	// line each: the event's other items were applied without them.
	Failed []string

	changes    []webhookTemplateChange // logged once they have committed
	reported   []time.Time             // Meta's timestamps of the statuses applied, for the lag
	categories []webhookCategoryChange
	foreign    map[string]int // items per business number not Herald's
	health     []numberHealthChange
	accounts   []ports.AccountEvent
}

// webhookTemplateChange is a campaign whose template status a webhook
// changed, with Meta's event and reason.
type webhookTemplateChange struct {
	TemplateStatusChange
	event, reason string
}

// add counts what part did.
func (r *WebhookReport) add(part WebhookReport) {
	r.Statuses += part.Statuses
	r.Unchanged += part.Unchanged
	r.Parked += part.Parked
	r.Inbound += part.Inbound
	r.Repeated += part.Repeated
	r.OptedOut += part.OptedOut
	r.OptedIn += part.OptedIn
	r.Templates += part.Templates
	r.Identities += part.Identities
	r.MarketingStopped += part.MarketingStopped
	r.MarketingResumed += part.MarketingResumed
	r.Categories += part.Categories
	r.QueuedFailed += part.QueuedFailed
	r.Health += part.Health
	r.PausedOnRed += part.PausedOnRed
	r.health = append(r.health, part.health...)
	r.accounts = append(r.accounts, part.accounts...)
	r.Skipped = append(r.Skipped, part.Skipped...)
	r.changes = append(r.changes, part.changes...)
	r.categories = append(r.categories, part.categories...)
}

// ApplyWebhookEventHandler applies a stored webhook event: status events to
// their messages, inbound messages to contacts and threads, template status
// changes to campaigns. The event's items and the mark that it was applied
// commit in one transaction, so applying it again changes nothing. An item
// that cannot be applied (a store refusing its data, say) does not hold the
// others back: it is left out, reported in WebhookReport.Failed and logged,
// and the rest commit without it.
type ApplyWebhookEventHandler struct {
	decoder ports.WebhookDecoder
	numbers *foreignNumbers
	tx      ports.Transactor
	events  ports.WebhookEventRepository
	clock   ports.Clock
	ids     ports.IDGenerator
	emit    *usecase.Events
	health  numberHealth
	cfg     Config
	log     *usecase.Logger
	obs     *usecase.Observer
}

// NewApplyWebhookEventHandler builds the handler. Events for business
// numbers that numbers does not call Herald's are stored, not applied. What
// the items change writes its events (emit) in the items' transaction.
func NewApplyWebhookEventHandler(decoder ports.WebhookDecoder, numbers ports.BusinessNumbers, tx ports.Transactor, events ports.WebhookEventRepository, clock ports.Clock, ids ports.IDGenerator, emit *usecase.Events, cfg Config, obs *usecase.Observer) *ApplyWebhookEventHandler {
	return &ApplyWebhookEventHandler{decoder: decoder, numbers: newForeignNumbers(numbers), tx: tx, events: events,
		clock: clock, ids: ids, emit: emit, health: numberHealth{emit: emit, ids: ids, pauseOnRed: !cfg.KeepMarketingOnRed},
		cfg: cfg.WithDefaults(), log: obs.Logger("webhooks"), obs: obs}
}

// Apply applies ev. On failure (the body cannot be decoded, or the store
// cannot be reached) nothing more of it is applied, the failure is recorded
// on the event (best effort) and returned: the event is tried again later,
// or replayed.
func (h *ApplyWebhookEventHandler) Apply(ctx context.Context, ev domain.WebhookEvent) (WebhookReport, error) {
	return usecase.Observe(ctx, h.obs, "apply_webhook_event", func(ctx context.Context) (WebhookReport, error) {
		rep, err := h.apply(ctx, ev)
		if errors.Is(err, domain.ErrConflict) {
			// A contact was created concurrently by a send or another
			// event; the second try finds it.
			rep, err = h.apply(ctx, ev)
		}
		h.obs.Metrics().WebhookApplied(err, lags(rep.reported, h.clock.Now()))
		rep.reported = nil
		if err != nil {
			if _, uerr := h.events.UpdateWebhookEvent(context.WithoutCancel(ctx), ev.ID, func(e *domain.WebhookEvent) error {
				e.Failed(err.Error())
				return nil
			}); uerr != nil {
				h.log.Warn("recording a webhook event's failure failed", "event_id", string(ev.ID), "error", uerr)
			}
			return WebhookReport{}, err
		}
		return h.logged(ev.ID, rep), nil
	})
}

// logged logs what applying event id did, once it has committed, and
// returns rep without what only the log needed.
func (h *ApplyWebhookEventHandler) logged(id domain.WebhookEventID, rep WebhookReport) WebhookReport {
	for _, s := range rep.Skipped {
		h.log.Info("webhook item skipped", "event_id", string(id), "why", s)
	}
	for _, s := range rep.Failed {
		h.log.Error("webhook item not applied; the event's other items were", "event_id", string(id),
			"item", s)
	}
	for _, c := range rep.changes {
		h.log.Info("campaign template status changed by Meta's webhook", "campaign_id", string(c.Campaign),
			"template", c.Template, "from", c.From.String(), "to", c.To.String(),
			"event", c.event, "reason", c.reason)
	}
	h.logCategories(rep.categories)
	h.logHealth(rep.health, rep.accounts)
	rep.changes, rep.categories, rep.health, rep.accounts = nil, nil, nil, nil
	h.numbers.logFirst(h.log, rep.foreign)
	rep.foreign = nil
	return rep
}

// webhookItem is one thing an event reports: a status, an inbound message
// or a template status change.
type webhookItem struct {
	what  string // names the item for reports and logs, never with text or a phone number
	apply func(ctx context.Context, r ports.Repos, rep *WebhookReport) error
	// message orders a status (and the marketing stop that follows it)
	// among the statuses of the events applied together: by our message
	// id, then Meta's wamid. Empty for every other item.
	message string
	// status is the status the item applies, nil for every other item
	// (the marketing stop too): a group applies statuses to the messages
	// it holds (heldMessages).
	status *ports.StatusEvent
}

func (h *ApplyWebhookEventHandler) apply(ctx context.Context, ev domain.WebhookEvent) (WebhookReport, error) {
	batch, err := h.decoder.Decode(ev.Body)
	if err != nil {
		return WebhookReport{}, fmt.Errorf("decoding webhook event %s: %w", ev.ID, err)
	}
	batch = scrubWebhookBatch(batch)
	for _, f := range batch.Errors {
		h.log.Warn("WhatsApp reported an error for the business number", "event_id", string(ev.ID),
			"code", f.Code, "title", f.Title)
	}
	now := h.clock.Now()
	batch, foreign := h.numbers.split(batch)
	items := h.items(batch, ev.ReceivedAt, now)
	rep := WebhookReport{Skipped: slices.Clone(batch.Skipped), foreign: foreign}
	for _, n := range foreign {
		rep.Foreign += n
	}
	// Everything and the mark commit together. When an item fails for a
	// reason of its own, the items before it (which did apply) commit
	// without the mark, the failing one is recorded, and the rest are
	// tried again the same way: one bad item costs one more transaction,
	// never the other items. A store that cannot be reached fails the
	// event, to be tried again whole; what committed before that changes
	// nothing when it is applied again.
	for rest := items; ; {
		part, failedAt, err := h.applyItems(ctx, rest, func(ctx context.Context, r ports.Repos) error {
			_, err := r.Webhooks.UpdateWebhookEvent(ctx, ev.ID, func(e *domain.WebhookEvent) error {
				e.Applied(now)
				return nil
			})
			return err
		})
		if err == nil {
			rep.add(part)
			for _, st := range batch.Statuses {
				rep.reported = append(rep.reported, st.At)
			}
			return rep, nil
		}
		if failedAt < 0 || !itemFault(err) {
			return WebhookReport{}, err
		}
		failed := rest[failedAt].what + ": " + err.Error()
		if failedAt > 0 {
			before, _, err := h.applyItems(ctx, rest[:failedAt], nil)
			if err != nil {
				return WebhookReport{}, err
			}
			rep.add(before)
		}
		rep.Failed = append(rep.Failed, failed)
		rest = rest[failedAt+1:]
	}
}

// applyItems applies items, then then (when not nil), in one transaction.
// It returns what they did and, when an item failed, its index and error;
// failedAt is -1 when the transaction failed otherwise.
func (h *ApplyWebhookEventHandler) applyItems(ctx context.Context, items []webhookItem, then func(context.Context, ports.Repos) error) (rep WebhookReport, failedAt int, err error) {
	err = h.tx.WithinTx(ctx, func(ctx context.Context, r ports.Repos) error {
		rep, failedAt = WebhookReport{}, -1
		for i, it := range items {
			if err := it.apply(ctx, r, &rep); err != nil {
				failedAt = i
				return err
			}
		}
		if then != nil {
			return then(ctx, r)
		}
		return nil
	})
	if err != nil {
		return WebhookReport{}, failedAt, err
	}
	return rep, -1, nil
}

// itemFault reports whether an item's error is the item's own: not a store
// that cannot be reached, a cancelled request or a concurrent write, after
// which the same item may well apply.
func itemFault(err error) bool {
	return !errors.Is(err, ports.ErrUnavailable) && !errors.Is(err, domain.ErrConflict) &&
		!errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
}

// items lists what batch reports, in the order it is applied: statuses in
// message order (two events touching the same messages lock them in one
// order, so they queue instead of deadlocking; a status failed with Meta's
// 131050 is followed by the marketing stop it tells), then inbound
// messages, then identity changes, then template status changes, then
// users' marketing preferences and template category changes. An item
// without a readable time happened when Meta sent it, as near as Herald
// can tell: when the event arrived.
func (h *ApplyWebhookEventHandler) items(batch ports.WebhookBatch, received, now time.Time) []webhookItem {
	statuses := slices.Clone(batch.Statuses)
	for i := range statuses {
		if statuses[i].At.IsZero() {
			statuses[i].At = received
		}
	}
	slices.SortStableFunc(statuses, func(a, b ports.StatusEvent) int {
		return cmp.Or(cmp.Compare(a.MessageID, b.MessageID), cmp.Compare(a.ProviderID, b.ProviderID))
	})
	items := make([]webhookItem, 0, len(statuses)+len(batch.Inbound)+len(batch.IdentityChanges)+len(batch.Templates)+
		len(batch.Preferences)+len(batch.Categories))
	for _, e := range statuses {
		message := string(e.MessageID) + "\x00" + e.ProviderID
		items = append(items, webhookItem{what: statusItemName(e), message: message, status: &e, apply: func(ctx context.Context, r ports.Repos, rep *WebhookReport) error {
			out, m, err := applyStatus(ctx, r, h.emit, e, now)
			if err == nil && out != statusParked {
				err = recordRecipient(ctx, r.Contacts, m, e.Recipient, now)
			}
			switch {
			case errors.Is(err, domain.ErrMessageNotFound):
				rep.Skipped = append(rep.Skipped, "status "+e.Status.String()+" for unknown message "+string(e.MessageID))
			case err != nil:
				return err
			case out == statusApplied:
				rep.Statuses++
			case out == statusUnchanged:
				rep.Unchanged++
			case out == statusParked:
				rep.Parked++
			}
			return nil
		}})
		if e.MarketingStopped {
			stop := h.marketingStopItem(e, now)
			stop.message = message
			items = append(items, stop)
		}
	}
	for _, in := range batch.Inbound {
		if in.Message.At.IsZero() {
			in.Message.At = received
		}
		items = append(items, webhookItem{what: "inbound message " + in.Message.ProviderID, apply: func(ctx context.Context, r ports.Repos, rep *WebhookReport) error {
			return h.applyInbound(ctx, r, in, now, rep)
		}})
	}
	for _, e := range batch.IdentityChanges {
		if e.At.IsZero() {
			e.At = received
		}
		items = append(items, webhookItem{what: e.Kind + " notice " + e.ProviderID, apply: func(ctx context.Context, r ports.Repos, rep *WebhookReport) error {
			return h.applyIdentityChange(ctx, r, e, now, rep)
		}})
	}
	for _, t := range batch.Templates {
		items = append(items, webhookItem{what: "template status " + t.Status.String() + " of " + t.Name + " (" + t.Language + ")",
			apply: func(ctx context.Context, r ports.Repos, rep *WebhookReport) error {
				changed, err := ApplyTemplateStatus(ctx, r, h.emit, h.scope(t.Account), t.Name, t.Language, t.Status, t.Reason, now)
				if err != nil {
					return err
				}
				if err := r.Templates.SetTemplateStatus(ctx, t.Account, t.Name, t.Language, t.Status); err != nil {
					return err
				}
				rep.Templates += len(changed)
				for _, c := range changed {
					rep.changes = append(rep.changes, webhookTemplateChange{c, t.Event, t.Reason})
				}
				return nil
			}})
	}
	items = append(items, h.marketingItems(batch, received, now)...)
	items = append(items, h.healthItems(batch, received, now)...)
	return items
}

// statusItemName names a status event by our message id, or Meta's wamid.
func statusItemName(e ports.StatusEvent) string {
	id := string(e.MessageID)
	if id == "" {
		id = e.ProviderID
	}
	return "status " + e.Status.String() + " of message " + id
}

// applyInbound records a message a contact wrote: live traffic, on live
// contacts. Its sender is found by BSUID, then wa_id, then number in any
// form WhatsApp writes it (findUser), in every workspace. It lands in one
// workspace: the one of our (live) message it answers, else the one whose
// thread with this person was active last, else the default workspace (a
// new contact there, under the number people type for the wa_id, or the
// wa_id alone, or the BSUID alone). A STOP or START applies to the person
// in every workspace: they opted out of the business number, not of one
// team. Test contacts never hear from anyone, and keep their own opt-out.
func (h *ApplyWebhookEventHandler) applyInbound(ctx context.Context, r ports.Repos, in ports.InboundEvent, now time.Time, rep *WebhookReport) error {
	msg := in.Message
	user, dropped := in.User().Clean()
	from := in.From
	if !domain.ValidWaID(from) {
		from = ""
	}
	if len(dropped) > 0 {
		rep.Skipped = append(rep.Skipped, "inbound message "+msg.ProviderID+": "+strings.Join(dropped, ", ")+
			" not in WhatsApp's form, not kept")
	}
	if user.IsZero() {
		rep.Skipped = append(rep.Skipped, "inbound message "+msg.ProviderID+": the sender has neither a WhatsApp id nor a user id")
		return nil
	}
	var answered *domain.Message
	if msg.ReplyTo != "" {
		m, err := r.Messages.LocateMessage(ctx, "", msg.ReplyTo)
		switch {
		case err == nil && m.Mode == domain.ModeLive:
			answered = &m
		case err == nil: // a sandbox wamid: no person ever saw that message
		case !errors.Is(err, domain.ErrMessageNotFound):
			return err
		}
	}
	found, err := findUser(ctx, r.Contacts, user, from)
	if err != nil {
		return err
	}
	var ws domain.WorkspaceID
	switch {
	case answered != nil:
		ws = answered.Workspace
	case len(found.people) > 0:
		ws = found.people[0].Workspace
	default:
		w, err := usecase.EnsureDefaultWorkspace(ctx, r.Workspaces, h.ids, now)
		if err != nil {
			return err
		}
		ws = w.ID
	}
	contacts := found.people
	i := slices.IndexFunc(contacts, func(c domain.Contact) bool { return c.Workspace == ws })
	var contact domain.Contact
	if i >= 0 {
		contact = contacts[i]
	} else {
		if contact, err = h.newContactOf(ctx, r.Contacts, ws, user, "inbound message "+msg.ProviderID, now); err != nil {
			return err
		}
		contacts = append(contacts, contact)
	}
	var replyTo domain.MessageID
	if answered != nil && answered.Workspace == ws {
		replyTo = answered.ID
	}
	entry := domain.InboundEntry(domain.EntryID(h.ids.NewID(domain.PrefixEntry)), contact, msg, replyTo)
	switch err := r.Conversations.AppendEntries(ctx, entry); {
	case errors.Is(err, domain.ErrConflict):
		rep.Repeated++ // a redelivery: its effects were applied the first time
		return nil
	case err != nil:
		return err
	}
	rep.Inbound++
	if f, ok := domain.NewInboundMedia(entry); ok {
		// The contact's file, to fetch through Herald by its med_ id.
		if err := r.Media.CreateMedia(ctx, f, nil); err != nil {
			return err
		}
	}
	if err := h.emit.Inbound(ctx, r.Events, entry, contact, now); err != nil {
		return err
	}
	action := h.cfg.OptKeywords.Action(msg)
	for _, c := range contacts {
		if c.Workspace != ws && action == domain.OptNone {
			continue
		}
		phone, u := found.phoneFor(c, user), found.forContact(c, user)
		var before domain.Contact
		updated, err := r.Contacts.UpdateContact(ctx, c.Workspace, c.ID, func(c *domain.Contact) error {
			before = *c
			if c.Workspace == ws {
				c.RecordInbound(u.WaID, u.ProfileName, msg.At, now)
				if id := h.numbers.numberID(in.Number); id != "" && msg.Kind != domain.KindReaction {
					c.LastNumber = id // their session messages leave from it
				}
				if msg.Kind == domain.KindReaction {
					// Meta does not say a reaction opens the window:
					// Herald does not count one (decision 0024).
					c.LastInboundAt = before.LastInboundAt
				}
				c.RecordUser(u, now)
				if !phone.IsZero() {
					c.Phone = phone
				}
			}
			was := c.OptedOut
			if action != domain.OptNone && c.SetOptOut(action == domain.OptOut, msg.At, now) && c.OptedOut != was {
				if c.OptedOut {
					rep.OptedOut++
				} else {
					rep.OptedIn++
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		if err := h.emit.Contact(ctx, r.Events, before, updated, now); err != nil {
			return err
		}
		if action == domain.OptOut {
			n, err := StopQueued(ctx, r, h.emit, updated, now)
			if err != nil {
				return err
			}
			rep.QueuedFailed += n
		}
	}
	if action != domain.OptNone {
		h.log.Info("contact changed their subscription by keyword", "message", msg.ProviderID,
			"opted_out", action == domain.OptOut, "contacts", len(contacts))
	}
	return nil
}

// lags are the times from each of Meta's timestamps to now.
func lags(reported []time.Time, now time.Time) []time.Duration {
	if len(reported) == 0 {
		return nil
	}
	out := make([]time.Duration, 0, len(reported))
	for _, at := range reported {
		if !at.IsZero() {
			out = append(out, now.Sub(at))
		}
	}
	return out
}
