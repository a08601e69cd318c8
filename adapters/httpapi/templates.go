package httpapi

import (
	"errors"
	"net/http"
	"strings"

	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/domain"
)

// findingDTO is one lint finding of a refused template.
type findingDTO struct {
	Path    string `json:"path"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

func toFindingDTOs(fs []domain.LintFinding) []findingDTO {
	if fs == nil {
		return nil
	}
	out := make([]findingDTO, len(fs))
	for i, f := range fs {
		out[i] = findingDTO{Path: f.Path, Code: f.Code, Message: f.Message}
	}
	return out
}

// syncedTemplateDTO is one of the business account's templates: what Meta
// says of it, its texts and slots, and whether Herald can send it.
type syncedTemplateDTO struct {
	Name       string                `json:"name"`
	Language   string                `json:"language"`
	Status     string                `json:"status"`
	Category   string                `json:"category"`
	ProviderID string                `json:"providerId"`
	WABAID     string                `json:"wabaId"`
	Components templateComponentsDTO `json:"components"`
	Slots      []slotDTO             `json:"slots"`
	Sendable   bool                  `json:"sendable"`
	Reason     *string               `json:"unsendableReason"`
	SyncedAt   string                `json:"syncedAt"`
	Sandbox    bool                  `json:"sandbox"`
}

// templateComponentsDTO are a template's texts and buttons as Herald
// keeps them.
type templateComponentsDTO struct {
	HeaderFormat string              `json:"headerFormat"`
	HeaderText   string              `json:"headerText"`
	Body         string              `json:"body"`
	Footer       string              `json:"footer"`
	Buttons      []templateButtonDTO `json:"buttons"`
}

// templateButtonDTO is one of a template's buttons, in Meta's words.
type templateButtonDTO struct {
	Type        string `json:"type"`
	Text        string `json:"text"`
	URL         string `json:"url,omitempty"`
	PhoneNumber string `json:"phoneNumber,omitempty"`
}

// buttonTypes are the API's (Meta's) names of the button kinds.
var buttonTypes = map[domain.ButtonKind]string{
	domain.ButtonQuickReply: "QUICK_REPLY", domain.ButtonURL: "URL", domain.ButtonPhone: "PHONE_NUMBER",
	domain.ButtonVoiceCall: "VOICE_CALL", domain.ButtonCopyCode: "COPY_CODE", domain.ButtonOTP: "OTP",
}

func toTemplateButtonDTOs(t domain.Template) []templateButtonDTO {
	out := []templateButtonDTO{}
	for _, b := range t.AllButtons() {
		out = append(out, templateButtonDTO{Type: buttonTypes[b.Kind], Text: b.Text, URL: b.URL, PhoneNumber: b.PhoneNumber})
	}
	return out
}

type templateListDTO struct {
	Data []syncedTemplateDTO `json:"data"`
}

func toSyncedTemplateDTO(t domain.SyncedTemplate) syncedTemplateDTO {
	d := t.Definition
	hf := d.HeaderFormat
	if hf.IsZero() {
		hf = domain.HeaderNone
	}
	out := syncedTemplateDTO{Name: t.Name, Language: t.Language, Status: t.Status.String(), Category: t.Category,
		ProviderID: t.ProviderID, Slots: []slotDTO{}, SyncedAt: rfc3339(t.SyncedAt), Sandbox: t.Account == app.SandboxAccount,
		WABAID: t.Account,
		Components: templateComponentsDTO{HeaderFormat: hf.String(), HeaderText: d.HeaderText, Body: d.Body, Footer: d.Footer,
			Buttons: toTemplateButtonDTOs(d)}}
	if out.Sandbox {
		out.WABAID = ""
	}
	if out.Status == "" {
		out.Status = "UNKNOWN"
	}
	if t.Unsupported != "" {
		r := t.Unsupported
		out.Reason = &r
		return out
	}
	out.Slots = toSlotDTOs(d)
	switch {
	case t.Status != domain.TemplateApproved:
		r := "Meta has not approved it: its status is " + out.Status
		out.Reason = &r
	default:
		out.Sendable = true
	}
	return out
}

func (a *api) listTemplates(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	status, name := strings.ToUpper(q.Get("status")), q.Get("name")
	p := principalFrom(r.Context())
	ts, err := a.d.ListTemplates.Handle(r.Context(), app.ListTemplates{Workspace: p.Workspace, WABAID: q.Get("wabaId")})
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	out := templateListDTO{Data: []syncedTemplateDTO{}}
	for _, t := range ts {
		if (status == "" || t.Status.String() == status) && (name == "" || t.Name == name) {
			out.Data = append(out.Data, toSyncedTemplateDTO(t))
		}
	}
	writeJSON(w, http.StatusOK, out)
}

// The request body of POST /v1/templates: Meta's template definition in
// the API's camelCase.
type (
	createTemplateRequest struct {
		Name            string              `json:"name"`
		Language        string              `json:"language"`
		Category        string              `json:"category"`
		ParameterFormat string              `json:"parameterFormat"`
		Components      []draftComponentDTO `json:"components"`
		// PhoneNumberID or WABAID chooses the business account.
		PhoneNumberID string `json:"phoneNumberId"`
		WABAID        string `json:"wabaId"`
	}
	draftComponentDTO struct {
		Type                      string           `json:"type"`
		Format                    string           `json:"format"`
		Text                      string           `json:"text"`
		Example                   *draftExampleDTO `json:"example"`
		Buttons                   []draftButtonDTO `json:"buttons"`
		Cards                     []draftCardDTO   `json:"cards"`
		AddSecurityRecommendation bool             `json:"addSecurityRecommendation"`
		CodeExpirationMinutes     int              `json:"codeExpirationMinutes"`
		OfferText                 string           `json:"offerText"`
		HasExpiration             bool             `json:"hasExpiration"`
	}
	draftExampleDTO struct {
		HeaderText   []string          `json:"headerText"`
		HeaderHandle []string          `json:"headerHandle"`
		BodyText     []string          `json:"bodyText"`
		NamedParams  []namedExampleDTO `json:"namedParams"`
	}
	namedExampleDTO struct {
		Name    string `json:"name"`
		Example string `json:"example"`
	}
	draftButtonDTO struct {
		Type                 string            `json:"type"`
		Text                 string            `json:"text"`
		URL                  string            `json:"url"`
		PhoneNumber          string            `json:"phoneNumber"`
		Example              string            `json:"example"`
		OTPType              string            `json:"otpType"`
		SupportedApps        []supportedAppDTO `json:"supportedApps"`
		ZeroTapTermsAccepted bool              `json:"zeroTapTermsAccepted"`
	}
	supportedAppDTO struct {
		PackageName   string `json:"packageName"`
		SignatureHash string `json:"signatureHash"`
	}
	draftCardDTO struct {
		Components []draftComponentDTO `json:"components"`
	}
)

var createTemplateSpec = bodySpec{
	fields:   []string{"name", "language", "category", "parameterFormat", "components", "phoneNumberId", "wabaId"},
	required: []string{"name", "language", "category", "components"},
}

// ToDraft converts the request to the domain's draft.
func (in createTemplateRequest) toDraft() domain.TemplateDraft {
	return domain.TemplateDraft{Name: in.Name, Language: in.Language, Category: in.Category,
		ParameterFormat: in.ParameterFormat, Components: toDraftComponents(in.Components)}
}

func toDraftComponents(in []draftComponentDTO) []domain.DraftComponent {
	out := make([]domain.DraftComponent, len(in))
	for i, c := range in {
		d := domain.DraftComponent{Type: c.Type, Format: c.Format, Text: c.Text,
			AddSecurityRecommendation: c.AddSecurityRecommendation, CodeExpirationMinutes: c.CodeExpirationMinutes,
			OfferText: c.OfferText, HasExpiration: c.HasExpiration}
		if e := c.Example; e != nil {
			d.Example = domain.DraftExample{HeaderText: e.HeaderText, HeaderHandle: e.HeaderHandle, BodyText: e.BodyText}
			for _, n := range e.NamedParams {
				d.Example.NamedParams = append(d.Example.NamedParams, domain.NamedExample{Name: n.Name, Example: n.Example})
			}
		}
		for _, b := range c.Buttons {
			db := domain.DraftButton{Type: b.Type, Text: b.Text, URL: b.URL, PhoneNumber: b.PhoneNumber, Example: b.Example,
				OTPType: b.OTPType, ZeroTapTermsAccepted: b.ZeroTapTermsAccepted}
			for _, a := range b.SupportedApps {
				db.SupportedApps = append(db.SupportedApps, domain.SupportedApp{PackageName: a.PackageName, SignatureHash: a.SignatureHash})
			}
			d.Buttons = append(d.Buttons, db)
		}
		for _, card := range c.Cards {
			d.Cards = append(d.Cards, domain.DraftCard{Components: toDraftComponents(card.Components)})
		}
		out[i] = d
	}
	return out
}

func (a *api) createTemplate(w http.ResponseWriter, r *http.Request) {
	var in createTemplateRequest
	if !a.decodeBodyNested(w, r, createTemplateSpec, &in) {
		return
	}
	p := principalFrom(r.Context())
	t, err := a.d.SubmitTemplate.Handle(r.Context(), app.SubmitTemplate{Draft: in.toDraft(), Mode: p.Mode,
		Workspace: p.Workspace, PhoneNumberID: in.PhoneNumberID, WABAID: in.WABAID})
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	writeJSON(w, http.StatusCreated, toSyncedTemplateDTO(t))
}

func (a *api) deleteTemplate(w http.ResponseWriter, r *http.Request) {
	p := principalFrom(r.Context())
	cmd := app.DeleteTemplate{Name: r.PathValue("name"), Mode: p.Mode, Workspace: p.Workspace, WABAID: r.URL.Query().Get("wabaId")}
	if err := a.d.DeleteTemplate.Handle(r.Context(), cmd); err != nil {
		writeError(w, r, a.log, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// DecodeTemplateDraft reads a template in POST /v1/templates' shape, for
// the CLI's herald templates create --file: unknown fields are refused at
// every level.
func DecodeTemplateDraft(body []byte) (domain.TemplateDraft, error) {
	var in createTemplateRequest
	if derr := decodeNested(body, &in); derr != nil {
		return domain.TemplateDraft{}, errors.New(derr.detail)
	}
	return in.toDraft(), nil
}
