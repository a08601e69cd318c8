package dashboard

import (
	"net/http"
	"strings"

	"github.com/heraldhq/herald/app/events"
	"github.com/heraldhq/herald/domain"
)

// WebhookDeps are the use cases of the Webhooks page.
type WebhookDeps struct {
	CreateEndpoint *events.CreateEndpointHandler
	ListEndpoints  *events.ListEndpointsHandler
	GetEndpoint    *events.GetEndpointHandler
	UpdateEndpoint *events.UpdateEndpointHandler
	DeleteEndpoint *events.DeleteEndpointHandler
	RotateSecret   *events.RotateEndpointSecretHandler
	SendTest       *events.SendTestEventHandler
	Redeliver      *events.RedeliverEventHandler
}

// recentAttempts is how many of an endpoint's attempts its page shows.
const recentAttempts = 50

// webhookFormLimit: the token, a URL (at most 2,048 characters), a
// description (at most 500), the mode and up to ten event types.
const webhookFormLimit = 40 << 10

type webhooksPage struct {
	Endpoints []domain.WebhookEndpoint
	// Types are the event types an endpoint may subscribe to.
	Types []string
	// The form as entered, shown again when it was refused.
	URL, Description, Mode string
	Chosen                 map[string]bool
	// Created is the endpoint just made, whose secret this page shows
	// once.
	Created *events.EndpointWithSecret
}

type webhookPage struct {
	Endpoint domain.WebhookEndpoint
	Attempts []domain.DeliveryAttempt
	// Rotated is the new secret, shown once, after a rotation.
	Rotated string
}

func subscribable() []string {
	var out []string
	for _, t := range domain.EventTypes() {
		if t != domain.EventWebhookTest {
			out = append(out, t.String())
		}
	}
	return out
}

func (h *dash) webhooks(w http.ResponseWriter, r *http.Request) {
	h.webhooksWith(w, r, http.StatusOK, view{}, webhooksPage{Mode: "test", Chosen: map[string]bool{"*": true}})
}

func (h *dash) webhooksWith(w http.ResponseWriter, r *http.Request, status int, v view, p webhooksPage) {
	eps, err := h.d.Webhooks.ListEndpoints.Handle(r.Context(), events.ListEndpoints{Workspace: operator(r).session.Workspace})
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	p.Endpoints, p.Types = eps, subscribable()
	v.Title, v.Nav, v.Page = "Webhooks", "keys", p
	h.render(w, r, status, "webhooks", v)
}

// createWebhook adds an endpoint and shows its secret on the answer page,
// once (the answer is not stored: Cache-Control no-store).
func (h *dash) createWebhook(w http.ResponseWriter, r *http.Request) {
	f := r.PostForm
	p := webhooksPage{URL: strings.TrimSpace(f.Get("url")), Description: f.Get("description"), Mode: f.Get("mode"),
		Chosen: map[string]bool{}}
	types := f["events"]
	for _, t := range types {
		p.Chosen[t] = true
	}
	mode, err := domain.ParseKeyMode(p.Mode)
	if err == nil {
		var created events.EndpointWithSecret
		created, err = h.d.Webhooks.CreateEndpoint.Handle(r.Context(), events.CreateEndpoint{
			Workspace: operator(r).session.Workspace, Mode: mode, URL: p.URL, Events: types, Description: p.Description})
		if err == nil {
			w.Header().Set("Cache-Control", "no-store")
			h.webhooksWith(w, r, http.StatusCreated, view{Notice: "The endpoint was added."},
				webhooksPage{Created: &created, Mode: "test", Chosen: map[string]bool{"*": true}})
			return
		}
	}
	if msg := formError(err); msg != "" {
		h.webhooksWith(w, r, http.StatusUnprocessableEntity, view{Error: msg}, p)
		return
	}
	h.failErr(w, r, err)
}

func (h *dash) webhook(w http.ResponseWriter, r *http.Request) {
	h.webhookWith(w, r, http.StatusOK, view{}, webhookPage{})
}

func (h *dash) webhookWith(w http.ResponseWriter, r *http.Request, status int, v view, p webhookPage) {
	ws := operator(r).session.Workspace
	ep, err := h.d.Webhooks.GetEndpoint.Handle(r.Context(), events.GetEndpoint{Workspace: ws, ID: r.PathValue("id")})
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	attempts, err := h.d.Webhooks.ListEndpoints.Attempts(r.Context(), events.EndpointAttempts{Workspace: ws, Mode: ep.Mode,
		ID: string(ep.ID), Limit: recentAttempts})
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	p.Endpoint, p.Attempts = ep, attempts
	v.Title, v.Nav, v.Page = "Webhook endpoint", "keys", p
	h.render(w, r, status, "webhook", v)
}

// webhookAction runs a change of one endpoint and shows its page with a
// notice, or the error.
func (h *dash) webhookAction(w http.ResponseWriter, r *http.Request, notice string, run func(ws domain.WorkspaceID, id string) error) {
	if err := run(operator(r).session.Workspace, r.PathValue("id")); err != nil {
		if msg := formError(err); msg != "" {
			h.webhookWith(w, r, http.StatusUnprocessableEntity, view{Error: msg}, webhookPage{})
			return
		}
		h.failErr(w, r, err)
		return
	}
	h.webhookWith(w, r, http.StatusOK, view{Notice: notice}, webhookPage{})
}

func (h *dash) webhookStatus(w http.ResponseWriter, r *http.Request) {
	status := r.PostForm.Get("status")
	notice := map[string]string{"enabled": "The endpoint is enabled: what waited is sent now.",
		"disabled": "The endpoint is disabled: its deliveries wait until it is enabled."}[status]
	h.webhookAction(w, r, notice, func(ws domain.WorkspaceID, id string) error {
		_, err := h.d.Webhooks.UpdateEndpoint.Handle(r.Context(), events.UpdateEndpoint{Workspace: ws, ID: id, Status: &status})
		return err
	})
}

func (h *dash) webhookTest(w http.ResponseWriter, r *http.Request) {
	h.webhookAction(w, r, "A webhook.test event was sent; its attempt appears below once it is made.", func(ws domain.WorkspaceID, id string) error {
		_, err := h.d.Webhooks.SendTest.Handle(r.Context(), events.SendTestEvent{Workspace: ws, ID: id})
		return err
	})
}

func (h *dash) webhookRedeliver(w http.ResponseWriter, r *http.Request) {
	event := r.PostForm.Get("event")
	h.webhookAction(w, r, "Event "+shown(event)+" is sent again now.", func(ws domain.WorkspaceID, id string) error {
		_, err := h.d.Webhooks.Redeliver.Handle(r.Context(), events.RedeliverEvent{Workspace: ws, ID: event, Endpoint: id})
		return err
	})
}

// rotateWebhook makes a new secret and shows it on the answer page, once.
func (h *dash) rotateWebhook(w http.ResponseWriter, r *http.Request) {
	res, err := h.d.Webhooks.RotateSecret.Handle(r.Context(), events.RotateEndpointSecret{
		Workspace: operator(r).session.Workspace, ID: r.PathValue("id")})
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	h.webhookWith(w, r, http.StatusOK, view{Notice: "The endpoint has a new secret. The old one keeps signing for 24 hours."},
		webhookPage{Rotated: res.Secret})
}

func (h *dash) deleteWebhook(w http.ResponseWriter, r *http.Request) {
	if err := h.d.Webhooks.DeleteEndpoint.Handle(r.Context(), events.DeleteEndpoint{
		Workspace: operator(r).session.Workspace, ID: r.PathValue("id")}); err != nil {
		h.failErr(w, r, err)
		return
	}
	http.Redirect(w, r, "/dashboard/webhooks", http.StatusSeeOther)
}
