package httpapi

import (
	"net/http"
	"time"

	"github.com/heraldhq/herald/app/events"
	"github.com/heraldhq/herald/domain"
)

// EventDeps are the use cases of webhook endpoints and events.
type EventDeps struct {
	CreateEndpoint *events.CreateEndpointHandler
	ListEndpoints  *events.ListEndpointsHandler
	GetEndpoint    *events.GetEndpointHandler
	UpdateEndpoint *events.UpdateEndpointHandler
	DeleteEndpoint *events.DeleteEndpointHandler
	RotateSecret   *events.RotateEndpointSecretHandler
	SendTest       *events.SendTestEventHandler
	Recover        *events.RecoverEndpointHandler
	ListEvents     *events.ListEventsHandler
	GetEvent       *events.GetEventHandler
	Redeliver      *events.RedeliverEventHandler
}

type endpointDTO struct {
	ID             string   `json:"id"`
	URL            string   `json:"url"`
	Events         []string `json:"events"`
	Description    string   `json:"description"`
	Mode           string   `json:"mode"`
	Status         string   `json:"status"`
	DisabledReason *string  `json:"disabledReason"`
	DisabledAt     *string  `json:"disabledAt"`
	FailingSince   *string  `json:"failingSince"`
	CreatedAt      string   `json:"createdAt"`
	UpdatedAt      string   `json:"updatedAt"`
	// Secret is only in the answers that make one: create and
	// rotate-secret.
	Secret *string `json:"secret,omitempty"`
}

type endpointListDTO struct {
	Data []endpointDTO `json:"data"`
}

func toEndpointDTO(e domain.WebhookEndpoint) endpointDTO {
	out := endpointDTO{ID: string(e.ID), URL: e.URL, Events: e.Events.Names(), Description: e.Description,
		Mode: e.Mode.String(), Status: e.Status.String(), CreatedAt: rfc3339(e.CreatedAt), UpdatedAt: rfc3339(e.UpdatedAt)}
	if !e.DisabledReason.IsZero() {
		out.DisabledReason = nonEmpty(e.DisabledReason.String())
	}
	out.DisabledAt, out.FailingSince = rfc3339Ptr(e.DisabledAt), rfc3339Ptr(e.FailingSince)
	return out
}

type createEndpointRequest struct {
	URL         string   `json:"url"`
	Events      []string `json:"events"`
	Description string   `json:"description"`
}

var createEndpointSpec = bodySpec{
	fields:   []string{"url", "events", "description"},
	required: []string{"url", "events"},
}

func (a *api) createEndpoint(w http.ResponseWriter, r *http.Request) {
	var in createEndpointRequest
	if !a.decodeBody(w, r, createEndpointSpec, &in) {
		return
	}
	p := principalFrom(r.Context())
	res, err := a.d.Events.CreateEndpoint.Handle(r.Context(), events.CreateEndpoint{Workspace: p.Workspace, Mode: p.Mode,
		URL: in.URL, Events: in.Events, Description: in.Description})
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	out := toEndpointDTO(res.Endpoint)
	out.Secret = &res.Secret
	w.Header().Set("Location", "/v1/webhook-endpoints/"+string(res.Endpoint.ID))
	writeJSON(w, http.StatusCreated, out)
}

func (a *api) listEndpoints(w http.ResponseWriter, r *http.Request) {
	p := principalFrom(r.Context())
	es, err := a.d.Events.ListEndpoints.Handle(r.Context(), events.ListEndpoints{Workspace: p.Workspace, Mode: p.Mode})
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	out := endpointListDTO{Data: make([]endpointDTO, len(es))}
	for i, e := range es {
		out.Data[i] = toEndpointDTO(e)
	}
	writeJSON(w, http.StatusOK, out)
}

func (a *api) getEndpoint(w http.ResponseWriter, r *http.Request) {
	p := principalFrom(r.Context())
	e, err := a.d.Events.GetEndpoint.Handle(r.Context(), events.GetEndpoint{Workspace: p.Workspace, Mode: p.Mode, ID: r.PathValue("id")})
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	writeJSON(w, http.StatusOK, toEndpointDTO(e))
}

type updateEndpointRequest struct {
	URL         *string  `json:"url"`
	Events      []string `json:"events"`
	Description *string  `json:"description"`
	Status      *string  `json:"status"`
}

var updateEndpointSpec = bodySpec{fields: []string{"url", "events", "description", "status"}}

func (a *api) updateEndpoint(w http.ResponseWriter, r *http.Request) {
	var in updateEndpointRequest
	if !a.decodeBody(w, r, updateEndpointSpec, &in) {
		return
	}
	p := principalFrom(r.Context())
	e, err := a.d.Events.UpdateEndpoint.Handle(r.Context(), events.UpdateEndpoint{Workspace: p.Workspace, Mode: p.Mode,
		ID: r.PathValue("id"), URL: in.URL, Events: in.Events, Description: in.Description, Status: in.Status})
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	writeJSON(w, http.StatusOK, toEndpointDTO(e))
}

func (a *api) deleteEndpoint(w http.ResponseWriter, r *http.Request) {
	p := principalFrom(r.Context())
	err := a.d.Events.DeleteEndpoint.Handle(r.Context(), events.DeleteEndpoint{Workspace: p.Workspace, Mode: p.Mode, ID: r.PathValue("id")})
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (a *api) rotateEndpointSecret(w http.ResponseWriter, r *http.Request) {
	p := principalFrom(r.Context())
	res, err := a.d.Events.RotateSecret.Handle(r.Context(), events.RotateEndpointSecret{Workspace: p.Workspace, Mode: p.Mode, ID: r.PathValue("id")})
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	out := toEndpointDTO(res.Endpoint)
	out.Secret = &res.Secret
	writeJSON(w, http.StatusOK, out)
}

func (a *api) testEndpoint(w http.ResponseWriter, r *http.Request) {
	p := principalFrom(r.Context())
	ev, err := a.d.Events.SendTest.Handle(r.Context(), events.SendTestEvent{Workspace: p.Workspace, Mode: p.Mode, ID: r.PathValue("id")})
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	out, err := toEventDTO(ev)
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	w.Header().Set("Location", "/v1/events/"+string(ev.ID))
	writeJSON(w, http.StatusAccepted, out)
}

type recoverRequest struct {
	Since string `json:"since"`
}

var recoverSpec = bodySpec{fields: []string{"since"}, required: []string{"since"}}

// queuedDTO says how many deliveries a recover or a redeliver made
// pending.
type queuedDTO struct {
	Deliveries int `json:"deliveries"`
}

func (a *api) recoverEndpoint(w http.ResponseWriter, r *http.Request) {
	var in recoverRequest
	if !a.decodeBody(w, r, recoverSpec, &in) {
		return
	}
	since, err := parseTimeParam("since", in.Since)
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	p := principalFrom(r.Context())
	n, err := a.d.Events.Recover.Handle(r.Context(), events.RecoverEndpoint{Workspace: p.Workspace, Mode: p.Mode,
		ID: r.PathValue("id"), Since: since})
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	writeJSON(w, http.StatusAccepted, queuedDTO{Deliveries: n})
}

// parseTimeParam reads an RFC 3339 time named param.
func parseTimeParam(param, s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, domain.InvalidParameter(param, param+" must be a time in RFC 3339 form, such as 2026-11-22T10:00:00Z")
	}
	return t.UTC(), nil
}
