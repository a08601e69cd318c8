package domain

import (
	"strconv"
	"strings"
	"time"
)

// TemplateStatus is Meta's review status of a message template: APPROVED,
// PENDING, REJECTED, PAUSED, DISABLED and others Meta may add. Only an
// APPROVED template can be sent. The zero value means Meta's status is not
// known: the template was defined locally (for the sandbox) and no sync has
// seen it.
type TemplateStatus struct{ s string }

// The template statuses Herald acts on; others are kept as Meta names them.
var (
	TemplateApproved = TemplateStatus{"APPROVED"}
	TemplatePending  = TemplateStatus{"PENDING"}
	TemplateRejected = TemplateStatus{"REJECTED"}
	TemplatePaused   = TemplateStatus{"PAUSED"}
	TemplateDisabled = TemplateStatus{"DISABLED"}
	// TemplateDeleted marks a template that a sync no longer finds.
	TemplateDeleted = TemplateStatus{"DELETED"}
)

// ParseTemplateStatus parses a status as Meta spells it (case-insensitive):
// 1 to 40 letters and underscores. Statuses Herald does not know are kept,
// and are not sendable.
func ParseTemplateStatus(s string) (TemplateStatus, error) {
	s = strings.ToUpper(s)
	if s == "" || len(s) > 40 || strings.Trim(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_") != "" {
		return TemplateStatus{}, InvalidParameter("status", "a template status is a word such as APPROVED or PAUSED")
	}
	return TemplateStatus{s}, nil
}

func (s TemplateStatus) String() string { return s.s }

// IsZero reports whether Meta's status is unknown.
func (s TemplateStatus) IsZero() bool { return s.s == "" }

// SyncedTemplate is a message template as the WhatsApp Business Account
// holds it, read by template sync.
type SyncedTemplate struct {
	Account    string // the WhatsApp Business Account (WABA) id
	ProviderID string // Meta's template id
	Name       string
	Language   string
	Status     TemplateStatus
	Category   string // MARKETING, UTILITY, AUTHENTICATION
	// Definition is the template as a campaign uses it; zero when
	// Unsupported says why Herald cannot send the template.
	Definition  Template
	Unsupported string
	SyncedAt    time.Time
}

// Usable returns the template's definition with labels for its
// placeholders, or an invalid_parameter error saying why a campaign cannot
// use it.
func (t SyncedTemplate) Usable(labels []string) (Template, error) {
	if t.Unsupported != "" {
		return Template{}, InvalidParameter("templateName",
			"template "+t.Name+" ("+t.Language+") cannot be sent by Herald: "+t.Unsupported)
	}
	d := t.Definition
	if len(labels) > len(d.Placeholders) {
		return Template{}, InvalidParameter("variableLabels",
			"there are "+strconv.Itoa(len(labels))+" labels but the body has "+strconv.Itoa(len(d.Placeholders))+" placeholders")
	}
	for _, l := range labels {
		if err := CheckText("variableLabels", "a variable label", l); err != nil {
			return Template{}, err
		}
	}
	full := make([]string, len(d.Placeholders))
	for i, p := range d.Placeholders {
		full[i] = p.Label
	}
	copy(full, labels)
	if err := d.Relabel(full); err != nil {
		return Template{}, err
	}
	return d, nil
}

// Scrubbed returns t with its text made storable (ScrubText): a template
// list is Meta's to write, so a NUL or invalid UTF-8 in it is replaced, not
// refused, and one odd template does not stop the others being stored. A
// definition holding one never passes NewTemplate: such a template is
// Unsupported.
func (t SyncedTemplate) Scrubbed() SyncedTemplate {
	s := ScrubText
	t.Account, t.ProviderID, t.Name, t.Language, t.Category, t.Unsupported =
		s(t.Account), s(t.ProviderID), s(t.Name), s(t.Language), s(t.Category), s(t.Unsupported)
	d := &t.Definition
	d.Name, d.Language, d.HeaderText, d.Body, d.Footer = s(d.Name), s(d.Language), s(d.HeaderText), s(d.Body), s(d.Footer)
	d.Placeholders = append([]Placeholder(nil), d.Placeholders...)
	for i := range d.Placeholders {
		d.Placeholders[i].Label = s(d.Placeholders[i].Label)
	}
	if d.Slots != nil {
		d.Slots = append([]Slot(nil), d.Slots...)
		for i := range d.Slots {
			sl := &d.Slots[i]
			sl.Key, sl.Param, sl.Context, sl.Label, sl.Source.Value = s(sl.Key), s(sl.Param), s(sl.Context), s(sl.Label), s(sl.Source.Value)
		}
	}
	if d.Buttons != nil {
		d.Buttons = append([]ButtonDef{}, d.Buttons...) // none known stays apart from unknown
		for i := range d.Buttons {
			b := &d.Buttons[i]
			b.Text, b.URL, b.PhoneNumber = s(b.Text), s(b.URL), s(b.PhoneNumber)
		}
	}
	return t
}
