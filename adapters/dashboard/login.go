package dashboard

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/domain"
)

type loginPage struct {
	Email string
	Next  string
}

func (h *dash) loginPage(w http.ResponseWriter, r *http.Request) {
	h.render(w, r, http.StatusOK, "login", view{Title: "Sign in", Page: loginPage{Next: localPath(r.URL.Query().Get("next"))}})
}

// login checks the address and password and starts a session. Attempts
// are limited per client address and per email address; a refusal never
// says which of the two was wrong.
func (h *dash) login(w http.ResponseWriter, r *http.Request) {
	email := strings.TrimSpace(r.PostFormValue("email"))
	page := loginPage{Email: email, Next: localPath(r.PostFormValue("next"))}
	if ok, wait := h.logins.allow(time.Now(), "addr "+clientAddr(r), "email "+strings.ToLower(email)); !ok {
		secs := int(wait/time.Second) + 1
		w.Header().Set("Retry-After", strconv.Itoa(secs))
		h.render(w, r, http.StatusTooManyRequests, "login", view{Title: "Sign in", Page: page,
			Error: "Too many sign-in attempts. Wait " + strconv.Itoa(secs) + " seconds and try again."})
		return
	}
	in, err := h.d.LogIn.Handle(r.Context(), app.LogIn{Email: email, Password: r.PostFormValue("password")})
	if errors.Is(err, domain.ErrInvalidCredentials) {
		h.render(w, r, http.StatusUnauthorized, "login", view{Title: "Sign in", Page: page,
			Error: "The email address or the password is wrong."})
		return
	}
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	h.setCookie(w, r, in.Token, in.Session.ExpiresAt)
	http.Redirect(w, r, page.Next, http.StatusSeeOther)
}

func (h *dash) logout(w http.ResponseWriter, r *http.Request) {
	c, _ := r.Cookie(cookieName) // present: the route needs a session
	if err := h.d.LogIn.LogOut(r.Context(), c.Value); err != nil {
		h.failErr(w, r, err)
		return
	}
	h.clearCookie(w, r)
	http.Redirect(w, r, "/dashboard/login", http.StatusSeeOther)
}

func (h *dash) home(w http.ResponseWriter, r *http.Request) {
	http.Redirect(w, r, "/dashboard/campaigns", http.StatusSeeOther)
}
