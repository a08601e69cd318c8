package app

import (
	"context"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// ListTemplatesHandler lists the business account's synced templates, for
// choosing one when a campaign is created.
type ListTemplatesHandler struct {
	source    ports.TemplateSource // nil when template sync is not configured
	templates ports.TemplateRepository
}

// NewListTemplatesHandler builds the handler; source may be nil, and then
// there are no synced templates.
func NewListTemplatesHandler(source ports.TemplateSource, templates ports.TemplateRepository) *ListTemplatesHandler {
	return &ListTemplatesHandler{source: source, templates: templates}
}

// Handle returns the synced templates ordered by name, then language; none
// when template sync is not configured.
func (h *ListTemplatesHandler) Handle(ctx context.Context) ([]domain.SyncedTemplate, error) {
	if h.source == nil {
		return nil, nil
	}
	return h.templates.ListTemplates(ctx, h.source.Account())
}
