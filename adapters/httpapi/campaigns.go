package httpapi

import (
	"net/http"
	"sort"
	"time"

	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/domain"
)

type templateDTO struct {
	Name         string `json:"name"`
	Language     string `json:"language"`
	HeaderFormat string `json:"headerFormat"`
	HeaderText   string `json:"headerText"`
	Body         string `json:"body"`
	Footer       string `json:"footer"`
	// Status is Meta's review status, null for a template defined in
	// Herald that no sync has seen.
	Status *string `json:"status"`
	// Category is Meta's category (or the one given for a template defined
	// in Herald), null when not known, which counts as marketing.
	Category *string `json:"category"`
}

type placeholderDTO struct {
	Index int    `json:"index"`
	Label string `json:"label"`
}

type statsDTO struct {
	CampaignID   string         `json:"campaignId"`
	Total        int            `json:"total"`
	Counts       map[string]int `json:"counts"`
	DeliveryRate float64        `json:"deliveryRate"`
	ReadRate     float64        `json:"readRate"`
	// FailuresByCode lists failed messages per Meta error code and
	// Herald's own code, most frequent first.
	FailuresByCode []failureCountDTO `json:"failuresByCode"`
}

type failureCountDTO struct {
	Code       int     `json:"code"`
	HeraldCode *string `json:"heraldCode"`
	Count      int     `json:"count"`
}

// slotDTO is one slot of the campaign's template: where it sits, what it
// means and where each send's value comes from.
type slotDTO struct {
	Slot           string  `json:"slot"`
	Kind           string  `json:"kind"`
	Describes      string  `json:"describes"`
	Label          string  `json:"label"`
	Position       *int    `json:"position"`
	Value          *string `json:"value"`
	MediaHeaderURL bool    `json:"mediaHeaderUrl"`
}

func toSlotDTOs(t domain.Template) []slotDTO {
	slots := t.AllSlots()
	out := make([]slotDTO, len(slots))
	for i, s := range slots {
		d := slotDTO{Slot: s.Key, Kind: s.Kind.String(), Describes: s.Describe(), Label: s.Label,
			MediaHeaderURL: s.Source.MediaHeaderURL}
		switch {
		case s.Source.Position > 0:
			p := s.Source.Position
			d.Position = &p
		case !s.Source.MediaHeaderURL:
			v := s.Source.Value
			d.Value = &v
		}
		out[i] = d
	}
	return out
}

type campaignDTO struct {
	ID           string           `json:"id"`
	Name         string           `json:"name"`
	Status       string           `json:"status"`
	Template     templateDTO      `json:"template"`
	Placeholders []placeholderDTO `json:"placeholders"`
	// Slots are every value a send fills, and VariableCount how many
	// variables a send gives.
	Slots         []slotDTO `json:"slots"`
	VariableCount int       `json:"variableCount"`
	HeaderFormat  string    `json:"headerFormat"`
	// PhoneNumberID is the business number the campaign sends from; null
	// when it names none (the server's HERALD_WHATSAPP_* number).
	PhoneNumberID *string  `json:"phoneNumberId"`
	Stats         statsDTO `json:"stats"`
	CreatedAt     string   `json:"createdAt"`
	UpdatedAt     string   `json:"updatedAt"`
	// PausedReason says why Herald paused the campaign by itself
	// (quality_red); absent otherwise.
	PausedReason *string `json:"pausedReason,omitempty"`
}

type campaignListDTO struct {
	Data       []campaignDTO `json:"data"`
	NextCursor *string       `json:"nextCursor"`
}

// toStatsDTO is a campaign's statistics as a key sees them: its own mode's
// messages only (decision 0015), so no split by mode.
func toStatsDTO(id domain.CampaignID, s domain.CampaignStats) statsDTO {
	counts := make(map[string]int, len(s.Counts))
	for _, st := range domain.MessageStatuses() {
		counts[st.String()] = s.Counts[st]
	}
	failures := make([]failureCountDTO, 0, len(s.FailuresByCode))
	for k, n := range s.FailuresByCode {
		failures = append(failures, failureCountDTO{Code: k.Code, HeraldCode: nonEmpty(string(k.HeraldCode)), Count: n})
	}
	sort.Slice(failures, func(i, j int) bool {
		a, b := failures[i], failures[j]
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		if a.Code != b.Code {
			return a.Code < b.Code
		}
		return a.HeraldCode == nil && b.HeraldCode != nil || a.HeraldCode != nil && b.HeraldCode != nil && *a.HeraldCode < *b.HeraldCode
	})
	return statsDTO{CampaignID: string(id), Total: s.Total, Counts: counts, DeliveryRate: s.DeliveryRate,
		ReadRate: s.ReadRate, FailuresByCode: failures}
}

func toCampaignDTO(v app.CampaignView) campaignDTO {
	c, t := v.Campaign, v.Campaign.Template
	out := campaignDTO{ID: string(c.ID), Name: c.Name, Status: c.Status.String(),
		Template: templateDTO{Name: t.Name, Language: t.Language, HeaderFormat: t.HeaderFormat.String(),
			HeaderText: t.HeaderText, Body: t.Body, Footer: t.Footer},
		Placeholders: make([]placeholderDTO, len(t.Placeholders)), HeaderFormat: t.HeaderFormat.String(),
		Slots: toSlotDTOs(t), VariableCount: t.VariableCount(),
		Stats: toStatsDTO(c.ID, v.Stats), CreatedAt: rfc3339(c.CreatedAt), UpdatedAt: rfc3339(c.UpdatedAt)}
	if !c.TemplateStatus.IsZero() {
		st := c.TemplateStatus.String()
		out.Template.Status = &st
	}
	out.Template.Category = nonEmpty(c.Category.String())
	out.PhoneNumberID = nonEmpty(string(c.Number))
	out.PausedReason = nonEmpty(c.PausedReason.String())
	for i, p := range t.Placeholders {
		out.Placeholders[i] = placeholderDTO{Index: p.Index, Label: p.Label}
	}
	return out
}

func (a *api) listCampaigns(w http.ResponseWriter, r *http.Request) {
	page, err := pageFrom(r)
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	p := principalFrom(r.Context())
	res, err := a.d.ListCampaigns.Handle(r.Context(), app.ListCampaigns{Workspace: p.Workspace, Mode: p.Mode, Page: page})
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	out := campaignListDTO{Data: make([]campaignDTO, len(res.Campaigns)), NextCursor: nonEmpty(res.NextCursor)}
	for i, v := range res.Campaigns {
		out.Data[i] = toCampaignDTO(v)
	}
	writeJSON(w, http.StatusOK, out)
}

func (a *api) getCampaign(w http.ResponseWriter, r *http.Request) {
	v, err := a.d.GetCampaign.Handle(r.Context(), app.GetCampaign{Principal: principalFrom(r.Context()), CampaignID: r.PathValue("id")})
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	writeJSON(w, http.StatusOK, toCampaignDTO(v))
}

// campaignStatsDTO is the stats endpoint's answer: the counts and rates
// every campaign shows, and the campaign's activity over time.
type campaignStatsDTO struct {
	statsDTO
	Timeline timelineDTO `json:"timeline"`
}

type timelineDTO struct {
	Interval string             `json:"interval"`
	From     string             `json:"from"`
	To       string             `json:"to"`
	Points   []timelinePointDTO `json:"points"`
}

// timelinePointDTO counts the messages that reached each status in one
// interval: accepted (queued), sent, delivered, read, failed.
type timelinePointDTO struct {
	Start     string `json:"start"`
	Accepted  int    `json:"accepted"`
	Sent      int    `json:"sent"`
	Delivered int    `json:"delivered"`
	Read      int    `json:"read"`
	Failed    int    `json:"failed"`
}

func (a *api) campaignStats(w http.ResponseWriter, r *http.Request) {
	q := app.GetCampaignStats{Principal: principalFrom(r.Context()), CampaignID: r.PathValue("id")}
	var err error
	if s := r.URL.Query().Get("interval"); s != "" {
		if q.Interval, err = domain.ParseInterval(s); err != nil {
			writeError(w, r, a.log, err)
			return
		}
	}
	for _, p := range []struct {
		name string
		dst  *time.Time
	}{{"from", &q.From}, {"to", &q.To}} {
		s := r.URL.Query().Get(p.name)
		if s == "" {
			continue
		}
		if *p.dst, err = time.Parse(time.RFC3339, s); err != nil {
			writeError(w, r, a.log, domain.InvalidParameter(p.name, p.name+" must be an RFC 3339 time, e.g. 2026-11-23T00:00:00Z"))
			return
		}
	}
	v, err := a.d.CampaignStats.Handle(r.Context(), q)
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	tl := v.Timeline
	out := campaignStatsDTO{statsDTO: toStatsDTO(domain.CampaignID(r.PathValue("id")), v.Stats),
		Timeline: timelineDTO{Interval: "hour", From: rfc3339(tl.From), To: rfc3339(tl.To), Points: make([]timelinePointDTO, len(tl.Points))}}
	if tl.Interval == domain.IntervalDay {
		out.Timeline.Interval = "day"
	}
	for i, p := range tl.Points {
		c := p.Counts
		out.Timeline.Points[i] = timelinePointDTO{Start: rfc3339(p.Start), Accepted: c[domain.StatusQueued], Sent: c[domain.StatusSent],
			Delivered: c[domain.StatusDelivered], Read: c[domain.StatusRead], Failed: c[domain.StatusFailed]}
	}
	writeJSON(w, http.StatusOK, out)
}
