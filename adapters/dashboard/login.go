package dashboard

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

type loginPage struct {
	Email string
	Next  string
}

func (h *dash) loginPage(w http.ResponseWriter, r *http.Request) {
	h.render(w, r, http.StatusOK, "login", view{Title: "Sign in", Page: loginPage{Next: localPath(r.URL.Query().Get("next"))}})
}

// login checks the address and password and starts a session. Attempts
// are limited per client and per email address (see attempts), and the
// password checks running at once by the hasher; a refusal never says
// which address or password was wrong.
func (h *dash) login(w http.ResponseWriter, r *http.Request) {
	email := strings.TrimSpace(r.PostForm.Get("email"))
	page := loginPage{Email: email, Next: localPath(r.PostForm.Get("next"))}
	if ok, wait := h.logins.allow(time.Now(), clientOf(r), email); !ok {
		secs := int(wait/time.Second) + 1
		h.loginRefused(w, r, page, secs, "Too many sign-in attempts. Wait "+strconv.Itoa(secs)+" seconds and try again.")
		return
	}
	in, err := h.d.LogIn.Handle(r.Context(), app.LogIn{Email: email, Password: r.PostForm.Get("password")})
	switch {
	case errors.Is(err, ports.ErrTooManyPasswordChecks):
		h.loginRefused(w, r, page, 1, "The server is busy checking other sign-ins. Wait a second and try again.")
		return
	case errors.Is(err, context.Canceled):
		return // the browser left while the check waited
	case errors.Is(err, domain.ErrInvalidCredentials):
		h.render(w, r, http.StatusUnauthorized, "login", view{Title: "Sign in", Page: page,
			Error: "The email address or the password is wrong."})
		return
	case err != nil:
		h.failErr(w, r, err)
		return
	}
	h.setCookie(w, r, in.Token, in.Session.ExpiresAt)
	http.Redirect(w, r, page.Next, http.StatusSeeOther)
}

// loginRefused answers 429 with the sign-in form, retry after secs.
func (h *dash) loginRefused(w http.ResponseWriter, r *http.Request, page loginPage, secs int, msg string) {
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	h.render(w, r, http.StatusTooManyRequests, "login", view{Title: "Sign in", Page: page, Error: msg})
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
