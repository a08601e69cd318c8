package domain

import (
	"net/url"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxMediaFilenameLength bounds a document header's file name, in bytes:
// most file systems keep 255, and the recipient's phone stores the file
// under this name.
const MaxMediaFilenameLength = 240

// Extension is the usual file name extension of a format, without the dot:
// jpg, png, mp4, 3gp, pdf; "" for a format Herald does not recognise.
func (f MediaFormat) Extension() string {
	switch f {
	case MediaJPEG:
		return "jpg"
	case MediaPNG:
		return "png"
	case MediaMP4:
		return "mp4"
	case Media3GPP:
		return "3gp"
	case MediaPDF:
		return "pdf"
	}
	return ""
}

// MediaFilename is the file name a media header carries to Meta. Only a
// document has one (Meta shows it to the recipient, and its extension
// decides the icon): DocumentFilename of what inspecting rawURL found.
// Images and videos carry none.
func (f HeaderFormat) MediaFilename(rawURL string, info MediaInfo) string {
	if f != HeaderDocument {
		return ""
	}
	return DocumentFilename(info.Filename, rawURL, info.Format)
}

// DocumentFilename names a document header for its recipient, who sees
// terms.pdf rather than an unnamed file. The name is the one the server
// gave (served: Content-Disposition's filename), else the URL's last path
// segment, else "document" and the format's extension. It is made safe to
// show and to save: only the part after the last "/" or "\" is kept,
// control and bidirectional-override characters are dropped, surrounding
// spaces and dots are trimmed, the format's extension is added when the
// name does not end in it (a PDF named "terms" is "terms.pdf"), and the
// name is cut to MaxMediaFilenameLength bytes, keeping the extension.
func DocumentFilename(served, rawURL string, format MediaFormat) string {
	ext := format.Extension()
	name := cleanFilename(served, ext)
	if name == "" {
		if u, err := url.Parse(rawURL); err == nil {
			name = cleanFilename(path.Base(u.Path), ext)
		}
	}
	if name == "" {
		name = "document"
	}
	if ext == "" {
		return cutFilename(name, MaxMediaFilenameLength)
	}
	ext = "." + ext
	if len(name) < len(ext) || !strings.EqualFold(name[len(name)-len(ext):], ext) {
		name += ext
	}
	stem := strings.TrimRight(cutFilename(name[:len(name)-len(ext)], MaxMediaFilenameLength-len(ext)), " .")
	if stem == "" {
		stem = "document"
	}
	return stem + name[len(name)-len(ext):]
}

// cleanFilename keeps the last path segment of s without characters that
// would hide or disguise a name, and trims spaces and dots at both ends
// (".", ".." and hidden-file names become their stem or nothing). A bare
// extension (".pdf") names nothing.
func cleanFilename(s, ext string) string {
	s = strings.ToValidUTF8(s, "")
	if i := strings.LastIndexAny(s, `/\`); i >= 0 {
		s = s[i+1:]
	}
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || bidiControl(r) {
			return -1
		}
		return r
	}, s)
	s = strings.Trim(s, " \u00a0\u3000")
	if ext != "" && strings.HasPrefix(s, ".") && strings.EqualFold(strings.TrimLeft(s, "."), ext) {
		return ""
	}
	return strings.Trim(s, " .\u00a0\u3000")
}

// bidiControl reports whether r changes the direction of the text around
// it, which lets "invoice\u202efdp.exe" look like "invoiceexe.pdf".
func bidiControl(r rune) bool {
	switch {
	case r == '\u061c', r == '\u200e', r == '\u200f':
		return true
	case r >= '\u202a' && r <= '\u202e', r >= '\u2066' && r <= '\u2069':
		return true
	}
	return false
}

// cutFilename cuts s to at most n bytes without splitting a character.
func cutFilename(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
