package media_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/heraldhq/herald/adapters/media"
	"github.com/heraldhq/herald/domain"
)

// The inspector reports the file name the server gives in
// Content-Disposition, as sent (filename* in RFC 8187's encoding wins), for
// the domain to clean; a header it cannot read gives none.
func TestInspectMediaReadsTheServersFileName(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if cd := r.URL.Query().Get("cd"); cd != "" {
			w.Header().Set("Content-Disposition", cd)
		}
		w.Header().Set("Content-Type", "application/pdf")
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(file(pdfSig, 5000)))
	}))
	t.Cleanup(srv.Close)
	in := media.New(media.Config{AllowHTTP: true, AllowedHosts: []string{hostOf(t, srv)}, Timeout: 5 * time.Second})
	for _, c := range []struct {
		name, disposition, want string
	}{
		{"quoted", `attachment; filename="Terms of service.pdf"`, "Terms of service.pdf"},
		{"inline", `inline; filename=terms.pdf`, "terms.pdf"},
		{"RFC 8187 encoding", `attachment; filename*=UTF-8''na%C3%AFve%20terms.pdf`, "naïve terms.pdf"},
		{"both forms", `attachment; filename="fallback.pdf"; filename*=UTF-8''%C3%BCber.pdf`, "über.pdf"},
		{"a path, kept for the domain to cut", `attachment; filename="../../etc/passwd"`, "../../etc/passwd"},
		{"no name", `attachment`, ""},
		{"unreadable", `attachment; filename="unterminated`, ""},
		{"no header", ``, ""},
	} {
		got, err := in.InspectMedia(context.Background(), caller, srv.URL+"/doc?cd="+url.QueryEscape(c.disposition), domain.HeaderDocument)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got.Filename != c.want || got.Format != domain.MediaPDF || got.Size != 5000 {
			t.Errorf("%s: InspectMedia = %+v, want the PDF of 5000 bytes named %q", c.name, got, c.want)
		}
	}
}
