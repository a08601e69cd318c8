package sqlstore

import (
	"context"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

type campaignRow struct {
	ID             string   `db:"id"`
	WorkspaceID    string   `db:"workspace_id"`
	Name           string   `db:"name"`
	TemplateName   string   `db:"template_name"`
	Language       string   `db:"language"`
	HeaderFormat   string   `db:"header_format"`
	HeaderText     string   `db:"header_text"`
	Body           string   `db:"body"`
	Footer         string   `db:"footer"`
	Placeholders   jsonText `db:"placeholders"`
	Slots          nullJSON `db:"slots"`
	Buttons        nullJSON `db:"buttons"`
	TemplateStatus string   `db:"template_status"`
	Category       string   `db:"category"`
	Status         string   `db:"status"`
	NumberID       string   `db:"business_number_id"`
	CreatedAt      dbTime   `db:"created_at"`
	UpdatedAt      dbTime   `db:"updated_at"`
	PausedReason   string   `db:"paused_reason"`
}

const campaignColumns = `id, workspace_id, name, template_name, language, header_format, header_text, body, footer,
placeholders, slots, buttons, template_status, category, status, business_number_id, created_at, updated_at, paused_reason`

// placeholderJSON is the stored form of a template placeholder.
type placeholderJSON struct {
	Index int    `json:"index"`
	Label string `json:"label"`
}

// toPlaceholdersJSON encodes placeholders: nil stays null, empty stays [].
func toPlaceholdersJSON(ps []domain.Placeholder) (jsonText, error) {
	var ph []placeholderJSON
	if ps != nil {
		ph = make([]placeholderJSON, 0, len(ps))
		for _, p := range ps {
			ph = append(ph, placeholderJSON{Index: p.Index, Label: p.Label})
		}
	}
	return toJSON(ph)
}

// fromPlaceholdersJSON decodes what toPlaceholdersJSON encoded; of is the
// owner, for the error.
func fromPlaceholdersJSON(j jsonText, of string) ([]domain.Placeholder, error) {
	var ph []placeholderJSON
	if err := j.decode(&ph); err != nil {
		return nil, corrupt("placeholders of "+of, string(j))
	}
	if ph == nil {
		return nil, nil
	}
	out := make([]domain.Placeholder, 0, len(ph))
	for _, p := range ph {
		out = append(out, domain.Placeholder{Index: p.Index, Label: p.Label})
	}
	return out, nil
}

func toCampaignRow(c domain.Campaign) (campaignRow, error) {
	phJSON, err := toPlaceholdersJSON(c.Template.Placeholders)
	if err != nil {
		return campaignRow{}, err
	}
	slots, err := toSlotsJSON(c.Template.Slots)
	if err != nil {
		return campaignRow{}, err
	}
	buttons, err := toButtonsJSON(c.Template.Buttons)
	if err != nil {
		return campaignRow{}, err
	}
	t := c.Template
	return campaignRow{Slots: slots, Buttons: buttons,
		ID: string(c.ID), WorkspaceID: string(c.Workspace), Name: c.Name,
		TemplateName: t.Name, Language: domain.CanonicalLanguage(t.Language), HeaderFormat: t.HeaderFormat.String(), HeaderText: t.HeaderText,
		Body: t.Body, Footer: t.Footer, Placeholders: phJSON,
		TemplateStatus: c.TemplateStatus.String(), Category: c.Category.String(), Status: c.Status.String(),
		NumberID: string(c.Number), CreatedAt: newDBTime(c.CreatedAt), UpdatedAt: newDBTime(c.UpdatedAt), PausedReason: c.PausedReason.String(),
	}, nil
}

func (r campaignRow) toDomain() (domain.Campaign, error) {
	header, err := parseStored("header format", r.HeaderFormat, domain.ParseHeaderFormat)
	if err != nil {
		return domain.Campaign{}, err
	}
	status, err := parseStored("campaign status", r.Status, domain.ParseCampaignStatus)
	if err != nil {
		return domain.Campaign{}, err
	}
	tmplStatus, err := parseStored("template status", r.TemplateStatus, domain.ParseTemplateStatus)
	if err != nil {
		return domain.Campaign{}, err
	}
	category, err := parseStored("template category", r.Category, domain.ParseTemplateCategory)
	if err != nil {
		return domain.Campaign{}, err
	}
	paused, err := parseStored("pause reason", r.PausedReason, domain.ParsePauseReason)
	if err != nil {
		return domain.Campaign{}, err
	}
	placeholders, err := fromPlaceholdersJSON(r.Placeholders, "campaign "+r.ID)
	if err != nil {
		return domain.Campaign{}, err
	}
	slots, err := fromSlotsJSON(r.Slots, "campaign "+r.ID)
	if err != nil {
		return domain.Campaign{}, err
	}
	buttons, err := fromButtonsJSON(r.Buttons, "campaign "+r.ID)
	if err != nil {
		return domain.Campaign{}, err
	}
	return domain.Campaign{
		ID: domain.CampaignID(r.ID), Workspace: domain.WorkspaceID(r.WorkspaceID), Name: r.Name,
		Template: domain.Template{
			Name: r.TemplateName, Language: r.Language, HeaderFormat: header, HeaderText: r.HeaderText,
			Body: r.Body, Footer: r.Footer, Placeholders: placeholders, Slots: slots, Buttons: buttons,
		},
		TemplateStatus: tmplStatus, Category: category, Status: status, Number: domain.BusinessNumberID(r.NumberID),
		CreatedAt: r.CreatedAt.time(), UpdatedAt: r.UpdatedAt.time(), PausedReason: paused,
	}, nil
}

// CreateCampaign stores a new campaign.
func (s *Store) CreateCampaign(ctx context.Context, c domain.Campaign) error {
	const q = `INSERT INTO campaigns (` + campaignColumns + `)
VALUES (:id, :workspace_id, :name, :template_name, :language, :header_format, :header_text, :body, :footer,
:placeholders, :slots, :buttons, :template_status, :category, :status, :business_number_id, :created_at, :updated_at, :paused_reason)`
	row, err := toCampaignRow(c)
	if err == nil {
		_, err = s.exec(ctx, q, row)
	}
	return s.fail("create campaign", err, nil)
}

// GetCampaign returns one of a workspace's campaigns.
func (s *Store) GetCampaign(ctx context.Context, ws domain.WorkspaceID, id domain.CampaignID) (domain.Campaign, error) {
	const q = `SELECT ` + campaignColumns + ` FROM campaigns WHERE workspace_id = :workspace_id AND id = :id`
	return s.getCampaign(ctx, "get campaign", q, ws, id)
}

func (s *Store) getCampaign(ctx context.Context, op, q string, ws domain.WorkspaceID, id domain.CampaignID) (domain.Campaign, error) {
	var row campaignRow
	if err := s.get(ctx, &row, q, map[string]any{"workspace_id": string(ws), "id": string(id)}); err != nil {
		return domain.Campaign{}, s.fail(op, err, domain.ErrCampaignNotFound)
	}
	c, err := row.toDomain()
	return c, s.fail(op, err, nil)
}

// GetCampaigns returns the campaigns with the ids, of every workspace, by
// id, in one statement.
func (s *Store) GetCampaigns(ctx context.Context, ids []domain.CampaignID) ([]domain.Campaign, error) {
	q := `SELECT ` + campaignColumns + ` FROM campaigns WHERE ` + s.d.inList("id", "ids") + ` ORDER BY id`
	if len(ids) == 0 {
		return []domain.Campaign{}, nil
	}
	list := make([]string, len(ids))
	for i, id := range ids {
		list[i] = string(id)
	}
	arg, err := toJSON(list)
	if err != nil {
		return nil, s.fail("get campaigns", err, nil)
	}
	var rows []campaignRow
	if err := s.selectPlanned(ctx, &rows, q, map[string]any{"ids": arg}); err != nil {
		return nil, s.fail("get campaigns", err, nil)
	}
	out, err := campaignsFrom(rows)
	return out, s.fail("get campaigns", err, nil)
}

// ListCampaigns returns one page of a workspace's campaigns, newest first,
// and the cursor of the next page (empty on the last).
func (s *Store) ListCampaigns(ctx context.Context, ws domain.WorkspaceID, p ports.Page) ([]domain.Campaign, string, error) {
	const q = `SELECT ` + campaignColumns + ` FROM campaigns
WHERE workspace_id = :workspace_id AND (:cursor = '' OR id < :cursor)
ORDER BY id DESC
LIMIT :limit`
	limit := pageLimit(p)
	var rows []campaignRow
	arg := map[string]any{"workspace_id": string(ws), "cursor": p.Cursor, "limit": limit + 1}
	if err := s.selectAll(ctx, &rows, q, arg); err != nil {
		return nil, "", s.fail("list campaigns", err, nil)
	}
	next := ""
	if len(rows) > limit {
		rows = rows[:limit]
		next = rows[limit-1].ID
	}
	out, err := campaignsFrom(rows)
	if err != nil {
		return nil, "", s.fail("list campaigns", err, nil)
	}
	return out, next, nil
}

func campaignsFrom(rows []campaignRow) ([]domain.Campaign, error) {
	out := make([]domain.Campaign, 0, len(rows))
	for _, r := range rows {
		c, err := r.toDomain()
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// UpdateCampaign runs fn on the stored campaign and stores the result,
// atomically. The id and workspace do not change.
func (s *Store) UpdateCampaign(ctx context.Context, ws domain.WorkspaceID, id domain.CampaignID, fn func(*domain.Campaign) error) (domain.Campaign, error) {
	const qGet = `SELECT ` + campaignColumns + ` FROM campaigns WHERE workspace_id = :workspace_id AND id = :id`
	const qUpdate = `UPDATE campaigns
SET name = :name, template_name = :template_name, language = :language, header_format = :header_format,
    header_text = :header_text, body = :body, footer = :footer, placeholders = :placeholders, slots = :slots, buttons = :buttons,
    template_status = :template_status, category = :category, status = :status, business_number_id = :business_number_id, created_at = :created_at, updated_at = :updated_at,
    paused_reason = :paused_reason
WHERE workspace_id = :workspace_id AND id = :id`
	var c domain.Campaign
	err := s.inTx(ctx, func(ctx context.Context, ts *Store) error {
		var err error
		if c, err = ts.getCampaign(ctx, "update campaign", qGet+ts.d.lockRows(), ws, id); err != nil {
			return err
		}
		if err := fn(&c); err != nil {
			return err
		}
		c.ID, c.Workspace = id, ws
		row, err := toCampaignRow(c)
		if err == nil {
			_, err = ts.exec(ctx, qUpdate, row)
		}
		return ts.fail("update campaign", err, nil)
	})
	if err != nil {
		return domain.Campaign{}, err
	}
	return c, nil
}

// ListCampaignsByTemplate returns, across workspaces, the campaigns that
// send the template name in language, oldest first. Languages are stored
// in canonical form (toCampaignRow, migration 0007), so language may be in
// any of the forms Meta writes.
func (s *Store) ListCampaignsByTemplate(ctx context.Context, name, language string) ([]domain.Campaign, error) {
	const q = `SELECT ` + campaignColumns + ` FROM campaigns
WHERE template_name = :template_name AND language = :language
ORDER BY id`
	var rows []campaignRow
	if err := s.selectAll(ctx, &rows, q, map[string]any{"template_name": name, "language": domain.CanonicalLanguage(language)}); err != nil {
		return nil, s.fail("list campaigns by template", err, nil)
	}
	out, err := campaignsFrom(rows)
	return out, s.fail("list campaigns by template", err, nil)
}
