package dashboard

import (
	"context"
	"crypto/subtle"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"strconv"
)

// The largest body each form needs, url-encoded, where one character may
// take 12 bytes (a four-byte UTF-8 character, each byte as %XX). A body of
// another type, or larger, is refused before any of it is read, so no
// request makes the server hold more than a form needs, and none reaches
// net/http's multipart parser, which writes large parts to temporary files.
// A form that carries a file is multipart (see upload).
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

// uploadOverhead is what a multipart form may hold beside its fields and
// its file: boundaries and part headers.
const uploadOverhead = 64 << 10

// uploadedFile is the one file a multipart form carried.
type uploadedFile struct {
	Name    string
	Content []byte
}

type uploadKey struct{}

// uploaded returns the file the form carried, if one was chosen.
func uploaded(r *http.Request) (uploadedFile, bool) {
	f, ok := r.Context().Value(uploadKey{}).(uploadedFile)
	return f, ok
}

// upload lets through what form does, or a multipart/form-data body of
// fields of at most limit bytes together and one file, in the part named
// file, of at most fileLimit bytes. The parts are read as they stream in,
// into memory and bounded, never by net/http's multipart parser, which
// writes large parts to temporary files. The fields go to r.PostForm, the
// file to the request's context (see uploaded). A body over the limits is
// 413.
func (h *dash) upload(limit, fileLimit int64, next http.Handler) http.Handler {
	urlencoded := h.form(limit, next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if err != nil || mt != "multipart/form-data" {
			urlencoded.ServeHTTP(w, r)
			return
		}
		total := limit + fileLimit + uploadOverhead
		tooLarge := "This form is larger than the dashboard accepts: a file may be " + strconv.FormatInt(fileLimit>>20, 10) + " MB at most."
		if r.ContentLength > total {
			h.fail(w, r, http.StatusRequestEntityTooLarge, tooLarge)
			return
		}
		if params["boundary"] == "" {
			h.fail(w, r, http.StatusBadRequest, "This form could not be read. Reload the page and try again.")
			return
		}
		mr := multipart.NewReader(http.MaxBytesReader(w, r.Body, total), params["boundary"])
		fields, left := url.Values{}, limit
		var file uploadedFile
		seen := false
		for {
			part, err := mr.NextPart()
			if errors.Is(err, io.EOF) {
				break
			}
			var b []byte
			if err == nil {
				name := part.FormName()
				switch {
				case name == "file" && seen:
					h.fail(w, r, http.StatusBadRequest, "Send one file at a time.")
					return
				case name == "file":
					seen = true
					if b, err = io.ReadAll(io.LimitReader(part, fileLimit+1)); err == nil && int64(len(b)) > fileLimit {
						h.fail(w, r, http.StatusRequestEntityTooLarge, tooLarge)
						return
					}
					file = uploadedFile{Name: part.FileName(), Content: b}
				default:
					if b, err = io.ReadAll(io.LimitReader(part, left+1)); err == nil && int64(len(b)) > left {
						h.fail(w, r, http.StatusRequestEntityTooLarge, tooLarge)
						return
					}
					left -= int64(len(b))
					fields.Add(name, string(b))
				}
			}
			if err != nil {
				if mbe := (*http.MaxBytesError)(nil); errors.As(err, &mbe) {
					h.fail(w, r, http.StatusRequestEntityTooLarge, tooLarge)
					return
				}
				h.fail(w, r, http.StatusBadRequest, "This form could not be read. Reload the page and try again.")
				return
			}
		}
		r.PostForm, r.Form = fields, fields
		// A file input left empty still sends its part, with no bytes.
		if len(file.Content) > 0 || file.Name != "" {
			r = r.WithContext(context.WithValue(r.Context(), uploadKey{}, file))
		}
		next.ServeHTTP(w, r)
	})
}
