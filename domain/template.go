package domain

import (
	"strconv"
	"strings"
	"unicode/utf8"
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
)

// ParseHeaderFormat parses none, text, image, video or document.
func ParseHeaderFormat(s string) (HeaderFormat, error) {
	for _, f := range []HeaderFormat{HeaderNone, HeaderText, HeaderImage, HeaderVideo, HeaderDocument} {
		if s == f.s {
			return f, nil
		}
	}
	return HeaderFormat{}, InvalidParameter("headerFormat", "header format must be one of none, text, image, video, document")
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

// Template is a WhatsApp message template as a campaign uses it.
type Template struct {
	Name         string
	Language     string
	HeaderFormat HeaderFormat
	HeaderText   string
	Body         string
	Footer       string
	Placeholders []Placeholder
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
	if err := CheckTemplateRef(name, language); err != nil {
		return Template{}, err
	}
	language = CanonicalLanguage(language)
	if header.IsZero() {
		header = HeaderNone
	}
	// Meta takes JSON, which cannot carry invalid UTF-8, and PostgreSQL
	// refuses it and NUL in text columns: say so here rather than fail
	// later.
	for _, f := range []struct{ param, what, value string }{
		{"headerText", "the header text", headerText}, {"body", "the body", body}, {"footer", "the footer", footer},
	} {
		if err := CheckText(f.param, f.what, f.value); err != nil {
			return Template{}, err
		}
	}
	for _, l := range labels {
		if err := CheckText("variableLabels", "a variable label", l); err != nil {
			return Template{}, err
		}
	}
	if header == HeaderText {
		if headerText == "" || utf8.RuneCountInString(headerText) > MaxHeaderTextLength {
			return Template{}, InvalidParameter("headerText", "a text header is 1 to 60 characters")
		}
		if strings.Contains(headerText, "{{") {
			return Template{}, InvalidParameter("headerText", "header text placeholders are not supported; put variables in the body")
		}
	} else if headerText != "" {
		return Template{}, InvalidParameter("headerText", "header text is only for a text header")
	}
	if body == "" || utf8.RuneCountInString(body) > MaxBodyLength {
		return Template{}, InvalidParameter("body", "a template body is 1 to 1024 characters")
	}
	if utf8.RuneCountInString(footer) > MaxFooterLength {
		return Template{}, InvalidParameter("footer", "a footer is at most 60 characters")
	}
	n, err := countPlaceholders(body)
	if err != nil {
		return Template{}, err
	}
	if len(labels) > n {
		return Template{}, InvalidParameter("variableLabels",
			"there are "+strconv.Itoa(len(labels))+" labels but the body has "+strconv.Itoa(n)+" placeholders")
	}
	ph := make([]Placeholder, n)
	for i := range ph {
		ph[i] = Placeholder{Index: i + 1}
		if i < len(labels) {
			ph[i].Label = labels[i]
		}
	}
	return Template{Name: name, Language: language, HeaderFormat: header, HeaderText: headerText,
		Body: body, Footer: footer, Placeholders: ph}, nil
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

// countPlaceholders finds {{n}} in body and checks that they are exactly
// 1…max, each at least once.
func countPlaceholders(body string) (int, error) {
	seen := map[int]bool{}
	max := 0
	rest := body
	for {
		i := strings.Index(rest, "{{")
		if i < 0 {
			break
		}
		j := strings.Index(rest[i:], "}}")
		if j < 0 {
			return 0, InvalidParameter("body", "a placeholder opened with {{ is never closed")
		}
		inner := rest[i+2 : i+j]
		n, err := strconv.Atoi(inner)
		if err != nil || n < 1 || strconv.Itoa(n) != inner {
			return 0, InvalidParameter("body", "placeholders are positional, {{1}}, {{2}}, …; found {{"+inner+"}}")
		}
		if n > maxPlaceholdersPerBody {
			return 0, InvalidParameter("body", "a body has at most 100 placeholders")
		}
		seen[n] = true
		if n > max {
			max = n
		}
		rest = rest[i+j+2:]
	}
	for k := 1; k <= max; k++ {
		if !seen[k] {
			return 0, InvalidParameter("body", "placeholder {{"+strconv.Itoa(k)+"}} is missing; placeholders must run from {{1}} without gaps")
		}
	}
	return max, nil
}

// Relabel replaces the variable mapping; labels must match the placeholders.
func (t *Template) Relabel(labels []string) error {
	if len(labels) != len(t.Placeholders) {
		return InvalidParameter("variableLabels",
			"give one label per placeholder: "+strconv.Itoa(len(t.Placeholders))+" expected")
	}
	for i := range t.Placeholders {
		t.Placeholders[i].Label = labels[i]
	}
	return nil
}

// CheckVariables checks the values for the placeholders: the right count, none
// empty, none longer than Meta allows, and none with characters Meta refuses in
// a parameter (newlines, tabs, more than four spaces in a row).
func (t Template) CheckVariables(vars []string) error {
	if len(vars) != len(t.Placeholders) {
		return VariablesMismatch(len(t.Placeholders), len(vars))
	}
	for i, v := range vars {
		switch {
		case strings.TrimSpace(v) == "":
			return VariableInvalid(i+1, "is empty")
		case utf8.RuneCountInString(v) > MaxVariableLength:
			return VariableInvalid(i+1, "is longer than 1024 characters")
		case textProblem(v) != "":
			return VariableInvalid(i+1, textProblem(v))
		case strings.ContainsAny(v, "\n\r\t"):
			return VariableInvalid(i+1, "contains a newline or tab, which WhatsApp refuses in parameters")
		case strings.Contains(v, strings.Repeat(" ", maxConsecutiveSpaces+1)):
			return VariableInvalid(i+1, "contains more than 4 consecutive spaces, which WhatsApp refuses in parameters")
		}
	}
	return nil
}

// Render fills the body's placeholders with vars, which must have passed
// CheckVariables.
func (t Template) Render(vars []string) string {
	if len(t.Placeholders) == 0 {
		return t.Body
	}
	var b strings.Builder
	b.Grow(len(t.Body) + 16*len(vars))
	rest := t.Body
	for {
		i := strings.Index(rest, "{{")
		if i < 0 {
			b.WriteString(rest)
			return b.String()
		}
		j := strings.Index(rest[i:], "}}")
		n, _ := strconv.Atoi(rest[i+2 : i+j])
		b.WriteString(rest[:i])
		if n >= 1 && n <= len(vars) {
			b.WriteString(vars[n-1])
		}
		rest = rest[i+j+2:]
	}
}
