package app

import (
	"strings"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// Page sizes for lists.
const (
	DefaultPageSize = 20
	MaxPageSize     = 100
)

// checkPage applies the default size and refuses sizes out of range.
func checkPage(p ports.Page) (ports.Page, error) {
	switch {
	case p.Limit == 0:
		p.Limit = DefaultPageSize
	case p.Limit < 0 || p.Limit > MaxPageSize:
		return p, domain.InvalidParameter("limit", "limit must be between 1 and 100")
	}
	// A cursor is an id, printable ASCII; anything else (a NUL, which
	// PostgreSQL refuses even in a query's parameters) was not returned.
	if len(p.Cursor) > 64 || strings.ContainsFunc(p.Cursor, func(r rune) bool { return r <= ' ' || r > '~' }) {
		return p, domain.InvalidParameter("cursor", "the cursor is not one this API returned")
	}
	return p, nil
}
