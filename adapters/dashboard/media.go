package dashboard

import (
	"io"
	"mime"
	"net/http"
	"strconv"

	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/domain"
)

// mediaContent serves a media file of the operator's workspace (a
// contact's image, shown inline in the thread, or an upload) as the API
// does: an attachment browsers neither sniff nor run, which an <img> or
// <audio> element still shows.
func (h *dash) mediaContent(w http.ResponseWriter, r *http.Request) {
	if h.d.GetMedia == nil {
		h.fail(w, r, http.StatusNotFound, "There is no page at this address.")
		return
	}
	c, err := h.d.GetMedia.Content(r.Context(), app.GetMedia{Principal: domain.Principal{Workspace: operator(r).session.Workspace},
		ID: r.PathValue("id")})
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	defer c.Body.Close()
	hd := w.Header()
	mimeType := c.MimeType
	if mimeType == "" {
		mimeType = "application/octet-stream"
	}
	hd.Set("Content-Type", mimeType)
	hd.Set("Cache-Control", "private, max-age=3600")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Content-Security-Policy", "sandbox; default-src 'none'")
	name := c.File.Filename
	if name == "" {
		name = string(c.File.ID)
	}
	hd.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": name}))
	if c.Size >= 0 {
		hd.Set("Content-Length", strconv.FormatInt(c.Size, 10))
	}
	w.WriteHeader(http.StatusOK)
	_, _ = io.Copy(w, c.Body)
}
