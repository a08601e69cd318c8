package delivery

import (
	"context"
	"slices"
	"time"

	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// What Meta says of a template applies to every campaign that sends it, in
// every workspace: a status from a send's refusal (the dispatcher), a
// webhook (ApplyWebhookEventHandler) or a template sync (app's
// SyncTemplatesHandler); a category from a webhook or a sync.

// TemplateStatusChange is one campaign whose template Meta moved to another
// status.
type TemplateStatusChange struct {
	Workspace domain.WorkspaceID
	Campaign  domain.CampaignID
	Template  string // name (language)
	From, To  domain.TemplateStatus
}

// ApplyTemplateStatus records Meta's status of one template on every
// campaign that uses it, in r's transaction, and returns the campaigns
// that changed. Each workspace whose campaigns changed gets its
// template.status_changed event (once per mode), naming them, with Meta's
// reason when it gave one.
func ApplyTemplateStatus(ctx context.Context, r ports.Repos, ev *usecase.Events, name, language string, st domain.TemplateStatus, reason string, now time.Time) ([]TemplateStatusChange, error) {
	camps := r.Campaigns
	list, err := camps.ListCampaignsByTemplate(ctx, name, language)
	if err != nil {
		return nil, err
	}
	var out []TemplateStatusChange
	for _, c := range list {
		if c.TemplateStatus == st {
			continue
		}
		from := c.TemplateStatus
		if _, err := camps.UpdateCampaign(ctx, c.Workspace, c.ID, func(c *domain.Campaign) error {
			c.SetTemplateStatus(st, now)
			return nil
		}); err != nil {
			return nil, err
		}
		out = append(out, TemplateStatusChange{Workspace: c.Workspace, Campaign: c.ID,
			Template: name + " (" + language + ")", From: from, To: st})
	}
	return out, templateEvents(ctx, r.Events, ev, out, name, language, st, reason, now)
}

// templateEvents writes the template.status_changed events of changes, one
// template's: for each workspace, in the order its campaigns first appear,
// the campaigns that changed there and the status the first of them had.
func templateEvents(ctx context.Context, w ports.EventWriter, ev *usecase.Events, changes []TemplateStatusChange, name, language string, st domain.TemplateStatus, reason string, now time.Time) error {
	var order []domain.WorkspaceID
	byWS := map[domain.WorkspaceID]*ports.TemplateStatusChange{}
	for _, c := range changes {
		ch, ok := byWS[c.Workspace]
		if !ok {
			ch = &ports.TemplateStatusChange{Name: name, Language: language, Previous: c.From, Status: st,
				Reason: reason, At: now}
			byWS[c.Workspace] = ch
			order = append(order, c.Workspace)
		}
		if !slices.Contains(ch.Campaigns, c.Campaign) {
			ch.Campaigns = append(ch.Campaigns, c.Campaign)
		}
	}
	for _, ws := range order {
		if err := ev.TemplateStatus(ctx, w, ws, *byWS[ws], now); err != nil {
			return err
		}
	}
	return nil
}

// ApplyTemplateCategory records Meta's category of one template on every
// campaign that uses it, in every workspace, and returns the campaigns that
// changed.
func ApplyTemplateCategory(ctx context.Context, camps ports.CampaignRepository, name, language string, cat domain.TemplateCategory, now time.Time) ([]TemplateCategoryChange, error) {
	if cat.IsZero() {
		return nil, nil
	}
	list, err := camps.ListCampaignsByTemplate(ctx, name, language)
	if err != nil {
		return nil, err
	}
	var out []TemplateCategoryChange
	for _, c := range list {
		if c.Category == cat {
			continue
		}
		from := c.Category
		if _, err := camps.UpdateCampaign(ctx, c.Workspace, c.ID, func(c *domain.Campaign) error {
			c.SetCategory(cat, now)
			return nil
		}); err != nil {
			return nil, err
		}
		out = append(out, TemplateCategoryChange{Workspace: c.Workspace, Campaign: c.ID,
			Template: name + " (" + language + ")", From: from, To: cat})
	}
	return out, nil
}

// TemplateCategoryChange is one campaign whose template Meta moved to
// another category.
type TemplateCategoryChange struct {
	Workspace domain.WorkspaceID
	Campaign  domain.CampaignID
	Template  string // name (language)
	From, To  domain.TemplateCategory
}
