package dashboard

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/domain"
)

// numberFormLimit: the form token, a number's ids, names and pace, its
// access token and app secret (Meta's tokens are a few hundred
// characters), and a workspace choice.
const numberFormLimit = 16 << 10

// numbersPage lists the business numbers and holds the add or edit form.
// Tokens and app secrets are never put on a page: the list shows a
// token's last four characters, and the form's secret fields start empty.
type numbersPage struct {
	Numbers []domain.BusinessNumber
	// Editing is the number being edited, nil on the list's add form.
	Editing *domain.BusinessNumber
	Form    numberForm
	// Workspace is the operator's workspace, which "this workspace only"
	// offers a number to.
	Workspace domain.WorkspaceID
}

// numberForm is what the form shows and sends back; never a secret.
type numberForm struct {
	MetaID, DisplayNumber, VerifiedName, WABAID, AppID, MPS string
	AllWorkspaces                                           bool
	Status                                                  string
}

func formOf(n domain.BusinessNumber) numberForm {
	mps := ""
	if n.MPS > 0 {
		mps = strconv.Itoa(n.MPS)
	}
	return numberForm{MetaID: n.MetaID, DisplayNumber: n.DisplayNumber, VerifiedName: n.VerifiedName, WABAID: n.WABAID,
		AppID: n.AppID, MPS: mps, AllWorkspaces: n.AllWorkspaces, Status: n.Status.String()}
}

func (h *dash) numbers(w http.ResponseWriter, r *http.Request) {
	h.numbersWith(w, r, http.StatusOK, view{}, numbersPage{Form: numberForm{AllWorkspaces: true}})
}

func (h *dash) numbersWith(w http.ResponseWriter, r *http.Request, status int, v view, p numbersPage) {
	if h.d.Numbers == nil {
		http.NotFound(w, r)
		return
	}
	ns, err := h.d.Numbers.List(r.Context())
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	p.Numbers, p.Workspace = ns, operator(r).session.Workspace
	v.Title, v.Nav, v.Page = "Numbers", "numbers", p
	h.render(w, r, status, "numbers", v)
}

// spec reads a number's fields from the form. "This workspace only" keeps
// the other workspaces an operator elsewhere offered the number to.
func (h *dash) numberSpec(r *http.Request, was *domain.BusinessNumber) (domain.NumberSpec, numberForm, error) {
	f := r.PostForm
	form := numberForm{MetaID: strings.TrimSpace(f.Get("metaId")), DisplayNumber: f.Get("displayNumber"),
		VerifiedName: f.Get("verifiedName"), WABAID: strings.TrimSpace(f.Get("wabaId")), AppID: strings.TrimSpace(f.Get("appId")),
		MPS: strings.TrimSpace(f.Get("mps")), AllWorkspaces: f.Get("workspaces") == "all", Status: f.Get("status")}
	spec := domain.NumberSpec{MetaID: form.MetaID, DisplayNumber: form.DisplayNumber, VerifiedName: form.VerifiedName,
		WABAID: form.WABAID, AppID: form.AppID, AllWorkspaces: form.AllWorkspaces}
	if form.MPS != "" {
		n, err := strconv.Atoi(form.MPS)
		if err != nil {
			return spec, form, domain.InvalidParameter("mps", "the pace is a whole number of messages a second")
		}
		spec.MPS = n
	}
	if !spec.AllWorkspaces {
		ws := operator(r).session.Workspace
		if was != nil && !was.AllWorkspaces {
			spec.Workspaces = append(spec.Workspaces, was.Workspaces...)
		}
		spec.Workspaces = append(spec.Workspaces, ws)
	}
	return spec, form, nil
}

func (h *dash) addNumber(w http.ResponseWriter, r *http.Request) {
	if h.d.Numbers == nil {
		http.NotFound(w, r)
		return
	}
	spec, form, err := h.numberSpec(r, nil)
	if err == nil {
		var n domain.BusinessNumber
		n, err = h.d.Numbers.Add(r.Context(), app.AddNumber{Spec: spec, AccessToken: strings.TrimSpace(r.PostForm.Get("accessToken")),
			AppSecret: strings.TrimSpace(r.PostForm.Get("appSecret"))})
		if err == nil {
			h.numbersWith(w, r, http.StatusCreated, view{Notice: "Number " + shownNumber(n) + " was added; its token is stored sealed."},
				numbersPage{Form: numberForm{AllWorkspaces: true}})
			return
		}
	}
	if msg := numberFormError(err); msg != "" {
		h.numbersWith(w, r, http.StatusUnprocessableEntity, view{Error: msg}, numbersPage{Form: form})
		return
	}
	h.failErr(w, r, err)
}

func (h *dash) number(w http.ResponseWriter, r *http.Request) {
	if h.d.Numbers == nil {
		http.NotFound(w, r)
		return
	}
	n, ok := h.numberOf(w, r)
	if !ok {
		return
	}
	h.numbersWith(w, r, http.StatusOK, view{}, numbersPage{Editing: &n, Form: formOf(n)})
}

func (h *dash) numberOf(w http.ResponseWriter, r *http.Request) (domain.BusinessNumber, bool) {
	id, err := domain.ParseBusinessNumberID(r.PathValue("id"))
	var n domain.BusinessNumber
	if err == nil {
		n, err = h.d.Numbers.Get(r.Context(), id)
	}
	if err != nil {
		h.failErr(w, r, err)
		return domain.BusinessNumber{}, false
	}
	return n, true
}

func (h *dash) updateNumber(w http.ResponseWriter, r *http.Request) {
	if h.d.Numbers == nil {
		http.NotFound(w, r)
		return
	}
	was, ok := h.numberOf(w, r)
	if !ok {
		return
	}
	spec, form, err := h.numberSpec(r, &was)
	var status domain.NumberStatus
	if err == nil && form.Status != "" {
		status, err = domain.ParseNumberStatus(form.Status)
	}
	if err == nil {
		var n domain.BusinessNumber
		n, err = h.d.Numbers.Update(r.Context(), app.UpdateNumber{ID: was.ID, Spec: spec, Status: status,
			AccessToken: strings.TrimSpace(r.PostForm.Get("accessToken")), AppSecret: strings.TrimSpace(r.PostForm.Get("appSecret"))})
		if err == nil {
			h.numbersWith(w, r, http.StatusOK, view{Notice: "Number " + shownNumber(n) + " was saved."},
				numbersPage{Form: numberForm{AllWorkspaces: true}})
			return
		}
	}
	if msg := numberFormError(err); msg != "" {
		h.numbersWith(w, r, http.StatusUnprocessableEntity, view{Error: msg}, numbersPage{Editing: &was, Form: form})
		return
	}
	h.failErr(w, r, err)
}

func (h *dash) removeNumber(w http.ResponseWriter, r *http.Request) {
	if h.d.Numbers == nil {
		http.NotFound(w, r)
		return
	}
	id, err := domain.ParseBusinessNumberID(r.PathValue("id"))
	if err == nil {
		err = h.d.Numbers.Remove(r.Context(), id)
	}
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	http.Redirect(w, r, "/dashboard/numbers", http.StatusSeeOther)
}

// numberFormError is the message for a form the operator can correct,
// including a server without a secret key.
func numberFormError(err error) string {
	if msg := formError(err); msg != "" {
		return msg
	}
	if err != nil && strings.Contains(err.Error(), "HERALD_SECRET_KEY") {
		return "This server has no secret key to seal the token with: set HERALD_SECRET_KEY (or HERALD_SECRET_KEY_FILE) and restart it."
	}
	return ""
}

// shownNumber names a number in a notice: its display number, else Meta's
// id.
func shownNumber(n domain.BusinessNumber) string {
	if n.DisplayNumber != "" {
		return n.DisplayNumber
	}
	return n.MetaID
}
