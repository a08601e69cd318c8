package fakemeta

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Media is a file in the fake's media store: uploaded by the business for
// a phone number, or added by a test as a file a contact sent.
type Media struct {
	ID            string
	PhoneNumberID string // the number it was uploaded for; empty for a contact's file
	MimeType      string
	Filename      string
	Content       []byte
	UploadedAt    time.Time
}

// mediaTypes are the types Meta's upload takes (reference, more §3.3).
var mediaTypes = []string{"image/jpeg", "image/png", "image/webp", "video/mp4", "video/3gpp", "audio/aac", "audio/amr",
	"audio/mpeg", "audio/mp4", "audio/ogg", "text/plain", "application/pdf", "application/msword", "application/vnd.ms-excel",
	"application/vnd.ms-powerpoint", "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
	"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
	"application/vnd.openxmlformats-officedocument.presentationml.presentation"}

// MediaURLLifetime is how long a media URL from GET /{media-id} can be
// downloaded, as at Meta.
const MediaURLLifetime = 5 * time.Minute

// downloadURL is one URL handed out by GET /{media-id}.
type downloadURL struct {
	media   string
	expires time.Time
}

// AddMedia puts a file a contact sent into the store and returns its
// media id, to name in an inbound webhook (Inbound.MediaID).
func (s *Server) AddMedia(content []byte, mimeType string) string {
	id := randomDigits(16)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.media[id] = Media{ID: id, MimeType: mimeType, Content: slices.Clone(content), UploadedAt: time.Now()}
	return id
}

// ForgetMedia deletes a file, as Meta does after 30 days (7 for a
// contact's).
func (s *Server) ForgetMedia(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.media, id)
}

// Uploads returns the files uploaded through POST /{phone-number-id}/media,
// in order.
func (s *Server) Uploads() []Media {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Media
	for _, id := range s.uploadOrder {
		if m, ok := s.media[id]; ok {
			out = append(out, m)
		}
	}
	return out
}

// MediaDownloads counts the downloads of media URLs answered with the file.
func (s *Server) MediaDownloads() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.downloads
}

// ExpireMediaURLs makes every media URL handed out so far expired.
func (s *Server) ExpireMediaURLs() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, u := range s.urls {
		u.expires = time.Time{}
		s.urls[k] = u
	}
}

func (s *Server) authorized(w http.ResponseWriter, r *http.Request) bool {
	if r.Header.Get("Authorization") != "Bearer "+s.Token {
		s.fail(w, sendLedger, http.StatusUnauthorized, 190, 0, "Invalid OAuth access token - Cannot parse access token", "OAuthException")
		return false
	}
	return true
}

// serveUpload answers POST /{phone-number-id}/media as Meta does:
// multipart with messaging_product, type and the file, whose type must be
// one Meta takes.
func (s *Server) serveUpload(w http.ResponseWriter, r *http.Request, phoneNumberID string) {
	if !s.authorized(w, r) {
		return
	}
	if phoneNumberID != s.PhoneNumberID {
		s.fail(w, sendLedger, http.StatusBadRequest, 100, 33, unknownObject("post", phoneNumberID), "GraphMethodException")
		return
	}
	fields, file, ok := readUpload(r)
	typ := fields["type"]
	if !ok || fields["messaging_product"] != "whatsapp" || typ == "" || file.name == "" {
		s.fail(w, sendLedger, http.StatusBadRequest, 100, 0, "The parameter messaging_product, type and file are required.", "OAuthException")
		return
	}
	content := file.content
	if !slices.Contains(mediaTypes, typ) || file.typ != typ {
		s.fail(w, sendLedger, http.StatusBadRequest, 100, 0, "Param file must be a file with one of the following types: "+
			strings.Join(mediaTypes, ", ")+". Received file of type '"+file.typ+"'.", "OAuthException")
		return
	}
	id := randomDigits(16)
	s.mu.Lock()
	s.media[id] = Media{ID: id, PhoneNumberID: phoneNumberID, MimeType: typ, Filename: file.name, Content: content, UploadedAt: time.Now()}
	s.uploadOrder = append(s.uploadOrder, id)
	s.mu.Unlock()
	s.answer(w, sendLedger, http.StatusOK, map[string]string{"id": id})
}

// uploadPart is the file part of an upload.
type uploadPart struct {
	name, typ string
	content   []byte
}

// readUpload reads a multipart upload's fields and its file part as they
// stream in (the project never lets net/http spool a body to files).
func readUpload(r *http.Request) (map[string]string, uploadPart, bool) {
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" {
		return nil, uploadPart{}, false
	}
	mr := multipart.NewReader(io.LimitReader(r.Body, 200<<20), params["boundary"])
	fields := map[string]string{}
	var file uploadPart
	for {
		p, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return fields, file, true
		}
		if err != nil {
			return nil, uploadPart{}, false
		}
		b, err := io.ReadAll(p)
		if err != nil {
			return nil, uploadPart{}, false
		}
		if p.FormName() == "file" {
			file = uploadPart{name: p.FileName(), typ: p.Header.Get("Content-Type"), content: b}
		} else {
			fields[p.FormName()] = string(b)
		}
	}
}

// serveMediaURL answers GET /{media-id}: a URL valid for five minutes that
// needs the token, and the file's type, hash and size. With
// phone_number_id, media of another number is not found.
func (s *Server) serveMediaURL(w http.ResponseWriter, r *http.Request, id string) {
	if !s.authorized(w, r) {
		return
	}
	s.mu.Lock()
	m, ok := s.media[id]
	if number := r.URL.Query().Get("phone_number_id"); ok && number != "" && m.PhoneNumberID != "" && m.PhoneNumberID != number {
		ok = false
	}
	token := randomString(32)
	if ok {
		s.urls[token] = downloadURL{media: id, expires: time.Now().Add(MediaURLLifetime)}
	}
	s.mu.Unlock()
	if !ok {
		s.fail(w, sendLedger, http.StatusBadRequest, 100, 33, unknownObject("get", id), "GraphMethodException")
		return
	}
	sum := sha256.Sum256(m.Content)
	s.answer(w, sendLedger, http.StatusOK, map[string]string{"messaging_product": "whatsapp",
		"url": s.origin + "/whatsapp_business/attachments/?mid=" + token, "mime_type": m.MimeType,
		"sha256": hex.EncodeToString(sum[:]), "file_size": strconv.Itoa(len(m.Content)), "id": id})
}

// serveDownload answers a media URL: the file to a caller with the token
// while the URL lasts; 401 without the token, 404 once expired.
func (s *Server) serveDownload(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Authorization") != "Bearer "+s.Token {
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	s.mu.Lock()
	u, ok := s.urls[r.URL.Query().Get("mid")]
	m, found := s.media[u.media]
	live := ok && found && time.Now().Before(u.expires)
	if live {
		s.downloads++
	}
	s.mu.Unlock()
	if !live {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", m.MimeType)
	w.Header().Set("Content-Length", strconv.Itoa(len(m.Content)))
	w.Write(m.Content)
}

// unknownMedia returns the first media id a send names (an "id" in an
// image, video, audio, document or sticker object, at any depth) that the
// store does not hold for the number, or "".
func (s *Server) unknownMedia(body []byte, phoneNumberID string) string {
	var v any
	if json.Unmarshal(body, &v) != nil {
		return ""
	}
	var ids []string
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, c := range x {
				switch k {
				case "image", "video", "audio", "document", "sticker":
					if o, ok := c.(map[string]any); ok {
						if id, ok := o["id"].(string); ok {
							ids = append(ids, id)
						}
					}
				}
				walk(c)
			}
		case []any:
			for _, c := range x {
				walk(c)
			}
		}
	}
	walk(v)
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range ids {
		if m, ok := s.media[id]; !ok || m.PhoneNumberID != phoneNumberID {
			return id
		}
	}
	return ""
}

// MediaIDsIn returns the media ids a send's body names, for tests that
// check a message went by id.
func MediaIDsIn(body []byte) []string {
	var p struct {
		Image, Video, Audio, Document, Sticker *struct {
			ID   string `json:"id"`
			Link string `json:"link"`
		}
		Template *struct {
			Components []struct {
				Parameters []struct {
					Image, Video, Document *struct {
						ID string `json:"id"`
					}
				} `json:"parameters"`
			} `json:"components"`
		} `json:"template"`
	}
	_ = json.Unmarshal(body, &p)
	var ids []string
	for _, o := range []*struct {
		ID   string `json:"id"`
		Link string `json:"link"`
	}{p.Image, p.Video, p.Audio, p.Document, p.Sticker} {
		if o != nil && o.ID != "" {
			ids = append(ids, o.ID)
		}
	}
	if p.Template != nil {
		for _, c := range p.Template.Components {
			for _, prm := range c.Parameters {
				for _, o := range []*struct {
					ID string `json:"id"`
				}{prm.Image, prm.Video, prm.Document} {
					if o != nil && o.ID != "" {
						ids = append(ids, o.ID)
					}
				}
			}
		}
	}
	return ids
}
