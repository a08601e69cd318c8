package delivery

import (
	"context"
	"time"

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
// campaign that uses it, and returns the campaigns that changed.
func ApplyTemplateStatus(ctx context.Context, camps ports.CampaignRepository, name, language string, st domain.TemplateStatus, now time.Time) ([]TemplateStatusChange, error) {
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
	return out, nil
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
