package app

import (
	"context"

	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// GetCampaign reads one campaign with its statistics: of the key's mode's
// messages only, or every mode's for the dashboard's operator.
type GetCampaign struct {
	Principal  domain.Principal
	CampaignID string
}

// CampaignView is a campaign with its statistics: of the caller's mode for
// a key, of every mode for the dashboard's operator, who also gets them per
// mode in ByMode (zero for a key).
type CampaignView struct {
	Campaign domain.Campaign
	Stats    domain.CampaignStats
	ByMode   domain.ModeStats
}

// GetCampaignHandler answers GetCampaign.
type GetCampaignHandler struct {
	camps ports.CampaignRepository
	stats ports.MessageStatsReader
	obs   *usecase.Observer
}

// NewGetCampaignHandler builds the handler.
func NewGetCampaignHandler(camps ports.CampaignRepository, stats ports.MessageStatsReader, obs *usecase.Observer) *GetCampaignHandler {
	return &GetCampaignHandler{camps: camps, stats: stats, obs: obs}
}

// Handle returns the campaign or campaign_not_found.
func (h *GetCampaignHandler) Handle(ctx context.Context, q GetCampaign) (CampaignView, error) {
	return usecase.Observe(ctx, h.obs, "get_campaign", func(ctx context.Context) (CampaignView, error) {
		id, err := domain.ParseCampaignID(q.CampaignID)
		if err != nil {
			return CampaignView{}, err
		}
		c, err := h.camps.GetCampaign(ctx, q.Principal.Workspace, id)
		if err != nil {
			return CampaignView{}, err
		}
		stats, byMode, err := campaignStats(ctx, h.stats, q.Principal.Workspace, id, q.Principal.Mode)
		if err != nil {
			return CampaignView{}, err
		}
		return CampaignView{Campaign: c, Stats: stats, ByMode: byMode}, nil
	})
}
