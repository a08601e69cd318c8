package httpapi

import (
	"net/http"
	"time"

	"github.com/heraldhq/herald/domain"

	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/ports"
)

type sendCampaignRequest struct {
	PhoneNumber    string   `json:"phoneNumber"`
	CampaignID     string   `json:"campaignId"`
	Variables      []string `json:"variables"`
	MediaHeaderURL string   `json:"mediaHeaderUrl"`
}

var sendCampaignSpec = bodySpec{
	fields:   []string{"phoneNumber", "campaignId", "variables", "mediaHeaderUrl"},
	required: []string{"phoneNumber", "campaignId"},
}

type acceptedMessage struct {
	ID          string `json:"id"`
	Status      string `json:"status"`
	CampaignID  string `json:"campaignId"`
	ContactID   string `json:"contactId"`
	PhoneNumber string `json:"phoneNumber"`
	CreatedAt   string `json:"createdAt"`
}

type dryRunResult struct {
	DryRun       bool                  `json:"dryRun"`
	CampaignID   string                `json:"campaignId"`
	PhoneNumber  string                `json:"phoneNumber"`
	RenderedBody string                `json:"renderedBody"`
	Payload      ports.TemplatePayload `json:"payload"`
}

func (a *api) sendCampaign(w http.ResponseWriter, r *http.Request) {
	dryRun := false
	switch r.URL.Query().Get("dryRun") {
	case "", "false":
	case "true":
		dryRun = true
	default:
		writeProblem(w, r, "invalid_parameter", "dryRun", "dryRun must be true or false")
		return
	}
	key, err := idempotencyKey(r)
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	var in sendCampaignRequest
	if !a.decodeBody(w, r, sendCampaignSpec, &in) {
		return
	}
	res, err := a.d.SendCampaign.Handle(r.Context(), app.SendCampaignMessage{
		Principal: principalFrom(r.Context()), PhoneNumber: in.PhoneNumber, CampaignID: in.CampaignID,
		Variables: in.Variables, MediaHeaderURL: in.MediaHeaderURL, DryRun: dryRun, IdempotencyKey: key,
	})
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	m := res.Message
	if res.DryRun {
		writeJSON(w, http.StatusOK, dryRunResult{DryRun: true, CampaignID: string(m.CampaignID),
			PhoneNumber: m.Phone.String(), RenderedBody: m.RenderedBody, Payload: res.Payload})
		return
	}
	w.Header().Set("Location", "/v1/messages/"+string(m.ID))
	if res.Replayed {
		w.Header().Set("Idempotent-Replayed", "true")
	}
	// The answer describes the acceptance, so a replay is byte for byte the
	// first answer: the status is the one every message is accepted in.
	writeJSON(w, http.StatusAccepted, acceptedMessage{ID: string(m.ID), Status: domain.StatusQueued.String(),
		CampaignID: string(m.CampaignID), ContactID: string(m.ContactID), PhoneNumber: m.Phone.String(),
		CreatedAt: rfc3339(m.CreatedAt)})
}

// idempotencyKey reads the optional Idempotency-Key header: absent is "",
// present it must be exactly one well-formed key.
func idempotencyKey(r *http.Request) (domain.IdempotencyKey, error) {
	vals, ok := r.Header[http.CanonicalHeaderKey("Idempotency-Key")]
	if !ok {
		return "", nil
	}
	if len(vals) > 1 {
		return "", &domain.Error{Code: domain.CodeInvalidIdempotencyKey, Param: "Idempotency-Key",
			Detail: "send one Idempotency-Key header, not several"}
	}
	return domain.ParseIdempotencyKey(vals[0])
}

type messageDTO struct {
	ID     string `json:"id"`
	Status string `json:"status"`
	// Kind is template or session; Type is a session message's type
	// (null for templates) and ReplyTo the wamid it quotes.
	Kind              string        `json:"kind"`
	Type              *string       `json:"type"`
	ReplyTo           *string       `json:"replyTo"`
	CampaignID        *string       `json:"campaignId"`
	ContactID         string        `json:"contactId"`
	PhoneNumber       string        `json:"phoneNumber"`
	Mode              string        `json:"mode"`
	TemplateName      string        `json:"templateName"`
	Language          string        `json:"language"`
	RenderedBody      string        `json:"renderedBody"`
	MediaHeaderURL    *string       `json:"mediaHeaderUrl"`
	MediaFilename     *string       `json:"mediaHeaderFilename"`
	ProviderMessageID *string       `json:"providerMessageId"`
	WaID              *string       `json:"waId"`
	Error             *messageError `json:"error"`
	Pricing           *pricingDTO   `json:"pricing"`
	History           []statusEntry `json:"history"`
	CreatedAt         string        `json:"createdAt"`
	UpdatedAt         string        `json:"updatedAt"`
}

type messageError struct {
	Code  int    `json:"code"`
	Title string `json:"title"`
	// HeraldCode is Herald's own code when Herald failed the message
	// without sending it (contact_opted_out), with Code 0; null for
	// Meta's failures.
	HeraldCode *string `json:"heraldCode"`
}

// pricingDTO is Meta's pricing of a message, from its status events.
type pricingDTO struct {
	Model    string `json:"model"`
	Type     string `json:"type"`
	Category string `json:"category"`
	Billable bool   `json:"billable"`
}

type statusEntry struct {
	Status string `json:"status"`
	At     string `json:"at"`
}

func (a *api) getMessage(w http.ResponseWriter, r *http.Request) {
	m, err := a.d.GetMessage.Handle(r.Context(), app.GetMessage{Principal: principalFrom(r.Context()), MessageID: r.PathValue("id")})
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	writeJSON(w, http.StatusOK, toMessageDTO(m))
}

type messageListDTO struct {
	Data       []messageDTO `json:"data"`
	NextCursor *string      `json:"nextCursor"`
}

// listMessages answers GET /v1/messages: the key's mode's messages,
// newest first, each as GET /v1/messages/{id} shows it.
func (a *api) listMessages(w http.ResponseWriter, r *http.Request) {
	page, err := pageFrom(r)
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	q := r.URL.Query()
	in := app.ListMessages{Principal: principalFrom(r.Context()), CampaignID: q.Get("campaignId"), Status: q.Get("status"),
		PhoneNumber: q.Get("phoneNumber"), Page: page}
	for _, t := range []struct {
		param string
		dst   *time.Time
	}{{"since", &in.Since}, {"until", &in.Until}} {
		if s := q.Get(t.param); s != "" {
			if *t.dst, err = parseTimeParam(t.param, s); err != nil {
				writeError(w, r, a.log, err)
				return
			}
		}
	}
	res, err := a.d.ListMessages.Handle(r.Context(), in)
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	out := messageListDTO{Data: make([]messageDTO, len(res.Messages)), NextCursor: nonEmpty(res.NextCursor)}
	for i, m := range res.Messages {
		out.Data[i] = toMessageDTO(m)
	}
	writeJSON(w, http.StatusOK, out)
}

// toMessageDTO is m as GET /v1/messages/{id} shows it, and as message
// events carry it.
func toMessageDTO(m domain.Message) messageDTO {
	out := messageDTO{ID: string(m.ID), Status: m.Status.String(), Kind: domain.MessageKindTemplate, CampaignID: nonEmpty(string(m.CampaignID)),
		ContactID: string(m.ContactID), PhoneNumber: m.Phone.String(), Mode: m.Mode.String(),
		TemplateName: m.TemplateName, Language: m.Language, RenderedBody: m.RenderedBody,
		History: make([]statusEntry, len(m.History)), CreatedAt: rfc3339(m.CreatedAt), UpdatedAt: rfc3339(m.UpdatedAt)}
	if m.Session != nil {
		out.Kind, out.Type, out.ReplyTo = domain.MessageKindSession, &m.Session.Type, nonEmpty(m.ReplyTo)
	}
	if m.MediaHeaderURL != "" {
		out.MediaHeaderURL = &m.MediaHeaderURL
	}
	out.MediaFilename = nonEmpty(m.MediaFilename)
	out.ProviderMessageID, out.WaID = nonEmpty(m.ProviderID), nonEmpty(m.WaID)
	if m.Failure != nil {
		out.Error = &messageError{Code: m.Failure.Code, Title: m.Failure.Title, HeraldCode: nonEmpty(string(m.Failure.HeraldCode))}
	}
	if p := m.Pricing; p != nil {
		out.Pricing = &pricingDTO{Model: p.Model, Type: p.Type, Category: p.Category, Billable: p.Billable}
	}
	for i, h := range m.History {
		out.History[i] = statusEntry{Status: h.Status.String(), At: rfc3339(h.At)}
	}
	return out
}
