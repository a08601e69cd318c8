package app

import (
	"context"
	"slices"
	"strings"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// ListTemplates asks for the synced templates of the business accounts a
// workspace may use.
type ListTemplates struct {
	// Workspace is the key's; its numbers' business accounts and the
	// configured one are listed. Empty (the operator's) is every
	// number's.
	Workspace domain.WorkspaceID
	// WABAID, when set, lists that account's only: one of the
	// workspace's, else 422 invalid_parameter.
	WABAID string
}

// ListTemplatesHandler lists the business accounts' synced templates, for
// choosing one when a campaign is created.
type ListTemplatesHandler struct {
	source    ports.TemplateSource // nil when template sync is not configured
	templates ports.TemplateRepository
	numbers   ports.NumberRepository // nil: the configured account's only
}

// NewListTemplatesHandler builds the handler; source may be nil, and then
// only the stored numbers' accounts have synced templates.
func NewListTemplatesHandler(source ports.TemplateSource, templates ports.TemplateRepository) *ListTemplatesHandler {
	return &ListTemplatesHandler{source: source, templates: templates}
}

// WithNumbers returns h listing the templates of the workspace's numbers'
// business accounts as well as the configured one's.
func (h *ListTemplatesHandler) WithNumbers(numbers ports.NumberRepository) *ListTemplatesHandler {
	c := *h
	c.numbers = numbers
	return &c
}

// Handle returns the synced templates of q's accounts ordered by name,
// then language, then account; none when no account is known.
func (h *ListTemplatesHandler) Handle(ctx context.Context, q ListTemplates) ([]domain.SyncedTemplate, error) {
	configured := ""
	if h.source != nil {
		configured = h.source.Account()
	}
	set, err := templateAccounts{numbers: h.numbers}.load(ctx, q.Workspace, configured)
	if err != nil {
		return nil, err
	}
	accounts := set.accounts
	if q.WABAID != "" {
		if _, err := set.choose("", q.WABAID, configured); err != nil {
			return nil, err
		}
		accounts = []string{q.WABAID}
	}
	var out []domain.SyncedTemplate
	for _, a := range accounts {
		ts, err := h.templates.ListTemplates(ctx, a)
		if err != nil {
			return nil, err
		}
		out = append(out, ts...)
	}
	slices.SortStableFunc(out, func(a, b domain.SyncedTemplate) int {
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		if c := strings.Compare(a.Language, b.Language); c != 0 {
			return c
		}
		return strings.Compare(a.Account, b.Account)
	})
	return out, nil
}

// Accounts are the business accounts workspace's templates are in: the
// configured one, then its active numbers' (oldest number first); every
// number's when workspace is empty.
func (h *ListTemplatesHandler) Accounts(ctx context.Context, workspace domain.WorkspaceID) ([]string, error) {
	configured := ""
	if h.source != nil {
		configured = h.source.Account()
	}
	set, err := templateAccounts{numbers: h.numbers}.load(ctx, workspace, configured)
	return set.accounts, err
}
