package app

import (
	"context"

	"github.com/heraldhq/herald/app/usecase"
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
	tx         ports.Transactor
	def        *EnsureDefaultWorkspaceHandler
	clock      ports.Clock
	events     *usecase.Events
}

// NewChangeCampaignStatusHandler builds the handler. A change writes its
// campaign.status_changed events (one per mode) in its transaction.
func NewChangeCampaignStatusHandler(workspaces ports.WorkspaceRepository, tx ports.Transactor, def *EnsureDefaultWorkspaceHandler, clock ports.Clock, events *usecase.Events) *ChangeCampaignStatusHandler {
	return &ChangeCampaignStatusHandler{workspaces: workspaces, tx: tx, def: def, clock: clock, events: events}
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
	var out domain.Campaign
	err = h.tx.WithinTx(ctx, func(ctx context.Context, r ports.Repos) error {
		var previous domain.CampaignStatus
		c, err := r.Campaigns.UpdateCampaign(ctx, ws, id, func(c *domain.Campaign) error {
			previous = c.Status
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
		if err != nil {
			return err
		}
		out = c
		return h.events.CampaignStatus(ctx, r.Events, c, previous, now)
	})
	if err != nil {
		return domain.Campaign{}, err
	}
	return out, nil
}
