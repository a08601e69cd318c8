package app

import (
	"context"

	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// ListCampaigns lists a workspace's campaigns, newest first, each with the
// statistics of Mode's messages (a key's mode; zero, for the dashboard,
// counts every mode).
type ListCampaigns struct {
	Workspace domain.WorkspaceID
	Mode      domain.KeyMode
	Page      ports.Page
}

// CampaignPage is one page of campaigns and the cursor of the next.
type CampaignPage struct {
	Campaigns  []CampaignView
	NextCursor string
}

// ListCampaignsHandler answers ListCampaigns.
type ListCampaignsHandler struct {
	camps ports.CampaignRepository
	stats ports.MessageStatsReader
	obs   *usecase.Observer
}

// NewListCampaignsHandler builds the handler.
func NewListCampaignsHandler(camps ports.CampaignRepository, stats ports.MessageStatsReader, obs *usecase.Observer) *ListCampaignsHandler {
	return &ListCampaignsHandler{camps: camps, stats: stats, obs: obs}
}

// Handle returns one page, each campaign with its statistics.
func (h *ListCampaignsHandler) Handle(ctx context.Context, q ListCampaigns) (CampaignPage, error) {
	return usecase.Observe(ctx, h.obs, "list_campaigns", func(ctx context.Context) (CampaignPage, error) {
		page, err := checkPage(q.Page)
		if err != nil {
			return CampaignPage{}, err
		}
		cs, next, err := h.camps.ListCampaigns(ctx, q.Workspace, page)
		if err != nil {
			return CampaignPage{}, err
		}
		out := CampaignPage{Campaigns: make([]CampaignView, 0, len(cs)), NextCursor: next}
		for _, c := range cs {
			stats, byMode, err := campaignStats(ctx, h.stats, q.Workspace, c.ID, q.Mode)
			if err != nil {
				return CampaignPage{}, err
			}
			out.Campaigns = append(out.Campaigns, CampaignView{Campaign: c, Stats: stats, ByMode: byMode})
		}
		return out, nil
	})
}
