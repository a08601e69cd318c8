package dashboard

import (
	"crypto/subtle"
	"errors"
	"mime"
	"net/http"
)

// The largest body each form needs, url-encoded, where one character may
// take 12 bytes (a four-byte UTF-8 character, each byte as %XX). A body of
// another type, or larger, is refused before any of it is read, so no
// request makes the server hold more than a form needs, and none reaches
// net/http's multipart parser, which writes large parts to temporary files.
const (
	// signInFormLimit: an email address (at most 254 characters), a password
	// (at most 256) and the page to return to.
	signInFormLimit = 8 << 10
	// tokenFormLimit: the form token, and for a campaign's status its new one.
	tokenFormLimit = 1 << 10
	// keyFormLimit: the token, a key's name (at most 200 bytes) and its mode.
	keyFormLimit = 4 << 10
	// campaignFormLimit: a new campaign or a campaign's edit. The largest
	// is a new campaign of 100 placeholders (the most a body may hold),
	// each with a label of 200 characters, a name of 200, a body of 1,024,
	// a header and a footer of 60 and a template name of 512 ASCII ones:
	// about 250,000 bytes.
	campaignFormLimit = 256 << 10
)

// form lets through only a url-encoded body of at most limit bytes, and
// parses it into r.PostForm before next runs. Anything else is refused with
// 415 or 413 before the body is read; a body that grows past limit while it
// is read is 413 too.
func (h *dash) form(limit int64, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if err != nil || mt != "application/x-www-form-urlencoded" {
			h.fail(w, r, http.StatusUnsupportedMediaType, "The dashboard takes forms only as its own pages send them. Reload the page and try again.")
			return
		}
		if r.ContentLength > limit {
			h.fail(w, r, http.StatusRequestEntityTooLarge, "This form is larger than the dashboard accepts.")
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, limit)
		if err := r.ParseForm(); err != nil {
			if mbe := (*http.MaxBytesError)(nil); errors.As(err, &mbe) {
				h.fail(w, r, http.StatusRequestEntityTooLarge, "This form is larger than the dashboard accepts.")
				return
			}
			h.fail(w, r, http.StatusBadRequest, "This form could not be read. Reload the page and try again.")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// checkCSRF lets a signed-in operator's form through only with the
// session's form token; it runs after form has parsed the body.
func (h *dash) checkCSRF(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		want := operator(r).csrf
		if want == "" || subtle.ConstantTimeCompare([]byte(r.PostForm.Get("csrf")), []byte(want)) != 1 {
			h.fail(w, r, http.StatusForbidden, "This form has expired or did not come from this dashboard. Reload the page and try again.")
			return
		}
		next.ServeHTTP(w, r)
	})
}
