package dashboard

import (
	"errors"
	"net/http"
	"strings"

	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/domain"
)

// templateForm is the new-template form as entered, kept when the lint
// refuses it so nothing typed is lost.
type templateForm struct {
	Name, Language, Category   string
	HeaderText, HeaderExample  string
	Body, BodyExamples, Footer string
	QuickReplies               string
	URLText, URL, URLExample   string
	// WABAID is the business account chosen, when there are several.
	WABAID string
}

// templatesPage lists the synced templates and holds the form, with each
// lint finding under the field it is about (Findings by field name) and
// those about no one field in Other.
type templatesPage struct {
	Templates  []domain.SyncedTemplate
	Form       templateForm
	Findings   map[string][]string
	Other      []string
	Categories []string
	// Accounts are the business accounts a template may go to; the form
	// offers them when they are several.
	Accounts []string
}

func (h *dash) templates(w http.ResponseWriter, r *http.Request) {
	h.templatesWith(w, r, http.StatusOK, "", templatesPage{Form: templateForm{Language: "en_US", Category: "UTILITY"}})
}

func (h *dash) templatesWith(w http.ResponseWriter, r *http.Request, status int, notice string, p templatesPage) {
	ts, err := h.d.ListTemplates.Handle(r.Context(), app.ListTemplates{})
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	accounts, err := h.d.ListTemplates.Accounts(r.Context(), "")
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	p.Templates, p.Accounts = ts, accounts
	p.Categories = []string{"MARKETING", "UTILITY", "AUTHENTICATION"}
	msg := ""
	if len(p.Findings)+len(p.Other) > 0 {
		msg = "Meta would refuse this template: fix what is shown next to each field."
	}
	h.render(w, r, status, "templates", view{Title: "Templates", Nav: "templates", Error: msg, Notice: notice, Page: p})
}

// submitTemplate lints the form's template and, when nothing is wrong,
// submits it to Meta for review.
func (h *dash) submitTemplate(w http.ResponseWriter, r *http.Request) {
	pf := r.PostForm
	f := templateForm{Name: strings.TrimSpace(pf.Get("name")), Language: strings.TrimSpace(pf.Get("language")),
		Category: pf.Get("category"), HeaderText: pf.Get("headerText"), HeaderExample: pf.Get("headerExample"),
		Body: strings.ReplaceAll(pf.Get("body"), "\r\n", "\n"), BodyExamples: pf.Get("bodyExamples"), Footer: pf.Get("footer"),
		QuickReplies: pf.Get("quickReplies"), URLText: pf.Get("urlText"), URL: strings.TrimSpace(pf.Get("url")),
		URLExample: strings.TrimSpace(pf.Get("urlExample")), WABAID: pf.Get("wabaId")}
	d, fields := f.draft()
	t, err := h.d.SubmitTemplate.Handle(r.Context(), app.SubmitTemplate{Draft: d, Mode: domain.ModeLive, WABAID: f.WABAID})
	if de, ok := errors.AsType[*domain.TemplateInvalidError](err); ok {
		p := templatesPage{Form: f, Findings: map[string][]string{}}
		for _, fi := range de.Findings {
			if field := fieldOf(fi.Path, fields); field != "" {
				p.Findings[field] = append(p.Findings[field], fi.Message)
			} else {
				p.Other = append(p.Other, fi.Message)
			}
		}
		h.templatesWith(w, r, http.StatusUnprocessableEntity, "", p)
		return
	}
	if err != nil {
		if msg := formError(err); msg != "" {
			h.templatesWith(w, r, http.StatusUnprocessableEntity, "", templatesPage{Form: f, Other: []string{msg}})
			return
		}
		h.failErr(w, r, err)
		return
	}
	h.templatesWith(w, r, http.StatusOK, "Template "+t.Name+" ("+t.Language+") was submitted to Meta: "+t.Status.String()+
		" until Meta's review.", templatesPage{Form: templateForm{Language: f.Language, Category: f.Category, WABAID: f.WABAID}})
}

// draft is the form's template in Meta's terms, and which form field each
// component path prefix stands for.
func (f templateForm) draft() (domain.TemplateDraft, map[string]string) {
	d := domain.TemplateDraft{Name: f.Name, Language: f.Language, Category: f.Category}
	fields := map[string]string{"name": "name", "language": "language", "category": "category"}
	add := func(c domain.DraftComponent, names map[string]string) {
		p := "components[" + itoa(len(d.Components)) + "]"
		for suffix, field := range names {
			fields[p+suffix] = field
		}
		d.Components = append(d.Components, c)
	}
	if f.HeaderText != "" {
		c := domain.DraftComponent{Type: "HEADER", Format: "TEXT", Text: f.HeaderText}
		if f.HeaderExample != "" {
			c.Example.HeaderText = []string{f.HeaderExample}
		}
		add(c, map[string]string{"": "headerText", ".text": "headerText", ".example.headerText": "headerExample"})
	}
	auth := strings.EqualFold(f.Category, "AUTHENTICATION")
	body := domain.DraftComponent{Type: "BODY", Text: f.Body, Example: domain.DraftExample{BodyText: lines(f.BodyExamples)},
		AddSecurityRecommendation: auth}
	if auth {
		body.Text = ""
	}
	add(body, map[string]string{"": "body", ".text": "body", ".example.bodyText": "bodyExamples"})
	if f.Footer != "" {
		add(domain.DraftComponent{Type: "FOOTER", Text: f.Footer}, map[string]string{"": "footer", ".text": "footer"})
	}
	var buttons []domain.DraftButton
	names := map[string]string{"": "quickReplies", ".buttons": "quickReplies"}
	if auth {
		buttons = append(buttons, domain.DraftButton{Type: "OTP", OTPType: "COPY_CODE"})
	}
	for _, q := range lines(f.QuickReplies) {
		names[".buttons["+itoa(len(buttons))+"]"] = "quickReplies"
		buttons = append(buttons, domain.DraftButton{Type: "QUICK_REPLY", Text: q})
	}
	if f.URLText != "" || f.URL != "" {
		names[".buttons["+itoa(len(buttons))+"]"] = "url"
		names[".buttons["+itoa(len(buttons))+"].text"] = "urlText"
		names[".buttons["+itoa(len(buttons))+"].example"] = "urlExample"
		buttons = append(buttons, domain.DraftButton{Type: "URL", Text: f.URLText, URL: f.URL, Example: f.URLExample})
	}
	if len(buttons) > 0 {
		add(domain.DraftComponent{Type: "BUTTONS", Buttons: buttons}, names)
	}
	return d, fields
}

// fieldOf is the form field a finding's path is about: the longest known
// prefix of it, or "".
func fieldOf(path string, fields map[string]string) string {
	best, field := -1, ""
	for p, f := range fields {
		if (path == p || strings.HasPrefix(path, p+".") || strings.HasPrefix(path, p+"[")) && len(p) > best {
			best, field = len(p), f
		}
	}
	return field
}

func itoa(n int) string {
	const digits = "0123456789"
	if n < 10 {
		return digits[n : n+1]
	}
	return itoa(n/10) + digits[n%10:n%10+1]
}
