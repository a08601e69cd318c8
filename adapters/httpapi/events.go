package httpapi

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/heraldhq/herald/app/events"
	"github.com/heraldhq/herald/domain"
)

// eventDTO is an event as the pull API shows it: its id and mode, and the
// body its webhooks carry (type, timestamp, data), data as rendered when
// the event happened.
type eventDTO struct {
	ID        string          `json:"id"`
	Type      string          `json:"type"`
	Mode      string          `json:"mode"`
	Timestamp string          `json:"timestamp"`
	Data      json.RawMessage `json:"data"`
}

type eventListDTO struct {
	Data       []eventDTO `json:"data"`
	NextCursor string     `json:"nextCursor"`
	HasMore    bool       `json:"hasMore"`
}

type eventDetailDTO struct {
	eventDTO
	Deliveries []deliveryDTO `json:"deliveries"`
}

type deliveryDTO struct {
	EndpointID    string       `json:"endpointId"`
	State         string       `json:"state"`
	NextAttemptAt *string      `json:"nextAttemptAt"`
	Attempts      []attemptDTO `json:"attempts"`
}

type attemptDTO struct {
	At         string  `json:"at"`
	StatusCode *int    `json:"statusCode"`
	DurationMs float64 `json:"durationMs"`
	Error      *string `json:"error"`
	Response   string  `json:"response"`
}

func toEventDTO(ev domain.Event) (eventDTO, error) {
	var body struct {
		Type      string          `json:"type"`
		Timestamp string          `json:"timestamp"`
		Data      json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(ev.Body, &body); err != nil {
		return eventDTO{}, err
	}
	return eventDTO{ID: string(ev.ID), Type: body.Type, Mode: ev.Mode.String(), Timestamp: body.Timestamp, Data: body.Data}, nil
}

func toAttemptDTO(at domain.DeliveryAttempt) attemptDTO {
	out := attemptDTO{At: rfc3339(at.At), DurationMs: float64(at.Duration.Microseconds()) / 1000,
		Error: nonEmpty(at.Error), Response: strings.ToValidUTF8(string(at.ResponseHead), "\uFFFD")}
	if at.Status != 0 {
		s := at.Status
		out.StatusCode = &s
	}
	return out
}

func (a *api) listEvents(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit := 0
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			writeProblem(w, r, domain.CodeInvalidParameter, "limit", "limit must be a whole number between 1 and "+strconv.Itoa(events.MaxEventPage))
			return
		}
		limit = n
		if limit == 0 {
			limit = -1 // 0 is out of range, not "the default"
		}
	}
	var types []string
	for _, v := range q["types"] {
		for t := range strings.SplitSeq(v, ",") {
			if t = strings.TrimSpace(t); t != "" {
				types = append(types, t)
			}
		}
	}
	p := principalFrom(r.Context())
	page, err := a.d.Events.ListEvents.Handle(r.Context(), events.ListEvents{Workspace: p.Workspace, Mode: p.Mode,
		After: q.Get("after"), Types: types, Limit: limit})
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	out := eventListDTO{Data: make([]eventDTO, len(page.Events)), NextCursor: page.NextCursor, HasMore: page.More}
	for i, ev := range page.Events {
		if out.Data[i], err = toEventDTO(ev); err != nil {
			writeError(w, r, a.log, err)
			return
		}
	}
	writeJSON(w, http.StatusOK, out)
}

func (a *api) getEvent(w http.ResponseWriter, r *http.Request) {
	p := principalFrom(r.Context())
	d, err := a.d.Events.GetEvent.Handle(r.Context(), events.GetEvent{Workspace: p.Workspace, Mode: p.Mode, ID: r.PathValue("id")})
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	ev, err := toEventDTO(d.Event)
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	out := eventDetailDTO{eventDTO: ev, Deliveries: make([]deliveryDTO, len(d.Deliveries))}
	for i, dl := range d.Deliveries {
		dd := deliveryDTO{EndpointID: string(dl.Endpoint), State: dl.State.String(), NextAttemptAt: rfc3339Ptr(dl.NextAttemptAt),
			Attempts: make([]attemptDTO, len(dl.Attempts))}
		for j, at := range dl.Attempts {
			dd.Attempts[j] = toAttemptDTO(at)
		}
		out.Deliveries[i] = dd
	}
	writeJSON(w, http.StatusOK, out)
}

type redeliverRequest struct {
	EndpointID string `json:"endpointId"`
}

var redeliverSpec = bodySpec{fields: []string{"endpointId"}}

// redeliverEvent sends the event again to every matching endpoint, or,
// with a body naming one, to that endpoint; the body is optional.
func (a *api) redeliverEvent(w http.ResponseWriter, r *http.Request) {
	var in redeliverRequest
	if r.ContentLength != 0 && !a.decodeBody(w, r, redeliverSpec, &in) {
		return
	}
	p := principalFrom(r.Context())
	n, err := a.d.Events.Redeliver.Handle(r.Context(), events.RedeliverEvent{Workspace: p.Workspace, Mode: p.Mode,
		ID: r.PathValue("id"), Endpoint: in.EndpointID})
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	writeJSON(w, http.StatusAccepted, queuedDTO{Deliveries: n})
}
