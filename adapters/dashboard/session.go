package dashboard

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"

	"github.com/heraldhq/herald/domain"
)

// cookieName names the session cookie; its path keeps it out of /v1.
const (
	cookieName = "herald_session"
	cookiePath = "/dashboard"
)

// signedIn is the operator behind a request and its forms' token.
type signedIn struct {
	session domain.Session
	csrf    string
}

type sessionKey struct{}

func operator(r *http.Request) signedIn {
	s, _ := r.Context().Value(sessionKey{}).(signedIn)
	return s
}

// requireSession lets a request through only with a live session, named
// by the cookie; others are sent to the sign-in page (and come back after
// it). It reads nothing of the body: a form's token is checked after the
// body's type and size (see checkCSRF).
func (h *dash) requireSession(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := r.Cookie(cookieName)
		var s domain.Session
		if err == nil {
			s, err = h.d.LogIn.Session(r.Context(), c.Value)
		}
		if err != nil {
			if !errors.Is(err, http.ErrNoCookie) && !errors.Is(err, domain.ErrSessionNotFound) {
				h.failErr(w, r, err)
				return
			}
			if c != nil {
				h.clearCookie(w, r)
			}
			target := "/dashboard/login"
			if r.Method == http.MethodGet {
				target += "?next=" + url.QueryEscape(r.URL.RequestURI())
			}
			http.Redirect(w, r, target, http.StatusSeeOther)
			return
		}
		tok, _ := domain.ParseSessionToken(c.Value) // the session was found by it
		in := signedIn{session: s, csrf: tok.CSRFToken()}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), sessionKey{}, in)))
	})
}

func (h *dash) setCookie(w http.ResponseWriter, r *http.Request, tok domain.SessionToken, expires time.Time) {
	http.SetCookie(w, &http.Cookie{
		Name: cookieName, Value: tok.Plaintext(), Path: cookiePath, Expires: expires,
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: r.TLS != nil || h.cfg.SecureCookie,
	})
}

func (h *dash) clearCookie(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, &http.Cookie{
		Name: cookieName, Value: "", Path: cookiePath, MaxAge: -1,
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: r.TLS != nil || h.cfg.SecureCookie,
	})
}

// localPath keeps a post-sign-in destination inside the dashboard, so the
// sign-in page cannot be used to send people elsewhere.
func localPath(next string) string {
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || !strings.HasPrefix(u.Path, "/dashboard/") ||
		!strings.HasPrefix(path.Clean(u.Path)+"/", "/dashboard/") ||
		strings.HasPrefix(next, "//") || strings.Contains(next, "\\") {
		return "/dashboard/"
	}
	return u.RequestURI()
}
