package sqlstore

import (
	"context"

	"github.com/heraldhq/herald/domain"
)

type templateRow struct {
	Account      string   `db:"account"`
	Name         string   `db:"name"`
	Language     string   `db:"language"`
	ProviderID   string   `db:"provider_id"`
	Status       string   `db:"status"`
	Category     string   `db:"category"`
	HeaderFormat string   `db:"header_format"`
	HeaderText   string   `db:"header_text"`
	Body         string   `db:"body"`
	Footer       string   `db:"footer"`
	Placeholders jsonText `db:"placeholders"`
	Slots        nullJSON `db:"slots"`
	Buttons      nullJSON `db:"buttons"`
	Unsupported  string   `db:"unsupported"`
	SyncedAt     dbTime   `db:"synced_at"`
}

const templateColumns = `account, name, language, provider_id, status, category, header_format, header_text, body,
footer, placeholders, slots, buttons, unsupported, synced_at`

// toTemplateRow maps t, stored for account, its language in canonical form
// (domain.CanonicalLanguage). The definition's name and language are the
// template's own, so only its other fields are stored; a zero definition
// stores empty strings and null placeholders.
func toTemplateRow(account string, t domain.SyncedTemplate) (templateRow, error) {
	d := t.Definition
	ph, err := toPlaceholdersJSON(d.Placeholders)
	if err != nil {
		return templateRow{}, err
	}
	slots, err := toSlotsJSON(d.Slots)
	if err != nil {
		return templateRow{}, err
	}
	buttons, err := toButtonsJSON(d.Buttons)
	if err != nil {
		return templateRow{}, err
	}
	return templateRow{Slots: slots, Buttons: buttons,
		Account: account, Name: t.Name, Language: domain.CanonicalLanguage(t.Language), ProviderID: t.ProviderID,
		Status: t.Status.String(), Category: t.Category,
		HeaderFormat: d.HeaderFormat.String(), HeaderText: d.HeaderText, Body: d.Body, Footer: d.Footer,
		Placeholders: ph, Unsupported: t.Unsupported, SyncedAt: newDBTime(t.SyncedAt),
	}, nil
}

func (r templateRow) toDomain() (domain.SyncedTemplate, error) {
	of := "template " + r.Name + " (" + r.Language + ")"
	status, err := parseStored("template status", r.Status, domain.ParseTemplateStatus)
	if err != nil {
		return domain.SyncedTemplate{}, err
	}
	header, err := parseStored("header format", r.HeaderFormat, domain.ParseHeaderFormat)
	if err != nil {
		return domain.SyncedTemplate{}, err
	}
	placeholders, err := fromPlaceholdersJSON(r.Placeholders, of)
	if err != nil {
		return domain.SyncedTemplate{}, err
	}
	slots, err := fromSlotsJSON(r.Slots, of)
	if err != nil {
		return domain.SyncedTemplate{}, err
	}
	buttons, err := fromButtonsJSON(r.Buttons, of)
	if err != nil {
		return domain.SyncedTemplate{}, err
	}
	var def domain.Template
	if !header.IsZero() || r.HeaderText != "" || r.Body != "" || r.Footer != "" || placeholders != nil || slots != nil || buttons != nil {
		def = domain.Template{
			Name: r.Name, Language: r.Language, HeaderFormat: header, HeaderText: r.HeaderText,
			Body: r.Body, Footer: r.Footer, Placeholders: placeholders, Slots: slots, Buttons: buttons,
		}
	}
	return domain.SyncedTemplate{
		Account: r.Account, ProviderID: r.ProviderID, Name: r.Name, Language: r.Language,
		Status: status, Category: r.Category, Definition: def, Unsupported: r.Unsupported,
		SyncedAt: r.SyncedAt.time(),
	}, nil
}

// ReplaceTemplates makes templates the account's templates, in one
// transaction: the account's stored templates missing from them are deleted and the others
// inserted or replaced. Each is stored under account, whatever its Account
// field says.
func (s *Store) ReplaceTemplates(ctx context.Context, account string, templates []domain.SyncedTemplate) error {
	const qKeys = `SELECT name, language FROM templates WHERE account = :account`
	const qDelete = `DELETE FROM templates WHERE account = :account AND name = :name AND language = :language`
	const qUpsert = `INSERT INTO templates (` + templateColumns + `)
VALUES (:account, :name, :language, :provider_id, :status, :category, :header_format, :header_text, :body,
:footer, :placeholders, :slots, :buttons, :unsupported, :synced_at)
ON CONFLICT (account, name, language) DO UPDATE
SET provider_id = excluded.provider_id, status = excluded.status, category = excluded.category,
    header_format = excluded.header_format, header_text = excluded.header_text, body = excluded.body,
    footer = excluded.footer, placeholders = excluded.placeholders, slots = excluded.slots, buttons = excluded.buttons, unsupported = excluded.unsupported,
    synced_at = excluded.synced_at`
	type key struct {
		Name     string `db:"name"`
		Language string `db:"language"`
	}
	keep := make(map[key]bool, len(templates))
	rows := make([]templateRow, 0, len(templates))
	for _, t := range templates {
		row, err := toTemplateRow(account, t)
		if err != nil {
			return s.fail("replace templates", err, nil)
		}
		keep[key{row.Name, row.Language}] = true
		rows = append(rows, row)
	}
	return s.inTx(ctx, func(ctx context.Context, ts *Store) error {
		var stored []key
		if err := ts.selectAll(ctx, &stored, qKeys+ts.d.lockRows(), map[string]any{"account": account}); err != nil {
			return ts.fail("replace templates", err, nil)
		}
		for _, k := range stored {
			if keep[k] {
				continue
			}
			arg := map[string]any{"account": account, "name": k.Name, "language": k.Language}
			if _, err := ts.exec(ctx, qDelete, arg); err != nil {
				return ts.fail("replace templates", err, nil)
			}
		}
		for _, row := range rows {
			if _, err := ts.exec(ctx, qUpsert, row); err != nil {
				return ts.fail("replace templates", err, nil)
			}
		}
		return nil
	})
}

// ListTemplates returns the account's templates ordered by name, then
// language.
func (s *Store) ListTemplates(ctx context.Context, account string) ([]domain.SyncedTemplate, error) {
	const q = `SELECT ` + templateColumns + ` FROM templates WHERE account = :account ORDER BY name, language`
	var rows []templateRow
	if err := s.selectAll(ctx, &rows, q, map[string]any{"account": account}); err != nil {
		return nil, s.fail("list templates", err, nil)
	}
	out := make([]domain.SyncedTemplate, 0, len(rows))
	for _, r := range rows {
		t, err := r.toDomain()
		if err != nil {
			return nil, s.fail("list templates", err, nil)
		}
		out = append(out, t)
	}
	return out, nil
}

// GetTemplate returns one of the account's templates; language may be in
// any of the forms Meta writes.
func (s *Store) GetTemplate(ctx context.Context, account, name, language string) (domain.SyncedTemplate, error) {
	const q = `SELECT ` + templateColumns + ` FROM templates
WHERE account = :account AND name = :name AND language = :language`
	var row templateRow
	arg := map[string]any{"account": account, "name": name, "language": domain.CanonicalLanguage(language)}
	if err := s.get(ctx, &row, q, arg); err != nil {
		return domain.SyncedTemplate{}, s.fail("get template", err, domain.ErrTemplateNotFound)
	}
	t, err := row.toDomain()
	return t, s.fail("get template", err, nil)
}

// SetTemplateStatus records Meta's new status of one of the account's
// templates; an unknown template stays unknown, without error. Only the
// status changes: the rest is what the last sync read. language may be in
// any of the forms Meta writes.
func (s *Store) SetTemplateStatus(ctx context.Context, account, name, language string, status domain.TemplateStatus) error {
	const q = `UPDATE templates SET status = :status
WHERE account = :account AND name = :name AND language = :language`
	arg := map[string]any{"account": account, "name": name, "language": domain.CanonicalLanguage(language), "status": status.String()}
	_, err := s.exec(ctx, q, arg)
	return s.fail("set template status", err, nil)
}

// SetTemplateCategory records Meta's new category of one of the account's
// templates; an unknown template stays unknown.
func (s *Store) SetTemplateCategory(ctx context.Context, account, name, language string, category domain.TemplateCategory) error {
	const q = `UPDATE templates SET category = :category
WHERE account = :account AND name = :name AND language = :language`
	arg := map[string]any{"account": account, "name": name, "language": domain.CanonicalLanguage(language), "category": category.String()}
	_, err := s.exec(ctx, q, arg)
	return s.fail("set template category", err, nil)
}
