package domain

import (
	"strconv"
	"strings"
)

// HeaderFormat is the kind of header a template has.
type HeaderFormat struct{ s string }

// The header formats Meta supports for templates.
var (
	HeaderNone     = HeaderFormat{"none"}
	HeaderText     = HeaderFormat{"text"}
	HeaderImage    = HeaderFormat{"image"}
	HeaderVideo    = HeaderFormat{"video"}
	HeaderDocument = HeaderFormat{"document"}
	// HeaderLocation is a location header: each send gives the place.
	HeaderLocation = HeaderFormat{"location"}
)

// ParseHeaderFormat parses none, text, image, video, document or location.
func ParseHeaderFormat(s string) (HeaderFormat, error) {
	for _, f := range []HeaderFormat{HeaderNone, HeaderText, HeaderImage, HeaderVideo, HeaderDocument, HeaderLocation} {
		if s == f.s {
			return f, nil
		}
	}
	return HeaderFormat{}, InvalidParameter("headerFormat", "header format must be one of none, text, image, video, document, location")
}

func (f HeaderFormat) String() string { return f.s }

// IsZero reports whether f is the zero value.
func (f HeaderFormat) IsZero() bool { return f.s == "" }

// IsMedia reports whether the header carries an image, a video or a document.
func (f HeaderFormat) IsMedia() bool {
	return f == HeaderImage || f == HeaderVideo || f == HeaderDocument
}

// Placeholder is one positional parameter {{n}} of a template body, with the
// label that says what it means (the campaign's variable mapping).
type Placeholder struct {
	Index int
	Label string
}

// Template is a WhatsApp message template as a campaign uses it: its
// texts, and its slots with the campaign's mapping (slots.go).
type Template struct {
	Name         string
	Language     string
	HeaderFormat HeaderFormat
	HeaderText   string
	Body         string
	Footer       string
	// Placeholders are the body's slots in order with their labels, kept
	// in step with Slots.
	Placeholders []Placeholder
	// Slots are every value a send fills, in template order, each with
	// its label and where its value comes from. A template stored before
	// slots existed gets DefaultSlots.
	Slots []Slot
	// Buttons are the template's own buttons in order, those that take
	// no value (static URL, phone number, voice call) as well as the
	// others; a carousel card's buttons are in its slots. Nil when
	// unknown: a template stored before buttons were kept.
	Buttons []ButtonDef
}

// Meta's limits for a template and its parameters.
const (
	MaxBodyLength          = 1024
	MaxHeaderTextLength    = 60
	MaxFooterLength        = 60
	MaxTemplateNameLength  = 512
	MaxVariableLength      = 1024
	maxConsecutiveSpaces   = 4
	maxPlaceholdersPerBody = 100
)

// NewTemplate validates a template definition. The body's placeholders must
// be {{1}}…{{n}} with none missing; labels, when given, name them in order.
// The language is kept in its canonical form (CanonicalLanguage): pt-BR is
// pt_BR.
func NewTemplate(name, language string, header HeaderFormat, headerText, body, footer string, labels []string) (Template, error) {
	return DefineTemplate(TemplateDefinition{Name: name, Language: language, HeaderFormat: header,
		HeaderText: headerText, Body: body, Footer: footer, Labels: labels})
}

// CheckTemplateRef checks the name and language that name a template: a
// name of lowercase letters, digits and underscores, and a language code
// in any form ParseLanguage accepts.
func CheckTemplateRef(name, language string) error {
	if name == "" || len(name) > MaxTemplateNameLength || strings.Trim(name, "abcdefghijklmnopqrstuvwxyz0123456789_") != "" {
		return InvalidParameter("templateName", "a template name is 1 to 512 lowercase letters, digits and underscores")
	}
	_, err := ParseLanguage(language)
	return err
}

// DefaultSlots are the slots of a template stored before slots existed:
// the body's placeholders {{1}}…{{n}} from variables 1…n, and a media
// header from mediaHeaderUrl.
func DefaultSlots(t Template) []Slot {
	out := make([]Slot, 0, len(t.Placeholders)+1)
	for _, p := range t.Placeholders {
		n := strconv.Itoa(p.Index)
		out = append(out, Slot{Key: "body." + n, Kind: SlotBody, Card: -1, Param: n, Label: p.Label,
			Source: SlotSource{Position: p.Index}})
	}
	if t.HeaderFormat.IsMedia() {
		out = append(out, Slot{Key: "header", Kind: SlotHeaderMedia, Media: t.HeaderFormat, Card: -1,
			Source: SlotSource{MediaHeaderURL: true}})
	}
	return out
}

// Relabel replaces the labels of the body's placeholders, in order.
func (t *Template) Relabel(labels []string) error {
	if len(labels) != len(t.Placeholders) {
		return InvalidParameter("variableLabels",
			"give one label per placeholder: "+strconv.Itoa(len(t.Placeholders))+" expected")
	}
	t.Slots = append([]Slot(nil), t.slots()...)
	k := 0
	for i := range t.Slots {
		if t.Slots[i].Kind == SlotBody && t.Slots[i].Card < 0 {
			t.Slots[i].Label = labels[k]
			k++
		}
	}
	t.syncPlaceholders()
	return nil
}

// CheckVariables checks the values a send gives: the right count, and
// each within Meta's rule for the slots it fills (none empty, none longer
// than Meta allows, none with characters Meta refuses).
func (t Template) CheckVariables(vars []string) error {
	_, err := t.Fill(vars, "", MediaPolicy{})
	return err
}

// Render fills the body's placeholders with the values vars gives them,
// which must have passed CheckVariables.
func (t Template) Render(vars []string) string {
	values := map[string]string{}
	for _, s := range t.slots() {
		if s.Kind != SlotBody || s.Card >= 0 {
			continue
		}
		switch {
		case s.Source.Position > 0 && s.Source.Position <= len(vars):
			values[s.Param] = vars[s.Source.Position-1]
		case s.Source.Position == 0:
			values[s.Param] = s.Source.Value
		}
	}
	return renderText(t.Body, values)
}

// renderText replaces each {{p}} of text with values[p].
func renderText(text string, values map[string]string) string {
	if !strings.Contains(text, "{{") {
		return text
	}
	var b strings.Builder
	b.Grow(len(text) + 16*len(values))
	rest := text
	for {
		i := strings.Index(rest, "{{")
		if i < 0 {
			b.WriteString(rest)
			return b.String()
		}
		j := strings.Index(rest[i:], "}}")
		if j < 0 {
			b.WriteString(rest)
			return b.String()
		}
		b.WriteString(rest[:i])
		b.WriteString(values[rest[i+2:i+j]])
		rest = rest[i+j+2:]
	}
}
