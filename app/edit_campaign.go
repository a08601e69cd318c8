package app

import (
	"context"
	"strings"

	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// EditCampaign renames a campaign and replaces its variable mapping (a
// label per placeholder, in order).
type EditCampaign struct {
	Workspace      domain.WorkspaceID
	CampaignID     string
	Name           string
	VariableLabels []string
	// PhoneNumberID, when set, moves the campaign to another business
	// number (pn_…) the workspace may use.
	PhoneNumberID string
}

// EditCampaignHandler answers EditCampaign.
type EditCampaignHandler struct {
	camps   ports.CampaignRepository
	clock   ports.Clock
	obs     *usecase.Observer
	numbers ports.NumberRepository // nil: campaigns name no number
}

// WithNumbers returns h able to move campaigns between the stored business
// numbers.
func (h *EditCampaignHandler) WithNumbers(numbers ports.NumberRepository) *EditCampaignHandler {
	h.numbers = numbers
	return h
}

// NewEditCampaignHandler builds the handler.
func NewEditCampaignHandler(camps ports.CampaignRepository, clock ports.Clock, obs *usecase.Observer) *EditCampaignHandler {
	return &EditCampaignHandler{camps: camps, clock: clock, obs: obs}
}

// Handle stores the edit and returns the campaign, or campaign_not_found.
// Labels are trimmed; sends already accepted keep what they were sent with.
func (h *EditCampaignHandler) Handle(ctx context.Context, cmd EditCampaign) (domain.Campaign, error) {
	return usecase.Observe(ctx, h.obs, "edit_campaign", func(ctx context.Context) (domain.Campaign, error) {
		id, err := domain.ParseCampaignID(cmd.CampaignID)
		if err != nil {
			return domain.Campaign{}, err
		}
		labels := make([]string, len(cmd.VariableLabels))
		for i, l := range cmd.VariableLabels {
			labels[i] = strings.TrimSpace(l)
		}
		number, err := numberToMoveTo(ctx, h.numbers, cmd.Workspace, cmd.PhoneNumberID)
		if err != nil {
			return domain.Campaign{}, err
		}
		now := h.clock.Now()
		return h.camps.UpdateCampaign(ctx, cmd.Workspace, id, func(c *domain.Campaign) error {
			if number != "" {
				c.Number = number
			}
			return c.Edit(cmd.Name, labels, now)
		})
	})
}
