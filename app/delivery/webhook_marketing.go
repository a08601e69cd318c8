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

// webhookCategoryChange is a template category change Meta reported, with
// the campaigns it moved and, for a change Meta announces, the category to
// come.
type webhookCategoryChange struct {
	template   string // name (language)
	changed    []TemplateCategoryChange
	to         domain.TemplateCategory
	upcoming   domain.TemplateCategory
	upcomingAt time.Time
}

// marketingItems are the items of batch's marketing webhooks: users'
// stops and resumes of marketing messages, then template category changes.
func (h *ApplyWebhookEventHandler) marketingItems(batch ports.WebhookBatch, received, now time.Time) []webhookItem {
	var items []webhookItem
	for _, p := range batch.Preferences {
		if p.At.IsZero() {
			p.At = received
		}
		what := "marketing resume"
		if p.Stopped {
			what = "marketing stop"
		}
		items = append(items, webhookItem{what: what + " from a user", apply: func(ctx context.Context, r ports.Repos, rep *WebhookReport) error {
			return h.applyMarketingPreference(ctx, r, p, what, now, rep)
		}})
	}
	for _, c := range batch.Categories {
		ref := c.Name + " (" + c.Language + ")"
		items = append(items, webhookItem{what: "template category " + c.Category.String() + " of " + ref,
			apply: func(ctx context.Context, r ports.Repos, rep *WebhookReport) error {
				changed, err := ApplyTemplateCategory(ctx, r, h.scope(c.Account), c.Name, c.Language, c.Category, now)
				if err != nil {
					return err
				}
				if err := r.Templates.SetTemplateCategory(ctx, c.Account, c.Name, c.Language, c.Category); err != nil {
					return err
				}
				rep.Categories += len(changed)
				rep.categories = append(rep.categories, webhookCategoryChange{template: ref, changed: changed, to: c.Category,
					upcoming: c.Upcoming, upcomingAt: c.UpcomingAt})
				return nil
			}})
	}
	return items
}

// applyMarketingPreference applies a user's stop or resume of marketing
// messages to the live contacts that are the user, in every workspace,
// found as their reply or STOP would be (findUser: BSUID, then wa_id, then
// number in any form), so a Brazilian wa_id without the ninth digit or a
// Mexican 521… lands on the contact Herald sent to. A stop from a user no
// workspace knows makes their live contact in the default workspace (as a
// first message from them would), so a first marketing send there is
// refused too; a resume from such a user changes nothing.
func (h *ApplyWebhookEventHandler) applyMarketingPreference(ctx context.Context, r ports.Repos, p ports.MarketingPreferenceEvent, what string, now time.Time, rep *WebhookReport) error {
	user, dropped := p.User.Clean()
	switch {
	case user.IsZero() && len(dropped) > 0:
		rep.Skipped = append(rep.Skipped, what+": the user's "+strings.Join(dropped, ", ")+" not in WhatsApp's form")
		return nil
	case user.IsZero():
		rep.Skipped = append(rep.Skipped, what+": the user has neither a WhatsApp id nor a user id")
		return nil
	case len(dropped) > 0:
		rep.Skipped = append(rep.Skipped, what+": "+strings.Join(dropped, ", ")+" not in WhatsApp's form, not kept")
	}
	found, err := findUser(ctx, r.Contacts, user, "")
	if err != nil {
		return err
	}
	contacts := found.people
	if len(contacts) == 0 {
		if !p.Stopped {
			return nil
		}
		ws, err := usecase.EnsureDefaultWorkspace(ctx, r.Workspaces, h.ids, now)
		if err != nil {
			return err
		}
		c, err := h.newContactOf(ctx, r.Contacts, ws.ID, user, what, now)
		if err != nil {
			return err
		}
		contacts = append(contacts, c)
	}
	out, err := setMarketing(ctx, r, h.emit, contacts, p.Stopped, p.At, now)
	if err != nil {
		return err
	}
	rep.MarketingStopped += out.stopped
	rep.MarketingResumed += out.resumed
	rep.QueuedFailed += out.queuedFailed
	return nil
}

// marketingStopItem records what a failed status with Meta's 131050 says:
// the recipient stopped the business's marketing messages, at the status's
// time. It applies to the contact Herald sent to and the same person in
// other workspaces (recipientsOf), like a user_preferences stop. A status whose message is not known yet (parked) or is a sandbox
// message records nothing; Meta's user_preferences webhook says it too.
func (h *ApplyWebhookEventHandler) marketingStopItem(e ports.StatusEvent, now time.Time) webhookItem {
	ref := string(e.MessageID)
	if ref == "" {
		ref = e.ProviderID
	}
	return webhookItem{what: "marketing stop told by the failure of message " + ref,
		apply: func(ctx context.Context, r ports.Repos, rep *WebhookReport) error {
			m, err := r.Messages.LocateMessage(ctx, e.MessageID, e.ProviderID)
			if errors.Is(err, domain.ErrMessageNotFound) && e.MessageID != "" && e.ProviderID != "" {
				m, err = r.Messages.LocateMessage(ctx, "", e.ProviderID)
			}
			switch {
			case errors.Is(err, domain.ErrMessageNotFound):
				return nil
			case err != nil:
				return err
			case m.Mode != domain.ModeLive:
				return nil
			}
			contacts, err := recipientsOf(ctx, r.Contacts, m, e.Recipient)
			if err != nil {
				return err
			}
			out, err := setMarketing(ctx, r, h.emit, contacts, true, e.At, now)
			if err != nil {
				return err
			}
			rep.MarketingStopped += out.stopped
			rep.QueuedFailed += out.queuedFailed
			return nil
		}}
}

// logCategories logs the template category changes of an applied event.
func (h *ApplyWebhookEventHandler) logCategories(changes []webhookCategoryChange) {
	for _, ch := range changes {
		for _, c := range ch.changed {
			h.log.Info("campaign template category changed by Meta's webhook", "campaign_id", string(c.Campaign),
				"template", c.Template, "from", c.From.String(), "to", c.To.String())
		}
		if !ch.upcoming.IsZero() {
			h.log.Info("Meta announced a template category change; the next category event or template sync applies it",
				"template", ch.template, "now", ch.to.String(), "upcoming", ch.upcoming.String(),
				"at", ch.upcomingAt)
		}
	}
}

// scope is the template scope of a webhook about account's templates: the
// entry's id, which for template webhooks is the business account's.
func (h *ApplyWebhookEventHandler) scope(account string) TemplateScope {
	return TemplateScope{Account: account, Default: h.cfg.TemplateAccount}
}
