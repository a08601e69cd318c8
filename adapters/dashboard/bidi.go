package dashboard

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
)

// Text that people other than the operator chose (contacts' names and
// messages, filenames, tags, and what operators typed) can carry Unicode's
// bidirectional controls, which reorder what is displayed: a file named
// "invoice\u202Egnp.exe" reads "invoiceexe.png". The templates put such text
// in <bdi> (or dir="auto" on the element that holds it), so its direction
// never spills into the page around it, and show it through these
// functions:
//
//   - shown makes the two override controls (U+202D, U+202E), which reverse
//     the letters that follow them and have no use in typed text, visible
//     as ⟨U+202E⟩. Marks, embeddings and isolates stay: right-to-left
//     writing uses them, and they cannot reverse letters.
//   - filename makes every control and format character visible, since a
//     file's name has no use for any of them.
//
// Form fields keep the text as it is, so saving a form never changes it.

// shown is s with the override controls made visible.
func shown(s string) string {
	return visible(s, func(r rune) bool { return r == '\u202D' || r == '\u202E' })
}

// filename is s with every control and format character made visible.
func filename(s string) string {
	return visible(s, func(r rune) bool {
		return unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp)
	})
}

func visible(s string, hide func(rune) bool) string {
	if strings.IndexFunc(s, hide) < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if hide(r) {
			b.WriteString(codePoint(r))
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// codePoint names r as ⟨U+202E⟩.
func codePoint(r rune) string {
	hex := strings.ToUpper(strconv.FormatInt(int64(r), 16))
	return "⟨U+" + strings.Repeat("0", max(0, 4-len(hex))) + hex + "⟩"
}

// escapeFormatChars writes the format characters (bidirectional controls,
// zero-width ones) in encoded JSON as \uXXXX escapes: the same JSON, shown
// as it is.
func escapeFormatChars(json string) string {
	if strings.IndexFunc(json, isFormat) < 0 {
		return json
	}
	var b strings.Builder
	escape := func(r rune) {
		hex := strconv.FormatInt(int64(r), 16)
		b.WriteString(`\u` + strings.Repeat("0", 4-len(hex)) + hex)
	}
	for _, r := range json {
		switch {
		case !isFormat(r):
			b.WriteRune(r)
		case r > 0xFFFF: // a surrogate pair, as JSON writes it
			hi, lo := utf16.EncodeRune(r)
			escape(hi)
			escape(lo)
		default:
			escape(r)
		}
	}
	return b.String()
}

func isFormat(r rune) bool { return unicode.Is(unicode.Cf, r) }
