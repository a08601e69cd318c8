package app

import (
	"context"

	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// RemapCampaign renames a campaign and changes where its template's slots
// take their values from, and their labels.
type RemapCampaign struct {
	Workspace  domain.WorkspaceID
	CampaignID string
	Name       *string // nil keeps the name
	Mapping    []domain.MappingEntry
	// PhoneNumberID, when set, moves the campaign to another business
	// number (pn_…) the workspace may use.
	PhoneNumberID string
}

// RemapCampaignHandler answers RemapCampaign.
type RemapCampaignHandler struct {
	camps   ports.CampaignRepository
	clock   ports.Clock
	obs     *usecase.Observer
	numbers ports.NumberRepository // nil: campaigns name no number
}

// WithNumbers returns h able to move campaigns between the stored business
// numbers.
func (h *RemapCampaignHandler) WithNumbers(numbers ports.NumberRepository) *RemapCampaignHandler {
	h.numbers = numbers
	return h
}

// NewRemapCampaignHandler builds the handler.
func NewRemapCampaignHandler(camps ports.CampaignRepository, clock ports.Clock, obs *usecase.Observer) *RemapCampaignHandler {
	return &RemapCampaignHandler{camps: camps, clock: clock, obs: obs}
}

// Handle stores the change and returns the campaign, or campaign_not_found;
// nothing changes unless all of it is valid. Sends already accepted keep
// the values they were accepted with.
func (h *RemapCampaignHandler) Handle(ctx context.Context, cmd RemapCampaign) (domain.Campaign, error) {
	return usecase.Observe(ctx, h.obs, "remap_campaign", func(ctx context.Context) (domain.Campaign, error) {
		id, err := domain.ParseCampaignID(cmd.CampaignID)
		if err != nil {
			return domain.Campaign{}, err
		}
		number, err := numberToMoveTo(ctx, h.numbers, cmd.Workspace, cmd.PhoneNumberID)
		if err != nil {
			return domain.Campaign{}, err
		}
		now := h.clock.Now()
		return h.camps.UpdateCampaign(ctx, cmd.Workspace, id, func(c *domain.Campaign) error {
			if number != "" && number != c.Number {
				c.Number, c.UpdatedAt = number, now
			}
			return c.Remap(cmd.Name, cmd.Mapping, now)
		})
	})
}
