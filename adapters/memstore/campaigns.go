package memstore

import (
	"cmp"
	"context"
	"slices"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// CreateCampaign stores a new campaign.
func (r *repos) CreateCampaign(ctx context.Context, c domain.Campaign) error {
	defer r.enter(ctx)()
	if _, ok := r.st.campaigns[c.ID]; ok {
		return conflict("a campaign with this id exists")
	}
	put(r.st, r.st.campaigns, c.ID, canonicalLanguage(copyCampaign(c)))
	return nil
}

// GetCampaign returns one of the workspace's campaigns.
func (r *repos) GetCampaign(ctx context.Context, ws domain.WorkspaceID, id domain.CampaignID) (domain.Campaign, error) {
	defer r.enter(ctx)()
	c, ok := r.st.campaigns[id]
	if !ok || c.Workspace != ws {
		return domain.Campaign{}, domain.NotFound(domain.ErrCampaignNotFound)
	}
	return copyCampaign(c), nil
}

// GetCampaigns returns the campaigns with the ids, by id.
func (r *repos) GetCampaigns(ctx context.Context, ids []domain.CampaignID) ([]domain.Campaign, error) {
	defer r.enter(ctx)()
	out := []domain.Campaign{}
	for _, id := range slices.Compact(slices.Sorted(slices.Values(ids))) {
		if c, ok := r.st.campaigns[id]; ok {
			out = append(out, copyCampaign(c))
		}
	}
	return out, nil
}

// ListCampaigns returns one page of the workspace's campaigns, newest first.
func (r *repos) ListCampaigns(ctx context.Context, ws domain.WorkspaceID, p ports.Page) ([]domain.Campaign, string, error) {
	defer r.enter(ctx)()
	var all []domain.Campaign
	for _, c := range r.st.campaigns {
		if c.Workspace == ws {
			all = append(all, c)
		}
	}
	out, next := page(all, func(c domain.Campaign) string { return string(c.ID) }, p)
	for i := range out {
		out[i] = copyCampaign(out[i])
	}
	return out, next, nil
}

// UpdateCampaign runs fn on the campaign and stores the result if fn
// succeeds.
func (r *repos) UpdateCampaign(ctx context.Context, ws domain.WorkspaceID, id domain.CampaignID, fn func(*domain.Campaign) error) (domain.Campaign, error) {
	defer r.enter(ctx)()
	old, ok := r.st.campaigns[id]
	if !ok || old.Workspace != ws {
		return domain.Campaign{}, domain.NotFound(domain.ErrCampaignNotFound)
	}
	c := copyCampaign(old)
	if err := fn(&c); err != nil {
		return domain.Campaign{}, err
	}
	c.ID, c.Workspace = old.ID, old.Workspace
	c = canonicalLanguage(copyCampaign(c))
	put(r.st, r.st.campaigns, id, c)
	return copyCampaign(c), nil
}

// ListCampaignsByTemplate returns, across workspaces, the campaigns that
// send the template name in language (in any of the forms Meta writes),
// oldest first.
func (r *repos) ListCampaignsByTemplate(ctx context.Context, name, language string) ([]domain.Campaign, error) {
	defer r.enter(ctx)()
	language = domain.CanonicalLanguage(language)
	out := []domain.Campaign{}
	for _, c := range r.st.campaigns {
		if c.Template.Name == name && c.Template.Language == language {
			out = append(out, copyCampaign(c))
		}
	}
	slices.SortFunc(out, func(a, b domain.Campaign) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}

// canonicalLanguage stores the campaign's template language in canonical
// form, as sqlstore does.
func canonicalLanguage(c domain.Campaign) domain.Campaign {
	c.Template.Language = domain.CanonicalLanguage(c.Template.Language)
	return c
}

func copyCampaign(c domain.Campaign) domain.Campaign {
	c.Template.Placeholders = slices.Clone(c.Template.Placeholders)
	c.Template.Slots = slices.Clone(c.Template.Slots)
	c.Template.Buttons = slices.Clone(c.Template.Buttons)
	c.CreatedAt, c.UpdatedAt = utc(c.CreatedAt), utc(c.UpdatedAt)
	return c
}
