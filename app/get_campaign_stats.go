package app

import (
	"context"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// GetCampaignStats reads a campaign's message counts and rates.
type GetCampaignStats struct {
	Principal  domain.Principal
	CampaignID string
}

// GetCampaignStatsHandler answers GetCampaignStats.
type GetCampaignStatsHandler struct {
	camps    ports.CampaignRepository
	messages ports.MessageRepository
	obs      *Observer
}

// NewGetCampaignStatsHandler builds the handler.
func NewGetCampaignStatsHandler(camps ports.CampaignRepository, messages ports.MessageRepository, obs *Observer) *GetCampaignStatsHandler {
	return &GetCampaignStatsHandler{camps: camps, messages: messages, obs: obs}
}

// Handle returns the statistics, or campaign_not_found.
func (h *GetCampaignStatsHandler) Handle(ctx context.Context, q GetCampaignStats) (domain.CampaignStats, error) {
	return observe(ctx, h.obs, "get_campaign_stats", func(ctx context.Context) (domain.CampaignStats, error) {
		id, err := domain.ParseCampaignID(q.CampaignID)
		if err != nil {
			return domain.CampaignStats{}, err
		}
		if _, err := h.camps.GetCampaign(ctx, q.Principal.Workspace, id); err != nil {
			return domain.CampaignStats{}, err
		}
		return campaignStats(ctx, h.messages, q.Principal.Workspace, id)
	})
}

// campaignStats counts a campaign's messages by status and its failures by
// Meta's error code.
func campaignStats(ctx context.Context, messages ports.MessageRepository, ws domain.WorkspaceID, id domain.CampaignID) (domain.CampaignStats, error) {
	counts, err := messages.CountMessagesByStatus(ctx, ws, id)
	if err != nil {
		return domain.CampaignStats{}, err
	}
	failures, err := messages.CountFailuresByCode(ctx, ws, id)
	if err != nil {
		return domain.CampaignStats{}, err
	}
	return domain.NewCampaignStats(counts, failures), nil
}
