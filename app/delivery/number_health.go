package delivery

import (
	"context"
	"errors"
	"time"

	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// numberHealth records what Meta says of a business number's health (its
// phone numbers endpoint, its quality webhooks): the change is kept in the
// number's history and copied onto the number; a change of quality is
// told to the workspaces concerned (phone_number.quality_changed); and a
// quality that turns RED pauses the number's active marketing campaigns,
// unless the server is configured to keep them (KeepMarketingOnRed), each
// with its reason and its campaign.status_changed. All of it is written in
// the caller's transaction.
type numberHealth struct {
	emit       *usecase.Events
	ids        ports.IDGenerator
	pauseOnRed bool
}

// healthOutcome is what recording one reading did.
type healthOutcome struct {
	changed bool
	change  domain.HealthChange
	paused  []domain.CampaignID
}

func (nh numberHealth) record(ctx context.Context, r ports.Repos, n domain.BusinessNumber, rd domain.HealthReading, now time.Time) (healthOutcome, error) {
	ch, changed, err := r.Health.RecordPhoneHealth(ctx, n.MetaID, rd)
	if err != nil || !changed {
		return healthOutcome{}, err
	}
	out := healthOutcome{changed: true, change: ch}
	if n, err = r.Numbers.UpdateNumber(ctx, n.ID, func(b *domain.BusinessNumber) error {
		b.Quality, b.Tier, b.HealthCheckedAt = ch.Quality, ch.Tier, now.UTC().Truncate(time.Microsecond)
		return nil
	}); err != nil {
		return healthOutcome{}, err
	}
	if !ch.QualityChanged() {
		return out, nil
	}
	campaigns, err := r.Health.ListCampaignsOnNumber(ctx, n.ID)
	if err != nil {
		return healthOutcome{}, err
	}
	if ch.TurnedRed() && nh.pauseOnRed {
		for _, c := range campaigns {
			if c.Status != domain.CampaignActive || !c.Category.IsMarketing() {
				continue
			}
			paused, err := nh.pause(ctx, r, c, now)
			if err != nil {
				return healthOutcome{}, err
			}
			if paused {
				out.paused = append(out.paused, c.ID)
			}
		}
	}
	workspaces := n.Workspaces
	if n.AllWorkspaces {
		// A number every workspace may use is told to those with a
		// campaign on it, and to the default workspace.
		ws, err := usecase.EnsureDefaultWorkspace(ctx, r.Workspaces, nh.ids, now)
		if err != nil {
			return healthOutcome{}, err
		}
		workspaces = []domain.WorkspaceID{ws.ID}
		for _, c := range campaigns {
			workspaces = append(workspaces, c.Workspace)
		}
	}
	return out, nh.emit.NumberQuality(ctx, r.Events, workspaces, n, ch, now)
}

// pause pauses c for its number's RED quality, and writes its
// campaign.status_changed; false when c was no longer active.
func (nh numberHealth) pause(ctx context.Context, r ports.Repos, c domain.Campaign, now time.Time) (bool, error) {
	previous := c.Status
	c, err := r.Campaigns.UpdateCampaign(ctx, c.Workspace, c.ID, func(c *domain.Campaign) error {
		previous = c.Status
		if !c.PauseFor(domain.PausedQualityRed, now) {
			return usecase.ErrUnchanged
		}
		return nil
	})
	if errors.Is(err, usecase.ErrUnchanged) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, nh.emit.CampaignStatus(ctx, r.Events, c, previous, now)
}

// healthItems are the items of batch's health webhooks: each number's
// quality or tier, then the account notices, which are logged.
func (h *ApplyWebhookEventHandler) healthItems(batch ports.WebhookBatch, received, now time.Time) []webhookItem {
	var items []webhookItem
	for _, e := range batch.Health {
		if e.At.IsZero() {
			e.At = received
		}
		what := "messaging limit of account " + e.Account
		if e.DisplayNumber != "" {
			what = "quality update " + e.Event + " of a number of account " + e.Account
		}
		items = append(items, webhookItem{what: what, apply: func(ctx context.Context, r ports.Repos, rep *WebhookReport) error {
			return h.applyHealth(ctx, r, e, what, now, rep)
		}})
	}
	for _, a := range batch.Accounts {
		items = append(items, webhookItem{what: a.Field + " " + a.Event + " of account " + a.Account,
			apply: func(_ context.Context, _ ports.Repos, rep *WebhookReport) error {
				rep.accounts = append(rep.accounts, a)
				return nil
			}})
	}
	return items
}

// applyHealth records a health event for each of Herald's numbers it names:
// the number with its display number in the event's account (quality
// updates name no phone_number_id), or every number of the account (a
// capability update).
func (h *ApplyWebhookEventHandler) applyHealth(ctx context.Context, r ports.Repos, e ports.NumberHealthEvent, what string, now time.Time, rep *WebhookReport) error {
	numbers, err := r.Numbers.ListNumbers(ctx)
	if err != nil {
		return err
	}
	reading := domain.HealthReading{Quality: e.Quality, Tier: e.Tier, Source: domain.HealthFromWebhook, Event: e.Event, At: e.At}
	found := false
	for _, n := range numbers {
		if !healthEventNames(e, n) {
			continue
		}
		found = true
		out, err := h.health.record(ctx, r, n, reading, now)
		if err != nil {
			return err
		}
		if out.changed {
			rep.Health++
			rep.health = append(rep.health, numberHealthChange{number: n.ID, healthOutcome: out})
		}
		rep.PausedOnRed += len(out.paused)
	}
	if !found {
		rep.Skipped = append(rep.Skipped, what+": no number of Herald's")
	}
	return nil
}

// healthEventNames reports whether e is about n: n is in e's account and,
// when e names a number, has its display number (compared by digits: Meta
// formats it on the endpoint, not in webhooks).
func healthEventNames(e ports.NumberHealthEvent, n domain.BusinessNumber) bool {
	if e.Account != "" && n.WABAID != e.Account {
		return false
	}
	return e.DisplayNumber == "" || digits(n.DisplayNumber) == e.DisplayNumber
}

func digits(s string) string {
	b := make([]byte, 0, len(s))
	for i := range len(s) {
		if s[i] >= '0' && s[i] <= '9' {
			b = append(b, s[i])
		}
	}
	return string(b)
}

// numberHealthChange is a number's health change a webhook made, for the
// log.
type numberHealthChange struct {
	number domain.BusinessNumberID
	healthOutcome
}

// logHealth logs the health changes and account notices of an applied
// event.
func (h *ApplyWebhookEventHandler) logHealth(changes []numberHealthChange, accounts []ports.AccountEvent) {
	for _, c := range changes {
		h.log.Info("business number health changed by Meta's webhook", "number_id", string(c.number),
			"quality", string(c.change.Quality), "previous_quality", string(c.change.PreviousQuality),
			"tier", string(c.change.Tier), "previous_tier", string(c.change.PreviousTier), "event", c.change.Event)
		for _, id := range c.paused {
			h.log.Warn("marketing campaign paused: its number's quality turned RED", "number_id", string(c.number),
				"campaign_id", string(id))
		}
	}
	for _, a := range accounts {
		h.log.Warn("WhatsApp account notice from Meta (recorded, not acted on)", "account", a.Account, "field", a.Field,
			"event", a.Event, "severity", a.Severity, "status", a.Status, "entity_type", a.EntityType, "entity_id", a.EntityID,
			"description", a.Description)
	}
}
