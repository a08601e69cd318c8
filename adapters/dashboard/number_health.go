package dashboard

import (
	"net/http"

	"github.com/heraldhq/herald/app"
)

// numberHealthPage is the business numbers the workspace may use, with
// their quality, tier, recipients reached and health history.
type numberHealthPage struct {
	Numbers []app.NumberHealthView
}

func (h *dash) numberHealth(w http.ResponseWriter, r *http.Request) {
	if h.d.NumberHealth == nil {
		h.render(w, r, http.StatusOK, "number_health", view{Title: "Number health", Nav: "numbers", Page: numberHealthPage{}})
		return
	}
	ns, err := h.d.NumberHealth.Handle(r.Context(), operator(r).session.Workspace)
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, "number_health", view{Title: "Number health", Nav: "numbers", Page: numberHealthPage{Numbers: ns}})
}
