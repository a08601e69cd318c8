package memstore

import (
	"cmp"
	"context"
	"slices"

	"github.com/heraldhq/herald/domain"
)

type templateKey struct{ account, name, language string }

// tkey is the key of a template, its language in canonical form: Meta
// writes pt_BR and pt-BR for one language.
func tkey(account, name, language string) templateKey {
	return templateKey{account, name, domain.CanonicalLanguage(language)}
}

// ReplaceTemplates makes ts the account's templates: the account's stored
// templates missing from ts are deleted and the others stored, under
// account whatever their Account field says.
func (r *repos) ReplaceTemplates(ctx context.Context, account string, ts []domain.SyncedTemplate) error {
	defer r.enter(ctx)()
	keep := make(map[templateKey]bool, len(ts))
	for _, t := range ts {
		keep[tkey(account, t.Name, t.Language)] = true
	}
	for k := range r.st.templates {
		if k.account == account && !keep[k] {
			del(r.st, r.st.templates, k)
		}
	}
	for _, t := range ts {
		k := tkey(account, t.Name, t.Language)
		t.Account, t.Language = account, k.language
		put(r.st, r.st.templates, k, copyTemplate(t))
	}
	return nil
}

// ListTemplates returns the account's templates ordered by name, then
// language.
func (r *repos) ListTemplates(ctx context.Context, account string) ([]domain.SyncedTemplate, error) {
	defer r.enter(ctx)()
	out := []domain.SyncedTemplate{}
	for k, t := range r.st.templates {
		if k.account == account {
			out = append(out, copyTemplate(t))
		}
	}
	slices.SortFunc(out, func(a, b domain.SyncedTemplate) int {
		return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.Language, b.Language))
	})
	return out, nil
}

// GetTemplate returns one of the account's templates.
func (r *repos) GetTemplate(ctx context.Context, account, name, language string) (domain.SyncedTemplate, error) {
	defer r.enter(ctx)()
	t, ok := r.st.templates[tkey(account, name, language)]
	if !ok {
		return domain.SyncedTemplate{}, domain.NotFound(domain.ErrTemplateNotFound)
	}
	return copyTemplate(t), nil
}

// SetTemplateStatus records Meta's new status of one of the account's
// templates; an unknown template stays unknown.
func (r *repos) SetTemplateStatus(ctx context.Context, account, name, language string, status domain.TemplateStatus) error {
	defer r.enter(ctx)()
	k := tkey(account, name, language)
	t, ok := r.st.templates[k]
	if !ok {
		return nil
	}
	t = copyTemplate(t)
	t.Status = status
	put(r.st, r.st.templates, k, t)
	return nil
}

// SetTemplateCategory records Meta's new category of one of the account's
// templates; an unknown template stays unknown.
func (r *repos) SetTemplateCategory(ctx context.Context, account, name, language string, category domain.TemplateCategory) error {
	defer r.enter(ctx)()
	k := tkey(account, name, language)
	t, ok := r.st.templates[k]
	if !ok {
		return nil
	}
	t = copyTemplate(t)
	t.Category = category.String()
	put(r.st, r.st.templates, k, t)
	return nil
}

func copyTemplate(t domain.SyncedTemplate) domain.SyncedTemplate {
	t.Definition.Placeholders = slices.Clone(t.Definition.Placeholders)
	t.Definition.Slots = slices.Clone(t.Definition.Slots)
	t.Definition.Buttons = slices.Clone(t.Definition.Buttons)
	t.SyncedAt = utc(t.SyncedAt)
	return t
}
