package httpapi

import (
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strconv"

	"github.com/heraldhq/herald/app"
	"github.com/heraldhq/herald/domain"
)

// uploadOverhead is what a multipart body may hold beside the file: its
// boundaries and part headers.
const uploadOverhead = 64 << 10

// mediaDTO is a media file's metadata.
type mediaDTO struct {
	ID        string  `json:"id"`
	Origin    string  `json:"origin"`
	Type      string  `json:"type"`
	MimeType  string  `json:"mimeType"`
	Size      *int64  `json:"size"`
	SHA256    *string `json:"sha256"`
	Filename  *string `json:"filename"`
	CreatedAt string  `json:"createdAt"`
}

func toMediaDTO(f domain.MediaFile) mediaDTO {
	d := mediaDTO{ID: string(f.ID), Origin: f.Origin, Type: f.Kind, MimeType: f.MimeType, SHA256: nonEmpty(domain.HexSHA256(f.SHA256)),
		Filename: nonEmpty(f.Filename), CreatedAt: rfc3339(f.CreatedAt)}
	if f.Size > 0 {
		size := f.Size
		d.Size = &size
	}
	return d
}

// uploadMedia stores the one file of a multipart/form-data body, in the
// part named file.
func (a *api) uploadMedia(w http.ResponseWriter, r *http.Request) {
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" {
		writeProblem(w, r, CodeUnsupportedMediaType, "", "send the file as multipart/form-data, in a part named file")
		return
	}
	if params["boundary"] == "" {
		writeProblem(w, r, CodeInvalidJSON, "", "the multipart body could not be read")
		return
	}
	// The parts are read as they stream in, into memory and bounded:
	// never net/http's form parsing, which spools large parts to files.
	mr := multipart.NewReader(http.MaxBytesReader(w, r.Body, domain.MaxUploadSize+uploadOverhead), params["boundary"])
	var name string
	var content []byte
	seen := false
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			a.multipartError(w, r, err)
			return
		}
		switch {
		case part.FormName() != "file":
			writeProblem(w, r, domain.CodeInvalidParameter, part.FormName(), "unknown field; send only the file, in a part named file")
			return
		case seen:
			writeProblem(w, r, domain.CodeInvalidParameter, "file", "send one file per request")
			return
		}
		seen, name = true, part.FileName()
		// One byte past the largest file Meta takes is enough to refuse it.
		content, err = io.ReadAll(io.LimitReader(part, domain.MaxUploadSize+1))
		if err != nil {
			a.multipartError(w, r, err)
			return
		}
	}
	if !seen {
		writeProblem(w, r, CodeMissingParameter, "file", "send the file in a part named file")
		return
	}
	res, err := a.d.UploadMedia.Handle(r.Context(), app.UploadMedia{Principal: principalFrom(r.Context()), Filename: name, Content: content})
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	w.Header().Set("Location", "/v1/media/"+string(res.File.ID))
	writeJSON(w, http.StatusCreated, toMediaDTO(res.File))
}

func (a *api) multipartError(w http.ResponseWriter, r *http.Request, err error) {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		writeProblem(w, r, CodePayloadTooLarge, "", "the body is larger than "+sizeText(mbe.Limit))
		return
	}
	writeProblem(w, r, CodeInvalidJSON, "", "the multipart body could not be read")
}

func (a *api) getMedia(w http.ResponseWriter, r *http.Request) {
	f, err := a.d.GetMedia.Handle(r.Context(), app.GetMedia{Principal: principalFrom(r.Context()), ID: r.PathValue("id")})
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	writeJSON(w, http.StatusOK, toMediaDTO(f))
}

func (a *api) mediaContent(w http.ResponseWriter, r *http.Request) {
	c, err := a.d.GetMedia.Content(r.Context(), app.GetMedia{Principal: principalFrom(r.Context()), ID: r.PathValue("id")})
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	serveMediaContent(w, c)
}

// serveMediaContent streams a media file as an attachment that browsers
// neither sniff nor run; the dashboard serves files the same way.
func serveMediaContent(w http.ResponseWriter, c app.MediaContent) {
	defer c.Body.Close()
	h := w.Header()
	mimeType := c.MimeType
	if mimeType == "" {
		mimeType = "application/octet-stream"
	}
	h.Set("Content-Type", mimeType)
	h.Set("Cache-Control", "private, no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "sandbox; default-src 'none'")
	name := c.File.Filename
	if name == "" {
		name = string(c.File.ID)
	}
	h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": name}))
	if c.Size >= 0 {
		h.Set("Content-Length", strconv.FormatInt(c.Size, 10))
	}
	w.WriteHeader(http.StatusOK)
	_, _ = io.Copy(w, c.Body)
}
