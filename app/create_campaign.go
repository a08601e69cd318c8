package app

import (
	"context"
	"errors"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// CreateCampaign defines an API campaign and its template. Without a Body
// the template is the synced one of that name and language, with its
// header, body and footer as Meta approved them; with a Body it is defined
// here (for the sandbox, or ahead of a sync).
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
	// Named, Buttons, Offer and Cards complete a template defined here:
	// named placeholders, buttons, a limited-time offer, carousel cards.
	// With an AUTHENTICATION category and an OTP button it is a
	// one-time-password template.
	Named   bool
	Buttons []domain.ButtonDef
	Offer   *domain.OfferDef
	Cards   []domain.CardDef
	// Mapping changes the template's default mapping of slots to
	// variables (domain.Template.Remap), in the field named "mapping".
	Mapping []domain.MappingEntry
	// Category is the template's category for a template defined here;
	// zero counts as marketing. A template Meta knows has Meta's.
	Category domain.TemplateCategory
	Activate bool
	// PhoneNumberID is the business number (pn_…) the campaign sends
	// from; required when the workspace may use several, the only one
	// when it may use one.
	PhoneNumberID string
}

// CreateCampaignHandler answers CreateCampaign.
type CreateCampaignHandler struct {
	workspaces ports.WorkspaceRepository
	camps      ports.CampaignRepository
	templates  ports.TemplateRepository
	source     ports.TemplateSource // nil when template sync is not configured
	def        *EnsureDefaultWorkspaceHandler
	clock      ports.Clock
	ids        ports.IDGenerator
	numbers    ports.NumberRepository // nil: campaigns name no number
}

// WithNumbers returns h binding each new campaign to one of the stored
// business numbers.
func (h *CreateCampaignHandler) WithNumbers(numbers ports.NumberRepository) *CreateCampaignHandler {
	h.numbers = numbers
	return h
}

// NewCreateCampaignHandler builds the handler; source may be nil, and then
// only campaigns with a locally defined body can be created.
func NewCreateCampaignHandler(workspaces ports.WorkspaceRepository, camps ports.CampaignRepository, templates ports.TemplateRepository, source ports.TemplateSource, def *EnsureDefaultWorkspaceHandler, clock ports.Clock, ids ports.IDGenerator) *CreateCampaignHandler {
	return &CreateCampaignHandler{workspaces: workspaces, camps: camps, templates: templates, source: source, def: def, clock: clock, ids: ids}
}

// Handle validates the template and stores the campaign, as a draft unless
// Activate is set. A campaign whose template Meta knows carries Meta's
// status, and is activated only while that is APPROVED.
func (h *CreateCampaignHandler) Handle(ctx context.Context, cmd CreateCampaign) (domain.Campaign, error) {
	ws, err := resolveWorkspace(ctx, h.workspaces, h.def, cmd.Workspace)
	if err != nil {
		return domain.Campaign{}, err
	}
	var number domain.BusinessNumberID
	if h.numbers != nil {
		if number, err = NumberFor(ctx, h.numbers, ws, cmd.PhoneNumberID); err != nil {
			return domain.Campaign{}, err
		}
	} else if cmd.PhoneNumberID != "" {
		return domain.Campaign{}, &domain.Error{Code: domain.CodePhoneNumberNotFound, Param: "phoneNumberId",
			Detail: domain.ErrPhoneNumberNotFound.Detail}
	}
	account, err := h.account(ctx, number)
	if err != nil {
		return domain.Campaign{}, err
	}
	synced, err := h.synced(ctx, cmd, account)
	if err != nil {
		return domain.Campaign{}, err
	}
	var tmpl domain.Template
	if cmd.Body == "" {
		tmpl, err = synced.Usable(cmd.VariableLabels)
	} else {
		tmpl, err = domain.DefineTemplate(domain.TemplateDefinition{Name: cmd.TemplateName, Language: cmd.Language,
			Authentication: cmd.Category == domain.CategoryAuthentication && hasOTPButton(cmd.Buttons), Named: cmd.Named,
			HeaderFormat: cmd.HeaderFormat, HeaderText: cmd.HeaderText, Body: cmd.Body, Footer: cmd.Footer,
			Buttons: cmd.Buttons, Offer: cmd.Offer, Cards: cmd.Cards, Labels: cmd.VariableLabels})
	}
	if err != nil {
		return domain.Campaign{}, err
	}
	if len(cmd.Mapping) > 0 {
		if err := tmpl.Remap("mapping", cmd.Mapping); err != nil {
			return domain.Campaign{}, err
		}
	}
	now := h.clock.Now()
	c, err := domain.NewCampaign(domain.CampaignID(h.ids.NewID(domain.PrefixCampaign)), ws, cmd.Name, tmpl, now)
	if err != nil {
		return domain.Campaign{}, err
	}
	c.Number = number
	c.TemplateStatus = synced.Status
	c.Category = cmd.Category
	if cat, err := domain.ParseTemplateCategory(synced.Category); err == nil {
		c.Category = cat // Meta decides what a template is
	}
	if cmd.Activate {
		if err := c.Activate(now); err != nil {
			return domain.Campaign{}, err
		}
	}
	return c, h.camps.CreateCampaign(ctx, c)
}

// synced returns the synced template the campaign names, if any. Without a
// body it must exist, and the header and footer come from it.
// account returns the business account whose templates a campaign of the
// number uses: the number's, else the configured one (the template
// source's); "" when there is neither.
func (h *CreateCampaignHandler) account(ctx context.Context, number domain.BusinessNumberID) (string, error) {
	if number != "" {
		n, err := h.numbers.GetNumber(ctx, number)
		if err != nil {
			return "", err
		}
		if n.WABAID != "" {
			return n.WABAID, nil
		}
	}
	if h.source != nil {
		return h.source.Account(), nil
	}
	return "", nil
}

// synced returns the synced template of account that the campaign names,
// if any: a campaign uses its own account's templates only. Without a
// body it must exist, and the header and footer come from it.
func (h *CreateCampaignHandler) synced(ctx context.Context, cmd CreateCampaign, account string) (domain.SyncedTemplate, error) {
	local := cmd.Body != ""
	if !local && (!cmd.HeaderFormat.IsZero() && cmd.HeaderFormat != domain.HeaderNone || cmd.HeaderText != "" || cmd.Footer != "" ||
		cmd.Named || cmd.Buttons != nil || cmd.Offer != nil || cmd.Cards != nil) {
		return domain.SyncedTemplate{}, domain.InvalidParameter("body",
			"the header, footer, buttons and cards of a synced template come from Meta; leave them out, or give the body too to define the template here")
	}
	if err := domain.CheckTemplateRef(cmd.TemplateName, cmd.Language); err != nil {
		return domain.SyncedTemplate{}, err
	}
	if account == "" {
		if local {
			return domain.SyncedTemplate{}, nil
		}
		return domain.SyncedTemplate{}, &domain.Error{Code: domain.CodeTemplateNotFound, Param: "templateName",
			Detail: "no body given and template sync is not configured: give the body, or set HERALD_WHATSAPP_ACCESS_TOKEN and HERALD_WHATSAPP_WABA_ID and run herald campaigns sync-templates"}
	}
	t, err := h.templates.GetTemplate(ctx, account, cmd.TemplateName, cmd.Language)
	switch {
	case errors.Is(err, domain.ErrTemplateNotFound) && local:
		return domain.SyncedTemplate{}, nil // Meta does not know it (yet)
	case errors.Is(err, domain.ErrTemplateNotFound):
		return domain.SyncedTemplate{}, &domain.Error{Code: domain.CodeTemplateNotFound, Param: "templateName",
			Detail: "no synced template " + cmd.TemplateName + " in language " + cmd.Language +
				": run herald campaigns sync-templates, check the name and language, or give the body to define it here"}
	}
	return t, err
}

// hasOTPButton reports whether one of the buttons is a one-time
// password's.
func hasOTPButton(bs []domain.ButtonDef) bool {
	for _, b := range bs {
		if b.Kind == domain.ButtonOTP {
			return true
		}
	}
	return false
}
