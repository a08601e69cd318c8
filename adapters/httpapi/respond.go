package httpapi

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// writeJSON writes v with status. Contact data is personal: no response of
// the API may be cached.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, `{"code":"internal_error"}`, http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

// decodeBody reads and strictly decodes a JSON body into dst, answering the
// problem itself when it cannot.
func (a *api) decodeBody(w http.ResponseWriter, r *http.Request, spec bodySpec, dst any) bool {
	body, derr := readBody(w, r, a.cfg.BodyLimit)
	if derr == nil {
		derr = decodeStrict(body, spec, dst)
	}
	if derr != nil {
		writeProblem(w, r, derr.code, derr.param, derr.detail)
		return false
	}
	return true
}

// pageFrom reads ?limit= and ?cursor=.
func pageFrom(r *http.Request) (ports.Page, error) {
	q := r.URL.Query()
	p := ports.Page{Cursor: q.Get("cursor")}
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			return p, domain.InvalidParameter("limit", "limit must be a whole number between 1 and 100")
		}
		if n == 0 {
			return p, domain.InvalidParameter("limit", "limit must be between 1 and 100")
		}
		p.Limit = n
	}
	return p, nil
}

// nonEmpty is s, or nil (JSON null) when s is empty.
func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// rfc3339 formats a time in UTC.
func rfc3339(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func rfc3339Ptr(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := rfc3339(*t)
	return &s
}
