package dashboard

import (
	"encoding/json"
	"html"
	"html/template"
	"net/http"
	"strconv"
	"strings"

	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

type campaignsPage struct {
	Campaigns []app.CampaignView
	Next      string
}

func (h *dash) campaigns(w http.ResponseWriter, r *http.Request) {
	page, err := h.d.ListCampaigns.Handle(r.Context(), app.ListCampaigns{
		Workspace: operator(r).session.Workspace, Page: ports.Page{Cursor: r.URL.Query().Get("cursor")}})
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, "campaigns", view{Title: "Campaigns", Nav: "campaigns",
		Page: campaignsPage{Campaigns: page.Campaigns, Next: page.NextCursor}})
}

// campaignForm is the new-campaign form as entered, kept when it is
// refused so nothing typed is lost.
type campaignForm struct {
	Name, Source, TemplateName, Language, HeaderFormat, HeaderText, Body, Footer, Labels string
	Category                                                                             string
	Activate                                                                             bool
	// Number is the business number (pn_…) the campaign sends from; ""
	// takes the workspace's only one.
	Number string
}

type newCampaignPage struct {
	Form campaignForm
	// Numbers are the business numbers the workspace may send from, to
	// choose among when there are several.
	Numbers    []domain.BusinessNumber
	Templates  []domain.SyncedTemplate
	Headers    []string
	Categories []string
}

func (h *dash) newCampaign(w http.ResponseWriter, r *http.Request) {
	h.newCampaignWith(w, r, http.StatusOK, "", campaignForm{Source: "local", Language: "en_US", HeaderFormat: "none",
		Category: domain.CategoryMarketing.String()})
}

func (h *dash) newCampaignWith(w http.ResponseWriter, r *http.Request, status int, msg string, f campaignForm) {
	ws := operator(r).session.Workspace
	ts, err := h.d.ListTemplates.Handle(r.Context(), app.ListTemplates{Workspace: ws})
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	var numbers []domain.BusinessNumber
	if h.d.PhoneNumbers != nil {
		if numbers, err = h.d.PhoneNumbers.Handle(r.Context(), domain.Principal{Workspace: ws, Mode: domain.ModeLive}); err != nil {
			h.failErr(w, r, err)
			return
		}
	}
	h.render(w, r, status, "campaign_new", view{Title: "New campaign", Nav: "campaigns", Error: msg,
		Page: newCampaignPage{Form: f, Templates: ts, Numbers: numbers, Headers: []string{"none", "text", "image", "video", "document"},
			Categories: []string{domain.CategoryMarketing.String(), domain.CategoryUtility.String(), domain.CategoryAuthentication.String()}}})
}

// createCampaign stores a campaign from the form: a synced template
// ("synced:NAME:LANGUAGE") or one defined here, for the sandbox or ahead of
// a sync.
func (h *dash) createCampaign(w http.ResponseWriter, r *http.Request) {
	f := campaignForm{Name: r.PostForm.Get("name"), Source: r.PostForm.Get("source"),
		TemplateName: strings.TrimSpace(r.PostForm.Get("templateName")), Language: strings.TrimSpace(r.PostForm.Get("language")),
		HeaderFormat: r.PostForm.Get("headerFormat"), HeaderText: r.PostForm.Get("headerText"), Category: r.PostForm.Get("category"),
		Body: r.PostForm.Get("body"), Footer: r.PostForm.Get("footer"), Labels: r.PostForm.Get("labels"), Number: r.PostForm.Get("phoneNumberId"),
		Activate: r.PostForm.Get("activate") != ""}
	cmd := app.CreateCampaign{Workspace: string(operator(r).session.Workspace), Name: f.Name,
		VariableLabels: lines(f.Labels), Activate: f.Activate, PhoneNumberID: f.Number}
	var err error
	if synced, ok := strings.CutPrefix(f.Source, "synced:"); ok {
		name, lang, _ := strings.Cut(synced, ":")
		cmd.TemplateName, cmd.Language = name, lang
	} else {
		cmd.TemplateName, cmd.Language, cmd.HeaderText, cmd.Footer = f.TemplateName, f.Language, f.HeaderText, f.Footer
		cmd.Body = strings.ReplaceAll(f.Body, "\r\n", "\n")
		if cmd.Body == "" {
			err = domain.InvalidParameter("body", "a template defined here needs a body")
		}
		if f.HeaderFormat != "" && err == nil {
			cmd.HeaderFormat, err = domain.ParseHeaderFormat(f.HeaderFormat)
		}
		if f.Category != "" && err == nil {
			cmd.Category, err = domain.ParseTemplateCategory(f.Category)
		}
	}
	var c domain.Campaign
	if err == nil {
		c, err = h.d.CreateCampaign.Handle(r.Context(), cmd)
	}
	if err != nil {
		if msg := formError(err); msg != "" {
			h.newCampaignWith(w, r, http.StatusUnprocessableEntity, msg, f)
			return
		}
		h.failErr(w, r, err)
		return
	}
	http.Redirect(w, r, "/dashboard/campaigns/"+string(c.ID), http.StatusSeeOther)
}

// lines splits a textarea into trimmed lines, dropping trailing empty ones.
func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n") {
		out = append(out, strings.TrimSpace(l))
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

type campaignPage struct {
	Campaign domain.Campaign
	Stats    domain.CampaignStats
	ByMode   domain.ModeStats
	Timeline domain.Timeline
	Messages []domain.Message
	Statuses []string
	Preview  template.HTML
	Parts    previewParts
	Media    string
	Curl     string
	// Name, Labels and Slots fill the mapping editor: the stored values,
	// or those just refused.
	Name   string
	Labels []string
	Slots  []slotRow
}

// slotRow is one slot in the mapping editor: where it sits, what it
// fills, its label and where its value comes from (Source is position,
// value or media).
type slotRow struct {
	Key, Describes, Label string
	Source                string
	Position, Value       string
	// MediaAllowed says the slot may take mediaHeaderUrl: the template's
	// own media header.
	MediaAllowed bool
}

func slotRows(t domain.Template) []slotRow {
	var rows []slotRow
	for _, s := range t.AllSlots() {
		r := slotRow{Key: s.Key, Describes: s.Describe(), Label: s.Label,
			MediaAllowed: s.Kind == domain.SlotHeaderMedia && s.Card < 0}
		switch {
		case s.Source.Position > 0:
			r.Source, r.Position = "position", strconv.Itoa(s.Source.Position)
		case s.Source.MediaHeaderURL:
			r.Source = "media"
		default:
			r.Source, r.Value = "value", s.Source.Value
		}
		rows = append(rows, r)
	}
	return rows
}

func (h *dash) campaign(w http.ResponseWriter, r *http.Request) {
	var v view
	if r.URL.Query().Get("saved") != "" {
		v.Notice = "The campaign was saved."
	}
	h.campaignWith(w, r, http.StatusOK, v, nil)
}

// campaignWith renders a campaign's page; edit, when not nil, is a refused
// mapping edit to show as entered.
func (h *dash) campaignWith(w http.ResponseWriter, r *http.Request, status int, v view, edit *campaignPage) {
	ctx, ws, id := r.Context(), operator(r).session.Workspace, r.PathValue("id")
	stats, err := h.d.CampaignStats.Handle(ctx, app.GetCampaignStats{Principal: domain.Principal{Workspace: ws}, CampaignID: id})
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	msgs, err := h.d.CampaignMessages.Handle(ctx, app.ListCampaignMessages{Workspace: ws, CampaignID: id, Page: ports.Page{Limit: 20}})
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	c := stats.Campaign
	p := campaignPage{Campaign: c, Stats: stats.Stats, ByMode: stats.ByMode, Timeline: stats.Timeline, Messages: msgs.Messages,
		Preview: preview(c.Template), Parts: partsOf(c.Template), Media: mediaRequirements(c.Template), Curl: curlFor(r, c), Name: c.Name}
	for _, s := range domain.MessageStatuses() {
		p.Statuses = append(p.Statuses, s.String())
	}
	for _, ph := range c.Template.Placeholders {
		p.Labels = append(p.Labels, ph.Label)
	}
	p.Slots = slotRows(c.Template)
	if edit != nil {
		p.Name, p.Labels = edit.Name, edit.Labels
		if edit.Slots != nil {
			p.Slots = edit.Slots
		} else {
			// A form of labels alone: the body's slots show them.
			k := 0
			for i := range p.Slots {
				if strings.HasPrefix(p.Slots[i].Key, "body.") && k < len(edit.Labels) {
					p.Slots[i].Label = edit.Labels[k]
					k++
				}
			}
		}
	}
	v.Title, v.Nav, v.Page = c.Name, "campaigns", p
	h.render(w, r, status, "campaign", v)
}

// editCampaign saves the mapping editor: the name, and for every slot its
// label and where its value comes from. A form of labels alone (one per
// body placeholder, as the editor had before slots) relabels the body.
func (h *dash) editCampaign(w http.ResponseWriter, r *http.Request) {
	edit := campaignPage{Name: r.PostForm.Get("name"), Labels: r.PostForm["label"]}
	var err error
	if keys := r.PostForm["slot"]; keys != nil {
		var entries []domain.MappingEntry
		edit.Slots, entries = slotsFromForm(r, keys)
		name := edit.Name
		_, err = h.d.RemapCampaign.Handle(r.Context(), app.RemapCampaign{Workspace: operator(r).session.Workspace,
			CampaignID: r.PathValue("id"), Name: &name, Mapping: entries})
	} else {
		_, err = h.d.EditCampaign.Handle(r.Context(), app.EditCampaign{Workspace: operator(r).session.Workspace,
			CampaignID: r.PathValue("id"), Name: edit.Name, VariableLabels: edit.Labels})
	}
	if msg := formError(err); msg != "" {
		h.campaignWith(w, r, http.StatusUnprocessableEntity, view{Error: msg}, &edit)
		return
	}
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	http.Redirect(w, r, "/dashboard/campaigns/"+r.PathValue("id")+"?saved=1", http.StatusSeeOther)
}

// slotsFromForm reads the editor's rows (parallel fields slot, label,
// source, position, value) as entered, and as mapping entries.
func slotsFromForm(r *http.Request, keys []string) ([]slotRow, []domain.MappingEntry) {
	at := func(field string, i int) string {
		if vs := r.PostForm[field]; i < len(vs) {
			return vs[i]
		}
		return ""
	}
	rows := make([]slotRow, len(keys))
	entries := make([]domain.MappingEntry, len(keys))
	for i, k := range keys {
		row := slotRow{Key: k, Label: at("label", i), Source: at("source", i), Position: strings.TrimSpace(at("position", i)),
			Value: at("value", i), MediaAllowed: at("media-allowed", i) == "1", Describes: at("describes", i)}
		label := strings.TrimSpace(row.Label)
		e := domain.MappingEntry{Slot: k, Label: &label}
		switch row.Source {
		case "position":
			n, err := strconv.Atoi(row.Position)
			if err != nil || n < 1 {
				n = -1 // refused by the domain: a position is 1 to 100
			}
			e.Position = n
		case "media":
			e.MediaHeaderURL = true
		default:
			v := row.Value
			e.Value = &v
		}
		rows[i], entries[i] = row, e
	}
	return rows, entries
}

func (h *dash) changeStatus(w http.ResponseWriter, r *http.Request) {
	to, err := domain.ParseCampaignStatus(r.PostForm.Get("to"))
	if err == nil {
		_, err = h.d.ChangeStatus.Handle(r.Context(), app.ChangeCampaignStatus{
			Workspace: string(operator(r).session.Workspace), CampaignID: r.PathValue("id"), To: to})
	}
	if msg := formError(err); msg != "" {
		h.campaignWith(w, r, http.StatusConflict, view{Error: msg}, nil)
		return
	}
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	http.Redirect(w, r, "/dashboard/campaigns/"+r.PathValue("id"), http.StatusSeeOther)
}

// preview renders a template's body with each {{n}} marked and named by
// its label (isolated, see bidi.go); everything else is escaped text.
func preview(t domain.Template) template.HTML {
	var b strings.Builder
	rest := t.Body
	for {
		i := strings.Index(rest, "{{")
		j := strings.Index(rest[max(i, 0):], "}}")
		if i < 0 || j < 0 {
			break
		}
		b.WriteString(html.EscapeString(shown(rest[:i])))
		inner := rest[i+2 : i+j]
		label := html.EscapeString("{{" + shown(inner) + "}}")
		if n, err := strconv.Atoi(inner); err == nil && n >= 1 && n <= len(t.Placeholders) && t.Placeholders[n-1].Label != "" {
			label += " <bdi>" + html.EscapeString(shown(t.Placeholders[n-1].Label)) + "</bdi>"
		}
		b.WriteString(`<mark class="var">` + label + `</mark>`)
		rest = rest[i+j+2:]
	}
	b.WriteString(html.EscapeString(shown(rest)))
	return template.HTML(b.String()) // every piece above is escaped
}

// mediaRequirements says what a send must carry for the template's header.
func mediaRequirements(t domain.Template) string {
	f := t.HeaderFormat
	if names := f.MediaFormatNames(); names != "" {
		return "Every send needs mediaHeaderUrl: an absolute https URL of a " + names + " file of at most " +
			strconv.FormatInt(f.MaxMediaSize()>>20, 10) + " MB, without credentials, on a public host. Herald checks the file before accepting the send."
	}
	if f == domain.HeaderLocation {
		return "The header is a location, filled from variables as latitude,longitude;name;address. Leave mediaHeaderUrl out."
	}
	if f == domain.HeaderText && strings.Contains(t.HeaderText, "{{") {
		return "The header is text with a placeholder, filled from variables (see the mapping). Leave mediaHeaderUrl out."
	}
	if f == domain.HeaderText {
		return "The header is text, fixed by the template. Leave mediaHeaderUrl out."
	}
	return "The template has no header. Leave mediaHeaderUrl out."
}

// curlFor is a ready-to-paste send through this campaign, on the address
// the dashboard was reached at, with a placeholder value per variable.
func curlFor(r *http.Request, c domain.Campaign) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	body := map[string]any{"phoneNumber": "+14155550123", "campaignId": string(c.ID)}
	if n := c.Template.VariableCount(); n > 0 {
		vars := make([]string, n)
		for _, s := range c.Template.AllSlots() {
			if p := s.Source.Position; p > 0 && vars[p-1] == "" {
				vars[p-1] = s.Label
			}
		}
		for i := range vars {
			if vars[i] == "" {
				vars[i] = "value " + strconv.Itoa(i+1)
			}
		}
		body["variables"] = vars
	}
	if hs, ok := c.Template.MediaHeaderSlot(); ok {
		switch hs.Media {
		case domain.HeaderImage:
			body["mediaHeaderUrl"] = "https://example.com/header.jpg"
		case domain.HeaderVideo:
			body["mediaHeaderUrl"] = "https://example.com/header.mp4"
		case domain.HeaderDocument:
			body["mediaHeaderUrl"] = "https://example.com/header.pdf"
		}
	}
	raw, _ := json.Marshal(body)
	raw = []byte(escapeFormatChars(string(raw))) // labels are shown, not obeyed (see bidi.go)
	quote := func(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
	return "curl -sS -X POST " + quote(scheme+"://"+r.Host+"/v1/messages/send-campaign") + ` \` + "\n" +
		`  -H "X-API-KEY: $HERALD_API_KEY" \` + "\n" +
		`  -H 'Content-Type: application/json' \` + "\n" +
		"  -d " + quote(string(raw))
}
