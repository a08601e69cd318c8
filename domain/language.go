package domain

import "strings"

// MaxLanguageLength bounds a template language code: Meta's longest
// codes (prs_AF) are far shorter.
const MaxLanguageLength = 15

// CanonicalLanguage returns a template language code in the one form
// Herald stores and compares: subtags joined by "_", the language subtag
// in lower case and every later subtag in upper case, which is how Meta's
// template API writes its codes (en, en_US, pt_BR, zh_HK, prs_AF). Meta's
// webhooks and people also write "pt-BR", "pt_br" or "PT-BR"; all of them
// are pt_BR. Surrounding spaces are dropped; a code with empty subtags is
// returned otherwise unchanged, for the caller's validation to refuse.
func CanonicalLanguage(code string) string {
	code = strings.TrimSpace(code)
	lang, region, found := strings.Cut(strings.ReplaceAll(code, "-", "_"), "_")
	if !found {
		return strings.ToLower(code)
	}
	return strings.ToLower(lang) + "_" + strings.ToUpper(region)
}

// SameLanguage reports whether a and b name the same template language in
// any of the forms Meta writes.
func SameLanguage(a, b string) bool { return CanonicalLanguage(a) == CanonicalLanguage(b) }

// ParseLanguage checks a template language code and returns its canonical
// form: letters in one to three subtags joined by "_" or "-", at most
// MaxLanguageLength characters ("en", "en_US", "pt-BR").
func ParseLanguage(code string) (string, error) {
	c := CanonicalLanguage(code)
	bad := c == "" || len(c) > MaxLanguageLength || strings.Count(c, "_") > 2
	for _, sub := range strings.Split(c, "_") {
		bad = bad || sub == "" || strings.Trim(sub, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") != ""
	}
	if bad {
		return "", InvalidParameter("language", `a language is a code such as "en" or "en_US"`)
	}
	return c, nil
}
