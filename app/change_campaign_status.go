package app

import (
	"context"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// ChangeCampaignStatus activates or pauses a campaign.
type ChangeCampaignStatus struct {
	Workspace  string
	CampaignID string
	To         domain.CampaignStatus // CampaignActive or CampaignPaused
}

// ChangeCampaignStatusHandler answers ChangeCampaignStatus.
type ChangeCampaignStatusHandler struct {
	workspaces ports.WorkspaceRepository
	camps      ports.CampaignRepository
	def        *EnsureDefaultWorkspaceHandler
	clock      ports.Clock
}

// NewChangeCampaignStatusHandler builds the handler.
func NewChangeCampaignStatusHandler(workspaces ports.WorkspaceRepository, camps ports.CampaignRepository, def *EnsureDefaultWorkspaceHandler, clock ports.Clock) *ChangeCampaignStatusHandler {
	return &ChangeCampaignStatusHandler{workspaces: workspaces, camps: camps, def: def, clock: clock}
}

// Handle moves the campaign, or returns invalid_transition.
func (h *ChangeCampaignStatusHandler) Handle(ctx context.Context, cmd ChangeCampaignStatus) (domain.Campaign, error) {
	ws, err := resolveWorkspace(ctx, h.workspaces, h.def, cmd.Workspace)
	if err != nil {
		return domain.Campaign{}, err
	}
	id, err := domain.ParseCampaignID(cmd.CampaignID)
	if err != nil {
		return domain.Campaign{}, err
	}
	now := h.clock.Now()
	return h.camps.UpdateCampaign(ctx, ws, id, func(c *domain.Campaign) error {
		switch cmd.To {
		case domain.CampaignActive:
			return c.Activate(now)
		case domain.CampaignPaused:
			return c.Pause(now)
		case domain.CampaignArchived:
			return c.Archive(now)
		}
		return domain.InvalidParameter("status", "a campaign can be activated, paused or archived")
	})
}
