package dashboard

import (
	"net/http"
	"strings"

	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/domain"
)

type keysPage struct {
	// LiveSending says live keys can send: Meta's Cloud API is configured.
	LiveSending bool
	Keys        []domain.APIKey
	// Created is the key just made, whose token this page shows once.
	Created *app.CreatedKey
	Name    string
	Mode    string
}

func (h *dash) keys(w http.ResponseWriter, r *http.Request) {
	h.keysWith(w, r, http.StatusOK, view{}, keysPage{Mode: "test"})
}

func (h *dash) keysWith(w http.ResponseWriter, r *http.Request, status int, v view, p keysPage) {
	ks, err := h.d.ListKeys.Handle(r.Context(), app.ListKeys{Workspace: string(operator(r).session.Workspace)})
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	p.Keys, p.LiveSending = ks, h.cfg.LiveSending || h.storedNumberSends(r)
	v.Title, v.Nav, v.Page = "Developer settings", "keys", p
	h.render(w, r, status, "keys", v)
}

// createKey makes a key and shows its token on the response page, once:
// the page is not stored by the browser (Cache-Control: no-store), and the
// list shows only identifiers.
func (h *dash) createKey(w http.ResponseWriter, r *http.Request) {
	p := keysPage{Name: strings.TrimSpace(r.PostForm.Get("name")), Mode: r.PostForm.Get("mode")}
	mode, err := domain.ParseKeyMode(p.Mode)
	if err == nil {
		var k app.CreatedKey
		k, err = h.d.CreateKey.Handle(r.Context(), app.CreateKey{
			Workspace: string(operator(r).session.Workspace), Name: p.Name, Mode: mode})
		if err == nil {
			h.keysWith(w, r, http.StatusCreated, view{Notice: "Key " + k.Key.Name + " was created."},
				keysPage{Created: &k, Mode: "test"})
			return
		}
	}
	if msg := formError(err); msg != "" {
		h.keysWith(w, r, http.StatusUnprocessableEntity, view{Error: msg}, p)
		return
	}
	h.failErr(w, r, err)
}

func (h *dash) revokeKey(w http.ResponseWriter, r *http.Request) {
	if _, err := h.d.RevokeKey.Handle(r.Context(), app.RevokeKey{
		Workspace: string(operator(r).session.Workspace), KeyID: r.PathValue("id")}); err != nil {
		h.failErr(w, r, err)
		return
	}
	http.Redirect(w, r, "/dashboard/keys", http.StatusSeeOther)
}

// storedNumberSends reports whether a stored number can send live
// messages: active, with its own token.
func (h *dash) storedNumberSends(r *http.Request) bool {
	if h.d.Numbers == nil {
		return false
	}
	ns, err := h.d.Numbers.List(r.Context())
	if err != nil {
		return false
	}
	for _, n := range ns {
		if n.Status == domain.NumberActive && !n.AccessToken.IsZero() {
			return true
		}
	}
	return false
}
