package app

import (
	"context"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// CreateCampaign defines an API campaign and its template.
type CreateCampaign struct {
	Workspace      string
	Name           string
	TemplateName   string
	Language       string
	HeaderFormat   domain.HeaderFormat
	HeaderText     string
	Body           string
	Footer         string
	VariableLabels []string
	Activate       bool
}

// CreateCampaignHandler answers CreateCampaign.
type CreateCampaignHandler struct {
	workspaces ports.WorkspaceRepository
	camps      ports.CampaignRepository
	def        *EnsureDefaultWorkspaceHandler
	clock      ports.Clock
	ids        ports.IDGenerator
}

// NewCreateCampaignHandler builds the handler.
func NewCreateCampaignHandler(workspaces ports.WorkspaceRepository, camps ports.CampaignRepository, def *EnsureDefaultWorkspaceHandler, clock ports.Clock, ids ports.IDGenerator) *CreateCampaignHandler {
	return &CreateCampaignHandler{workspaces: workspaces, camps: camps, def: def, clock: clock, ids: ids}
}

// Handle validates the template and stores the campaign, as a draft unless
// Activate is set.
func (h *CreateCampaignHandler) Handle(ctx context.Context, cmd CreateCampaign) (domain.Campaign, error) {
	ws, err := resolveWorkspace(ctx, h.workspaces, h.def, cmd.Workspace)
	if err != nil {
		return domain.Campaign{}, err
	}
	tmpl, err := domain.NewTemplate(cmd.TemplateName, cmd.Language, cmd.HeaderFormat, cmd.HeaderText, cmd.Body, cmd.Footer, cmd.VariableLabels)
	if err != nil {
		return domain.Campaign{}, err
	}
	now := h.clock.Now()
	c, err := domain.NewCampaign(domain.CampaignID(h.ids.NewID(domain.PrefixCampaign)), ws, cmd.Name, tmpl, now)
	if err != nil {
		return domain.Campaign{}, err
	}
	if cmd.Activate {
		if err := c.Activate(now); err != nil {
			return domain.Campaign{}, err
		}
	}
	return c, h.camps.CreateCampaign(ctx, c)
}
