package domain

import (
	"strings"
	"unicode/utf8"
)

// Text Herald stores is valid UTF-8 without NUL (U+0000). PostgreSQL refuses
// both in text and JSON columns, and every engine holds the same data, so
// the rule is the domain's, not one store's: text a caller gives is refused
// (CheckText), and text Herald cannot refuse, such as what Meta reports, is
// cleaned (ScrubText).

// CheckText refuses s when it is not valid UTF-8 or holds a NUL character;
// param names the field and what says what it is, for the detail.
func CheckText(param, what, s string) error {
	if why := textProblem(s); why != "" {
		return InvalidParameter(param, what+" "+why)
	}
	return nil
}

// textProblem says what is wrong with s for CheckText, or "" when nothing
// is.
func textProblem(s string) string {
	switch {
	case !utf8.ValidString(s):
		return "is not valid UTF-8"
	case strings.IndexByte(s, 0) >= 0:
		return "contains a NUL character (U+0000), which Herald does not store"
	}
	return ""
}

// ScrubText returns s with each invalid UTF-8 sequence and each NUL
// character replaced by U+FFFD (�), the rest kept as it is. It is for text
// Herald must keep but cannot refuse: Meta's webhook events and template
// lists.
func ScrubText(s string) string {
	if utf8.ValidString(s) && strings.IndexByte(s, 0) < 0 {
		return s
	}
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD")
}
