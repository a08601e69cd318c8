package domain

import (
	"strings"
	"time"
)

// TemplateCategory is Meta's category of a message template: MARKETING,
// UTILITY, AUTHENTICATION, and others Meta may add. It decides whether a
// contact who stopped the business's marketing messages (Meta's
// user_preferences) still receives the template. The zero value means the
// category is not known: a template defined in Herald without one, that no
// sync has seen.
type TemplateCategory struct{ s string }

// The categories Meta documents.
var (
	CategoryMarketing      = TemplateCategory{"MARKETING"}
	CategoryUtility        = TemplateCategory{"UTILITY"}
	CategoryAuthentication = TemplateCategory{"AUTHENTICATION"}
)

// ParseTemplateCategory parses a category as Meta spells it
// (case-insensitive): a word of 1 to 40 letters and underscores. Categories
// Herald does not know are kept as Meta names them, and count as marketing.
func ParseTemplateCategory(s string) (TemplateCategory, error) {
	s = strings.ToUpper(strings.TrimSpace(s))
	if s == "" || len(s) > 40 || strings.Trim(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_") != "" {
		return TemplateCategory{}, InvalidParameter("category", "a template category is MARKETING, UTILITY or AUTHENTICATION")
	}
	return TemplateCategory{s}, nil
}

func (c TemplateCategory) String() string { return c.s }

// IsZero reports whether the category is not known.
func (c TemplateCategory) IsZero() bool { return c.s == "" }

// IsMarketing reports whether a message of this category is marketing for
// a contact's opt-out: every category but UTILITY and AUTHENTICATION. An
// unknown category counts as marketing, since a promotion sent to someone
// who said stop is the mistake that costs the business, not a receipt held
// back.
func (c TemplateCategory) IsMarketing() bool {
	return c != CategoryUtility && c != CategoryAuthentication
}

// describe names the category in a sentence.
func (c TemplateCategory) describe() string {
	if c.IsZero() {
		return "has no known category, which counts as marketing"
	}
	return "is " + c.s
}

// SetCategory records Meta's category of the campaign's template (from a
// sync or a category webhook), and reports whether it changed. A zero
// category (Meta did not say) changes nothing.
func (c *Campaign) SetCategory(cat TemplateCategory, now time.Time) bool {
	if cat.IsZero() || c.Category == cat {
		return false
	}
	c.Category = cat
	c.UpdatedAt = now.UTC().Truncate(time.Microsecond)
	return true
}
