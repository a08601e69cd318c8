package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/domain"
)

// buttonDTO is one button of a template defined over the API.
type buttonDTO struct {
	Type string `json:"type"`
	Text string `json:"text"`
	URL  string `json:"url"`
}

type offerDTO struct {
	Text          string `json:"text"`
	HasExpiration bool   `json:"hasExpiration"`
}

type cardDTO struct {
	HeaderFormat string      `json:"headerFormat"`
	Body         string      `json:"body"`
	Buttons      []buttonDTO `json:"buttons"`
}

// mappingDTO changes one slot: where its value comes from (one of
// position, value and mediaHeaderUrl, or none to keep it) and its label.
type mappingDTO struct {
	Slot           string  `json:"slot"`
	Position       *int    `json:"position"`
	Value          *string `json:"value"`
	MediaHeaderURL bool    `json:"mediaHeaderUrl"`
	Label          *string `json:"label"`
}

type createCampaignRequest struct {
	Name            string       `json:"name"`
	TemplateName    string       `json:"templateName"`
	Language        string       `json:"language"`
	Category        string       `json:"category"`
	HeaderFormat    string       `json:"headerFormat"`
	HeaderText      string       `json:"headerText"`
	Body            string       `json:"body"`
	Footer          string       `json:"footer"`
	ParameterFormat string       `json:"parameterFormat"`
	Buttons         []buttonDTO  `json:"buttons"`
	Offer           *offerDTO    `json:"offer"`
	Cards           []cardDTO    `json:"cards"`
	Mapping         []mappingDTO `json:"mapping"`
	Activate        bool         `json:"activate"`
	PhoneNumberID   string       `json:"phoneNumberId"`
}

var createCampaignSpec = bodySpec{
	fields: []string{"name", "templateName", "language", "category", "headerFormat", "headerText", "body", "footer",
		"parameterFormat", "buttons", "offer", "cards", "mapping", "activate", "phoneNumberId"},
	required: []string{"name", "templateName", "language"},
}

type patchCampaignRequest struct {
	Name          *string           `json:"name"`
	Mapping       []mappingDTO      `json:"mapping"`
	Labels        map[string]string `json:"labels"`
	PhoneNumberID string            `json:"phoneNumberId"`
}

var patchCampaignSpec = bodySpec{fields: []string{"name", "mapping", "labels", "phoneNumberId"}}

// decodeNested decodes body again refusing unknown names inside nested
// objects (decodeStrict checks the top level), so a misspelt mapping or
// button field is an error rather than ignored.
func decodeNested(body []byte, dst any) *decodeError {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		msg := err.Error()
		if i := strings.Index(msg, "unknown field "); i >= 0 {
			return &decodeError{code: CodeInvalidJSON, detail: strings.TrimPrefix(msg[i:], "json: ")}
		}
		return &decodeError{code: CodeInvalidJSON, detail: "the body is not valid JSON"}
	}
	return nil
}

// decodeBodyNested is decodeBody with nested objects checked too.
func (a *api) decodeBodyNested(w http.ResponseWriter, r *http.Request, spec bodySpec, dst any) bool {
	body, derr := readBody(w, r, a.cfg.BodyLimit)
	if derr == nil {
		derr = decodeStrict(body, spec, dst)
	}
	if derr == nil {
		derr = decodeNested(body, dst)
	}
	if derr != nil {
		writeProblem(w, r, derr.code, derr.param, derr.detail)
		return false
	}
	return true
}

func toMapping(in []mappingDTO) []domain.MappingEntry {
	out := make([]domain.MappingEntry, len(in))
	for i, m := range in {
		out[i] = domain.MappingEntry{Slot: m.Slot, Value: m.Value, MediaHeaderURL: m.MediaHeaderURL, Label: m.Label}
		if m.Position != nil {
			out[i].Position = *m.Position
			if *m.Position == 0 {
				out[i].Position = -1 // refused: positions start at 1
			}
		}
	}
	return out
}

func toButtons(param string, in []buttonDTO) ([]domain.ButtonDef, error) {
	if in == nil {
		return nil, nil
	}
	out := make([]domain.ButtonDef, len(in))
	for i, b := range in {
		k, err := domain.ParseButtonKind(b.Type)
		if err != nil {
			return nil, withFieldParam(err, param+"["+strconv.Itoa(i)+"].type")
		}
		out[i] = domain.ButtonDef{Kind: k, Text: b.Text, URL: b.URL}
	}
	return out, nil
}

// withFieldParam names param on a domain error.
func withFieldParam(err error, param string) error {
	if de, ok := err.(*domain.Error); ok {
		c := *de
		c.Param = param
		return &c
	}
	return err
}

func (a *api) createCampaign(w http.ResponseWriter, r *http.Request) {
	var in createCampaignRequest
	if !a.decodeBodyNested(w, r, createCampaignSpec, &in) {
		return
	}
	cmd, err := toCreateCampaign(in)
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	p := principalFrom(r.Context())
	cmd.Workspace = string(p.Workspace)
	c, err := a.d.CreateCampaign.Handle(r.Context(), cmd)
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	w.Header().Set("Location", "/v1/campaigns/"+string(c.ID))
	writeJSON(w, http.StatusCreated, toCampaignDTO(app.CampaignView{Campaign: c}))
}

func toCreateCampaign(in createCampaignRequest) (app.CreateCampaign, error) {
	cmd := app.CreateCampaign{Name: in.Name, TemplateName: in.TemplateName, Language: in.Language, PhoneNumberID: in.PhoneNumberID,
		HeaderText: in.HeaderText, Body: in.Body, Footer: in.Footer, Mapping: toMapping(in.Mapping), Activate: in.Activate}
	var err error
	if in.HeaderFormat != "" {
		if cmd.HeaderFormat, err = domain.ParseHeaderFormat(in.HeaderFormat); err != nil {
			return cmd, err
		}
	}
	if in.Category != "" {
		if cmd.Category, err = domain.ParseTemplateCategory(in.Category); err != nil {
			return cmd, err
		}
	}
	switch in.ParameterFormat {
	case "", "positional":
	case "named":
		cmd.Named = true
	default:
		return cmd, domain.InvalidParameter("parameterFormat", "parameterFormat is positional or named")
	}
	if cmd.Buttons, err = toButtons("buttons", in.Buttons); err != nil {
		return cmd, err
	}
	if in.Offer != nil {
		cmd.Offer = &domain.OfferDef{Text: in.Offer.Text, HasExpiration: in.Offer.HasExpiration}
	}
	if in.Cards != nil {
		cmd.Cards = make([]domain.CardDef, len(in.Cards))
		for i, c := range in.Cards {
			p := "cards[" + strconv.Itoa(i) + "]"
			f, err := domain.ParseHeaderFormat(c.HeaderFormat)
			if err != nil {
				return cmd, withFieldParam(err, p+".headerFormat")
			}
			bs, err := toButtons(p+".buttons", c.Buttons)
			if err != nil {
				return cmd, err
			}
			cmd.Cards[i] = domain.CardDef{HeaderFormat: f, Body: c.Body, Buttons: bs}
		}
	}
	return cmd, nil
}

func (a *api) patchCampaign(w http.ResponseWriter, r *http.Request) {
	var in patchCampaignRequest
	if !a.decodeBodyNested(w, r, patchCampaignSpec, &in) {
		return
	}
	mapping := toMapping(in.Mapping)
	// Labels by slot, in slot order for a stable answer to a bad one.
	keys := make([]string, 0, len(in.Labels))
	for k := range in.Labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		l := in.Labels[k]
		mapping = append(mapping, domain.MappingEntry{Slot: k, Label: &l})
	}
	p := principalFrom(r.Context())
	_, err := a.d.RemapCampaign.Handle(r.Context(), app.RemapCampaign{Workspace: p.Workspace, CampaignID: r.PathValue("id"),
		Name: in.Name, Mapping: mapping, PhoneNumberID: in.PhoneNumberID})
	if err != nil {
		writeError(w, r, a.log, remapParam(err, len(in.Mapping)))
		return
	}
	a.getCampaign(w, r)
}

// remapParam points an error about a label given in labels (entries after
// the mapping's own) at labels, not at an entry the caller never sent.
func remapParam(err error, mappingEntries int) error {
	de, ok := err.(*domain.Error)
	if !ok || !strings.HasPrefix(de.Param, "mapping[") {
		return err
	}
	i, perr := strconv.Atoi(strings.TrimPrefix(de.Param[:strings.Index(de.Param, "]")], "mapping["))
	if perr != nil || i < mappingEntries {
		return err
	}
	return withFieldParam(err, "labels")
}

func (a *api) activateCampaign(w http.ResponseWriter, r *http.Request) {
	a.changeCampaignStatus(w, r, domain.CampaignActive)
}

func (a *api) pauseCampaign(w http.ResponseWriter, r *http.Request) {
	a.changeCampaignStatus(w, r, domain.CampaignPaused)
}

// changeCampaignStatus moves the campaign, with the CLI's rules: only an
// APPROVED template (or one Meta has never seen) can go live.
func (a *api) changeCampaignStatus(w http.ResponseWriter, r *http.Request, to domain.CampaignStatus) {
	p := principalFrom(r.Context())
	_, err := a.d.ChangeCampaignStatus.Handle(r.Context(), app.ChangeCampaignStatus{Workspace: string(p.Workspace),
		CampaignID: r.PathValue("id"), To: to})
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	a.getCampaign(w, r)
}
