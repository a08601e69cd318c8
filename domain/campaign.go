package domain

import (
	"strings"
	"time"
	"unicode/utf8"
)

// CampaignStatus is where a campaign is in its life: draft, active, paused or
// archived. Only active campaigns send.
type CampaignStatus struct{ s string }

// The campaign statuses.
var (
	CampaignDraft    = CampaignStatus{"draft"}
	CampaignActive   = CampaignStatus{"active"}
	CampaignPaused   = CampaignStatus{"paused"}
	CampaignArchived = CampaignStatus{"archived"}
)

// ParseCampaignStatus parses a stored or requested status.
func ParseCampaignStatus(s string) (CampaignStatus, error) {
	for _, c := range []CampaignStatus{CampaignDraft, CampaignActive, CampaignPaused, CampaignArchived} {
		if s == c.s {
			return c, nil
		}
	}
	return CampaignStatus{}, InvalidParameter("status", "status must be one of draft, active, paused, archived")
}

func (s CampaignStatus) String() string { return s.s }

// IsZero reports whether s is the zero value.
func (s CampaignStatus) IsZero() bool { return s.s == "" }

// Campaign is an API campaign: an approved template plus the meaning of each
// of its placeholders, through which integrators send messages.
type Campaign struct {
	ID        CampaignID
	Workspace WorkspaceID
	Name      string
	Template  Template
	// TemplateStatus is Meta's review status of the template, kept current
	// by template sync; zero for a template defined locally and never seen
	// in a sync. Only APPROVED templates send.
	TemplateStatus TemplateStatus
	// Category is Meta's category of the template (template sync, category
	// webhooks), or the one given for a template defined locally; zero
	// when not known, which counts as marketing (TemplateCategory).
	Category TemplateCategory
	Status   CampaignStatus
	// Number is the business number the campaign sends from; "" for a
	// campaign from before several numbers, which sends from the number
	// the HERALD_WHATSAPP_* settings define.
	Number    BusinessNumberID
	CreatedAt time.Time
	UpdatedAt time.Time

	// PausedReason is why Herald paused the campaign by itself (its
	// number's quality turned RED, say); zero when it is not paused or a
	// person paused it.
	PausedReason PauseReason
}

// NewCampaign makes a draft campaign.
func NewCampaign(id CampaignID, ws WorkspaceID, name string, tmpl Template, now time.Time) (Campaign, error) {
	name, err := campaignName(name)
	if err != nil {
		return Campaign{}, err
	}
	if tmpl.Name == "" {
		return Campaign{}, InvalidParameter("template", "a campaign needs a template")
	}
	now = now.UTC().Truncate(time.Microsecond)
	return Campaign{ID: id, Workspace: ws, Name: name, Template: tmpl, Status: CampaignDraft,
		CreatedAt: now, UpdatedAt: now}, nil
}

func campaignName(name string) (string, error) {
	if err := CheckText("name", "the name", name); err != nil {
		return "", err
	}
	name = strings.TrimSpace(name)
	if name == "" || utf8.RuneCountInString(name) > 200 {
		return "", InvalidParameter("name", "a campaign needs a name of 1 to 200 characters")
	}
	return name, nil
}

// Edit renames the campaign and replaces its variable mapping: one label
// per placeholder, in order. The template itself does not change. Nothing
// changes unless both are valid.
func (c *Campaign) Edit(name string, labels []string, now time.Time) error {
	name, err := campaignName(name)
	if err != nil {
		return err
	}
	for _, l := range labels {
		if err := CheckText("variableLabels", "a variable label", l); err != nil {
			return err
		}
		if utf8.RuneCountInString(l) > 200 {
			return InvalidParameter("variableLabels", "a variable label is at most 200 characters")
		}
	}
	tmpl := c.Template
	tmpl.Placeholders = append([]Placeholder(nil), c.Template.Placeholders...)
	if err := tmpl.Relabel(labels); err != nil {
		return err
	}
	c.Name, c.Template, c.UpdatedAt = name, tmpl, now.UTC().Truncate(time.Microsecond)
	return nil
}

// Remap renames the campaign when name is not nil and applies the mapping
// entries (Template.Remap): where each slot's value comes from and its
// label. Nothing changes unless all of it is valid.
func (c *Campaign) Remap(name *string, entries []MappingEntry, now time.Time) error {
	n := c.Name
	if name != nil {
		var err error
		if n, err = campaignName(*name); err != nil {
			return err
		}
	}
	tmpl := c.Template
	if err := tmpl.Remap("mapping", entries); err != nil {
		return err
	}
	c.Name, c.Template, c.UpdatedAt = n, tmpl, now.UTC().Truncate(time.Microsecond)
	return nil
}

// Activate lets the campaign send. Drafts and paused campaigns can be
// activated; archived ones cannot. Activating an active campaign is a no-op.
// A campaign whose template Meta knows can be activated only while Meta has
// the template APPROVED.
func (c *Campaign) Activate(now time.Time) error {
	if !c.TemplateStatus.IsZero() && c.TemplateStatus != TemplateApproved {
		return &Error{Code: CodeInvalidTransition, Detail: "template " + c.templateRef() + " is " +
			c.TemplateStatus.String() + " at Meta; a campaign can be activated only while its template is APPROVED"}
	}
	if err := c.moveTo(CampaignActive, now, CampaignDraft, CampaignPaused, CampaignActive); err != nil {
		return err
	}
	c.PausedReason = ""
	return nil
}

// SetTemplateStatus records Meta's current status of the campaign's
// template. The campaign keeps its own status: while the template is not
// APPROVED, Prepare refuses sends, and they resume when it is approved
// again. It reports whether anything changed.
func (c *Campaign) SetTemplateStatus(s TemplateStatus, now time.Time) bool {
	if c.TemplateStatus == s {
		return false
	}
	c.TemplateStatus = s
	c.UpdatedAt = now.UTC().Truncate(time.Microsecond)
	return true
}

func (c Campaign) templateRef() string {
	return c.Template.Name + " (" + c.Template.Language + ")"
}

// Pause stops the campaign's sends until it is activated again. A person's
// pause keeps the reason of an automatic pause before it.
func (c *Campaign) Pause(now time.Time) error {
	return c.moveTo(CampaignPaused, now, CampaignActive, CampaignPaused)
}

// PauseFor pauses an active campaign by Herald's own decision, recording
// why, and reports whether it paused it: a campaign that is not active
// (a draft, paused already, archived) is left as it is.
func (c *Campaign) PauseFor(reason PauseReason, now time.Time) bool {
	if c.Status != CampaignActive {
		return false
	}
	c.Status, c.PausedReason = CampaignPaused, reason
	c.UpdatedAt = now.UTC().Truncate(time.Microsecond)
	return true
}

// Archive retires the campaign for good.
func (c *Campaign) Archive(now time.Time) error {
	return c.moveTo(CampaignArchived, now, CampaignDraft, CampaignActive, CampaignPaused, CampaignArchived)
}

func (c *Campaign) moveTo(to CampaignStatus, now time.Time, from ...CampaignStatus) error {
	for _, f := range from {
		if c.Status == f {
			if c.Status != to {
				c.Status = to
				c.UpdatedAt = now.UTC().Truncate(time.Microsecond)
			}
			return nil
		}
	}
	return InvalidTransition("campaign", c.Status.String(), to.String())
}

// Prepared is a message ready to be stored: the template rendered with its
// variables and the checked media header.
type Prepared struct {
	Variables []string
	// Values are every slot with the value this send gives it.
	Values         []SlotValue
	MediaHeaderURL string
	// MediaFilename is a document header's file name, set once the
	// resource has been inspected (HeaderFormat.MediaFilename).
	MediaFilename string
	RenderedBody  string
}

// Sendable reports whether the campaign sends now: it is active and its
// template is approved at Meta (or defined here and never synced), the
// state Prepare asks for before it looks at the values.
func (c Campaign) Sendable() bool {
	return c.Status == CampaignActive && (c.TemplateStatus.IsZero() || c.TemplateStatus == TemplateApproved)
}

// Prepare runs the campaign's checks on one send, in DESIGN's order: the
// campaign is active, the variables fit the template, and the media header
// matches the template's header format and its URL the media policy. The
// resource itself is inspected by the caller (HeaderFormat.CheckMedia).
func (c Campaign) Prepare(vars []string, mediaURL string, media MediaPolicy) (Prepared, error) {
	if c.Status != CampaignActive {
		return Prepared{}, CampaignNotActive(c.Status)
	}
	if !c.TemplateStatus.IsZero() && c.TemplateStatus != TemplateApproved {
		return Prepared{}, &Error{Code: CodeCampaignNotActive, Param: "campaignId",
			Detail: "the campaign's template " + c.templateRef() + " is " + c.TemplateStatus.String() +
				" at Meta; sends resume when Meta approves it again"}
	}
	values, err := c.Template.Fill(vars, mediaURL, media)
	if err != nil {
		return Prepared{}, err
	}
	if hs, ok := c.Template.MediaHeaderSlot(); ok {
		if mediaURL == "" {
			return Prepared{}, &Error{Code: CodeMediaHeaderRequired, Param: "mediaHeaderUrl",
				Detail: "the template has a " + hs.Media.String() + " header; give its URL in mediaHeaderUrl"}
		}
		if err := CheckMediaURL(mediaURL, media); err != nil {
			return Prepared{}, err
		}
	} else if mediaURL != "" {
		return Prepared{}, &Error{Code: CodeMediaHeaderNotAllowed, Param: "mediaHeaderUrl",
			Detail: "the template has no media header; leave mediaHeaderUrl out"}
	}
	return Prepared{Variables: vars, Values: values, MediaHeaderURL: mediaURL, RenderedBody: c.Template.Render(vars)}, nil
}
