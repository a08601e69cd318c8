package domain

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"path"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Media files (decision 0025): a file a workspace uploaded to send by id,
// or one a contact sent. An uploaded file's bytes stay with Herald, which
// puts them in Meta's media store for the sending number and again before
// Meta forgets them; a contact's file stays at Meta and is fetched through
// Herald.

// MediaID is Herald's id of a media file (med_…).
type MediaID string

// ParseMediaID validates a media id; a malformed id is not found.
func ParseMediaID(s string) (MediaID, error) {
	if !validID(PrefixMedia, s) {
		return "", NotFound(ErrMediaNotFound)
	}
	return MediaID(s), nil
}

// InboundMediaID is the id of the media of a contact's message, named after
// its thread entry: one file per entry, found again without a lookup.
func InboundMediaID(entry EntryID) MediaID {
	return MediaID(PrefixMedia + strings.TrimPrefix(string(entry), PrefixEntry))
}

// The origins of a media file.
const (
	MediaUploaded = "uploaded" // sent to Herald to send by id
	MediaInbound  = "inbound"  // a contact sent it; the bytes are at Meta
)

// MediaUploadLifetime is how long Meta keeps an uploaded file's id;
// MediaReuploadAfter is when Herald uploads the file again before using
// it, leaving a margin for a message that waits in the queue.
const (
	MediaUploadLifetime = 30 * 24 * time.Hour
	MediaReuploadAfter  = 27 * 24 * time.Hour
)

// MediaFile is a media file's metadata.
type MediaFile struct {
	ID        MediaID
	Workspace WorkspaceID
	Mode      KeyMode // uploads: the key's; inbound files are live
	Origin    string  // MediaUploaded or MediaInbound
	Kind      string  // KindImage, KindVideo, KindAudio, KindDocument, KindSticker
	MimeType  string
	Size      int64  // 0 when not known (inbound files until fetched)
	SHA256    string // lowercase hex
	Filename  string // the name it came with, if any
	// SourceURL is the media header link the file was fetched from
	// (automatic uploads), empty for files sent to Herald.
	SourceURL string
	// ProviderID is Meta's id of an inbound file.
	ProviderID string
	CreatedAt  time.Time
}

// MediaUpload is one upload of a file to Meta's media store for one
// business number (its phone number id): Meta's id, usable only from that
// number, until MediaUploadLifetime after UploadedAt.
type MediaUpload struct {
	Media      MediaID
	Number     string
	ProviderID string
	UploadedAt time.Time
}

// Fresh reports whether the upload may still be sent by id at now, with
// the margin MediaReuploadAfter leaves.
func (u MediaUpload) Fresh(now time.Time) bool {
	return u.ProviderID != "" && now.Before(u.UploadedAt.Add(MediaReuploadAfter))
}

// NewUploadedMedia checks a file sent to Herald against Meta's types and
// sizes, judged from its bytes (the name only tells Office formats apart
// within their container), and returns its metadata. sum is the content's
// SHA-256.
func NewUploadedMedia(id MediaID, p Principal, filename string, content []byte, sum [32]byte, now time.Time) (MediaFile, error) {
	if len(content) == 0 {
		return MediaFile{}, &Error{Code: CodeUnsupportedMediaFormat, Param: "file", Detail: "the file is empty"}
	}
	t, ok := SniffMediaType(filename, content)
	if !ok {
		return MediaFile{}, &Error{Code: CodeUnsupportedMediaFormat, Param: "file",
			Detail: "the file's bytes are of no type WhatsApp accepts (" + AcceptedMediaTypes + "); the name and Content-Type do not count"}
	}
	if err := t.CheckSize(int64(len(content))); err != nil {
		return MediaFile{}, err
	}
	return MediaFile{ID: id, Workspace: p.Workspace, Mode: p.Mode, Origin: MediaUploaded, Kind: t.Kind, MimeType: t.MimeType,
		Size: int64(len(content)), SHA256: hex.EncodeToString(sum[:]), Filename: cleanMediaName(filename),
		CreatedAt: now.UTC().Truncate(time.Microsecond)}, nil
}

// NewInboundMedia is the file of a contact's message, recorded with its
// thread entry.
func NewInboundMedia(e Entry) (MediaFile, bool) {
	if e.Media == nil || e.Media.ID == "" {
		return MediaFile{}, false
	}
	kind := e.Kind
	if !IsMediaType(kind) {
		kind = KindDocument
	}
	return MediaFile{ID: InboundMediaID(e.ID), Workspace: e.Workspace, Mode: e.Mode, Origin: MediaInbound, Kind: kind,
		MimeType: e.Media.MimeType, SHA256: HexSHA256(e.Media.SHA256), Filename: cleanMediaName(e.Media.Filename),
		ProviderID: e.Media.ID, CreatedAt: e.CreatedAt}, true
}

// HexSHA256 turns a SHA-256 given in base64 (Meta's webhooks) or hex into
// lowercase hex; anything else is kept as given.
func HexSHA256(s string) string {
	if len(s) == 64 {
		if b, err := hex.DecodeString(s); err == nil {
			return hex.EncodeToString(b)
		}
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil && len(b) == 32 {
			return hex.EncodeToString(b)
		}
	}
	return s
}

// cleanMediaName keeps a file name's last element, without control
// characters, at most MaxFilename characters.
func cleanMediaName(name string) string {
	name = path.Base(strings.ReplaceAll(name, "\\", "/"))
	if name == "." || name == "/" {
		return ""
	}
	name = strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return -1
		}
		return r
	}, name)
	if utf8.RuneCountInString(name) > MaxFilename {
		name = string([]rune(name)[:MaxFilename])
	}
	return name
}

// MediaType is a file type WhatsApp accepts: its MIME type, the message
// kind it is sent as, and Meta's size limit.
type MediaType struct {
	MimeType string
	Kind     string
	MaxSize  int64
}

// AcceptedMediaTypes names the types an upload may have.
const AcceptedMediaTypes = "JPEG, PNG, WebP, MP4, 3GPP, AAC, AMR, MP3, M4A, OGG Opus, PDF, plain text, Word, Excel, PowerPoint"

// Meta's size limits (MB of 2^20 bytes, KB of 2^10).
const (
	maxImage           = 5 << 20
	maxVideo           = 16 << 20
	maxAudio           = 16 << 20
	maxDocument        = 100 << 20
	maxSticker         = 100 << 10
	maxAnimatedSticker = 500 << 10
)

// MaxUploadSize is the largest file any type allows.
const MaxUploadSize = maxDocument

// CheckSize applies Meta's limit for the type.
func (t MediaType) CheckSize(size int64) error {
	if size <= t.MaxSize {
		return nil
	}
	limit := strconv.FormatInt(t.MaxSize>>20, 10) + " MB"
	if t.MaxSize < 1<<20 {
		limit = strconv.FormatInt(t.MaxSize>>10, 10) + " KB"
	}
	return &Error{Code: CodeMediaTooLarge, Param: "file",
		Detail: "the file is " + strconv.FormatInt(size, 10) + " bytes; WhatsApp takes " + t.MimeType + " files of at most " + limit}
}

var officeTypes = map[string]string{
	".doc":  "application/msword",
	".xls":  "application/vnd.ms-excel",
	".ppt":  "application/vnd.ms-powerpoint",
	".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
	".xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
	".pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
}

// SniffMediaType identifies a file's type from its bytes, among the types
// WhatsApp accepts: images (JPEG, PNG), stickers (WebP, static or
// animated), videos (MP4, 3GPP), audio (AAC, AMR, MP3, M4A, Opus in OGG),
// documents (PDF, plain UTF-8 text, and Office files, whose container —
// OLE for .doc/.xls/.ppt, ZIP for .docx/.xlsx/.pptx — is judged from the
// bytes and whose kind from the name). ok is false for anything else.
func SniffMediaType(filename string, b []byte) (MediaType, bool) {
	switch f := SniffMediaFormat(b); f {
	case MediaJPEG:
		return MediaType{"image/jpeg", KindImage, maxImage}, true
	case MediaPNG:
		return MediaType{"image/png", KindImage, maxImage}, true
	case MediaMP4:
		return MediaType{"video/mp4", KindVideo, maxVideo}, true
	case Media3GPP:
		return MediaType{"video/3gpp", KindVideo, maxVideo}, true
	case MediaPDF:
		return MediaType{"application/pdf", KindDocument, maxDocument}, true
	}
	ext := strings.ToLower(path.Ext(filename))
	switch {
	case len(b) >= 16 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP":
		limit := int64(maxSticker)
		// VP8X's flags carry the animation bit.
		if len(b) >= 21 && string(b[12:16]) == "VP8X" && b[20]&0x02 != 0 {
			limit = maxAnimatedSticker
		}
		return MediaType{"image/webp", KindSticker, limit}, true
	case len(b) >= 12 && string(b[4:8]) == "ftyp" && (string(b[8:12]) == "M4A " || string(b[8:12]) == "M4B "):
		return MediaType{"audio/mp4", KindAudio, maxAudio}, true
	case bytes.HasPrefix(b, []byte("#!AMR")):
		return MediaType{"audio/amr", KindAudio, maxAudio}, true
	case bytes.HasPrefix(b, []byte("OggS")):
		// Only Opus: the first page's packet starts with OpusHead.
		if len(b) >= 36 && string(b[28:36]) == "OpusHead" {
			return MediaType{"audio/ogg", KindAudio, maxAudio}, true
		}
		return MediaType{}, false
	case bytes.HasPrefix(b, []byte("ID3")):
		return MediaType{"audio/mpeg", KindAudio, maxAudio}, true
	case len(b) >= 2 && b[0] == 0xFF && (b[1]&0xF6 == 0xF0):
		// ADTS: a sync word with layer 0.
		return MediaType{"audio/aac", KindAudio, maxAudio}, true
	case len(b) >= 2 && b[0] == 0xFF && b[1]&0xE0 == 0xE0 && b[1]&0x06 != 0:
		// An MPEG audio frame (layer I–III) without an ID3 tag.
		return MediaType{"audio/mpeg", KindAudio, maxAudio}, true
	case bytes.HasPrefix(b, []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}):
		if m, ok := officeTypes[ext]; ok && len(ext) == 4 {
			return MediaType{m, KindDocument, maxDocument}, true
		}
	case bytes.HasPrefix(b, []byte("PK\x03\x04")):
		if m, ok := officeTypes[ext]; ok && len(ext) == 5 {
			return MediaType{m, KindDocument, maxDocument}, true
		}
	case isPlainText(b):
		return MediaType{"text/plain", KindDocument, maxDocument}, true
	}
	return MediaType{}, false
}

// isPlainText reports whether b is UTF-8 text without NULs or control
// characters other than tab, newline, carriage return and form feed.
func isPlainText(b []byte) bool {
	if !utf8.Valid(b) {
		return false
	}
	for _, c := range b {
		if c < ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\f' || c == 0x7f {
			return false
		}
	}
	return true
}

// CheckMediaKind says whether a file of this kind may be sent as a message
// of type t (an image as an image, any file as a document), param naming
// the field.
func (f MediaFile) CheckMediaKind(t, param string) error {
	if f.Origin != MediaUploaded {
		return InvalidParameter(param, "media "+string(f.ID)+" was sent by a contact; send files uploaded with POST /v1/media")
	}
	if f.Kind == t || t == KindDocument {
		return nil
	}
	return InvalidParameter(param, "media "+string(f.ID)+" is "+f.MimeType+", which WhatsApp sends as "+article2(f.Kind)+" message, not "+article2(t))
}

func article2(kind string) string {
	switch kind {
	case KindImage, KindAudio:
		return "an " + kind
	}
	return "a " + kind
}
