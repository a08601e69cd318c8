package domain

import (
	"bytes"
	"strconv"
	"strings"
)

// MaxMediaURLLength bounds a media header URL.
const MaxMediaURLLength = 2048

// MediaPolicy is what the operator allows in media header URLs beyond the
// default of public https hosts.
type MediaPolicy struct {
	// AllowHTTP accepts plain http URLs (tests, intranets).
	AllowHTTP bool
	// AllowedHosts are "host" or "host:port" entries, lowercase, exempt from
	// the private-address block: an intranet media server, a test server.
	AllowedHosts []string
}

// Allows reports whether hostport ("host:port", the port always given) is
// exempt from the private-address block.
func (p MediaPolicy) Allows(hostport string) bool { return hostAllowed(p.AllowedHosts, hostport) }

// CheckMediaURL applies the rules that need no network: an absolute https
// URL (http too when the policy allows it) without credentials whose host is
// not a loopback, private, link-local or unspecified address, nor localhost,
// unless the policy exempts it. What the URL points to is checked by
// inspecting the resource, which is I/O and lives in an adapter.
func CheckMediaURL(raw string, p MediaPolicy) error {
	if why := checkPublicURL(raw, "the media header URL", p.AllowHTTP, p.AllowedHosts); why != "" {
		return &Error{Code: CodeInvalidMediaURL, Param: "mediaHeaderUrl", Detail: why}
	}
	return nil
}

// MediaFormat is a file format a media header may have, identified from the
// resource's first bytes.
type MediaFormat struct{ s string }

// The formats Meta accepts in template headers; the zero value is a format
// Herald does not recognise.
var (
	MediaJPEG = MediaFormat{"jpeg"}
	MediaPNG  = MediaFormat{"png"}
	MediaMP4  = MediaFormat{"mp4"}
	Media3GPP = MediaFormat{"3gpp"}
	MediaPDF  = MediaFormat{"pdf"}
)

func (f MediaFormat) String() string {
	if f.s == "" {
		return "unrecognised"
	}
	return f.s
}

// IsZero reports whether the format was not recognised.
func (f MediaFormat) IsZero() bool { return f.s == "" }

// MediaSniffLength is how many leading bytes SniffMediaFormat needs.
const MediaSniffLength = 64

// SniffMediaFormat identifies a resource's format from its first bytes,
// never from its name or declared type: JPEG and PNG by their signatures,
// PDF by "%PDF-", MP4 and 3GPP by the brand of the leading ISO base media
// "ftyp" box.
func SniffMediaFormat(head []byte) MediaFormat {
	switch {
	case bytes.HasPrefix(head, []byte{0xFF, 0xD8, 0xFF}):
		return MediaJPEG
	case bytes.HasPrefix(head, []byte{0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'}):
		return MediaPNG
	case bytes.HasPrefix(head, []byte("%PDF-")):
		return MediaPDF
	}
	if len(head) < 12 || string(head[4:8]) != "ftyp" {
		return MediaFormat{}
	}
	brand := string(head[8:12])
	switch {
	case strings.HasPrefix(brand, "3gp"), strings.HasPrefix(brand, "3g2"):
		return Media3GPP
	case brand == "isom", brand == "iso2", brand == "mp41", brand == "mp42", brand == "avc1", brand == "M4V ", brand == "dash":
		return MediaMP4
	}
	return MediaFormat{}
}

// MediaInfo is what inspecting a media header's resource found.
type MediaInfo struct {
	Format MediaFormat
	// Size is the resource's length in bytes. An inspector that stops
	// reading past the largest size the header allows reports that limit
	// plus one.
	Size int64
	// Filename is the name the server gave the resource (the filename of
	// its Content-Disposition), as sent: not yet checked or cleaned; empty
	// when it gave none. See DocumentFilename.
	Filename string
}

// mediaRule is Meta's rule for one media header kind.
type mediaRule struct {
	formats []MediaFormat
	maxSize int64
	names   string
}

// Meta's limits for template media headers (sizes in Meta's MB of 2^20
// bytes).
var mediaRules = map[HeaderFormat]mediaRule{
	HeaderImage:    {[]MediaFormat{MediaJPEG, MediaPNG}, 5 << 20, "JPEG or PNG"},
	HeaderVideo:    {[]MediaFormat{MediaMP4, Media3GPP}, 16 << 20, "MP4 or 3GPP"},
	HeaderDocument: {[]MediaFormat{MediaPDF}, 100 << 20, "PDF"},
}

// MaxMediaSize is the largest resource Meta accepts for a media header of
// kind f, or 0 when f is not a media header.
func (f HeaderFormat) MaxMediaSize() int64 { return mediaRules[f].maxSize }

// MediaFormatNames names the formats Meta accepts for a media header of
// kind f ("JPEG or PNG"), or "" when f is not a media header.
func (f HeaderFormat) MediaFormatNames() string { return mediaRules[f].names }

// CheckMedia applies Meta's rules for a header of kind f to an inspected
// resource: its format must be one the kind allows, and its size within
// Meta's limit.
func (f HeaderFormat) CheckMedia(info MediaInfo) error {
	rule, ok := mediaRules[f]
	if !ok {
		return &Error{Code: CodeMediaHeaderNotAllowed, Param: "mediaHeaderUrl",
			Detail: "the template has no media header; leave mediaHeaderUrl out"}
	}
	allowed := false
	for _, m := range rule.formats {
		allowed = allowed || info.Format == m
	}
	if !allowed {
		found := "its first bytes match none of these formats"
		if !info.Format.IsZero() {
			found = "its first bytes are those of " + strings.ToUpper(info.Format.String())
		}
		return &Error{Code: CodeUnsupportedMediaFormat, Param: "mediaHeaderUrl",
			Detail: capitalFirst(article(f)) + " header must be " + rule.names + "; " + found}
	}
	if info.Size > rule.maxSize {
		return &Error{Code: CodeMediaUnreachable, Param: "mediaHeaderUrl",
			Detail: "the resource is larger than the " + strconv.FormatInt(rule.maxSize>>20, 10) + " MB Meta allows for " + article(f) + " header"}
	}
	return nil
}

func capitalFirst(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

func article(f HeaderFormat) string {
	if f == HeaderImage {
		return "an image"
	}
	return "a " + f.String()
}
