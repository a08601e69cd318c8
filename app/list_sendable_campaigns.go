package app

import (
	"context"

	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// ListSendableCampaigns lists the workspace's campaigns that send now
// (domain.Campaign.Sendable), newest first: the dashboard's template
// picker offers them when a contact's window is closed.
type ListSendableCampaigns struct {
	Workspace domain.WorkspaceID
}

// maxSendableScan bounds how many campaigns one listing reads.
const maxSendableScan = 1000

// ListSendableCampaignsHandler answers ListSendableCampaigns.
type ListSendableCampaignsHandler struct {
	camps ports.CampaignRepository
	obs   *usecase.Observer
}

// NewListSendableCampaignsHandler builds the handler.
func NewListSendableCampaignsHandler(camps ports.CampaignRepository, obs *usecase.Observer) *ListSendableCampaignsHandler {
	return &ListSendableCampaignsHandler{camps: camps, obs: obs}
}

// Handle reads the workspace's newest 1,000 campaigns, without their
// statistics, and keeps those that send.
func (h *ListSendableCampaignsHandler) Handle(ctx context.Context, q ListSendableCampaigns) ([]domain.Campaign, error) {
	return usecase.Observe(ctx, h.obs, "list_sendable_campaigns", func(ctx context.Context) ([]domain.Campaign, error) {
		var out []domain.Campaign
		p := ports.Page{Limit: MaxPageSize}
		for read := 0; read < maxSendableScan; read += MaxPageSize {
			cs, next, err := h.camps.ListCampaigns(ctx, q.Workspace, p)
			if err != nil {
				return nil, err
			}
			for _, c := range cs {
				if c.Sendable() {
					out = append(out, c)
				}
			}
			if next == "" {
				break
			}
			p.Cursor = next
		}
		return out, nil
	})
}
