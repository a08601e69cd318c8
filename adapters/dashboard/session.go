package dashboard

import (
	"context"
	"crypto/subtle"
	"errors"
	"net"
	"net/http"
	"net/url"
	"path"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"

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

// requireSession lets a request through only with a live session; others
// are sent to the sign-in page (and come back after it). A POST must also
// carry the session's form token.
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
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			got := r.PostFormValue("csrf")
			if subtle.ConstantTimeCompare([]byte(got), []byte(in.csrf)) != 1 {
				h.fail(w, r, http.StatusForbidden, "This form has expired or did not come from this dashboard. Reload the page and try again.")
				return
			}
		}
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

// attempts limits sign-in attempts per client address and per email
// address: a token bucket each, refilled at the configured rate per minute.
type attempts struct {
	mu      sync.Mutex
	perMin  int
	buckets map[string]*rate.Limiter
}

func newAttempts(perMinute int) *attempts {
	return &attempts{perMin: perMinute, buckets: map[string]*rate.Limiter{}}
}

// allow takes one attempt from each key's bucket; when any is empty it
// says how long until the next attempt.
func (a *attempts) allow(now time.Time, keys ...string) (bool, time.Duration) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.buckets) > 100_000 { // forget everyone rather than grow without bound
		a.buckets = map[string]*rate.Limiter{}
	}
	var wait time.Duration
	for _, k := range keys {
		l, ok := a.buckets[k]
		if !ok {
			l = rate.NewLimiter(rate.Limit(float64(a.perMin)/60), a.perMin)
			a.buckets[k] = l
		}
		r := l.ReserveN(now, 1)
		if d := r.DelayFrom(now); d > 0 {
			r.CancelAt(now)
			wait = max(wait, d)
		}
	}
	return wait == 0, wait
}

// clientAddr is the request's peer address without the port.
func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
