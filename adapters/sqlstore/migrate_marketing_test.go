package sqlstore_test

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/heraldhq/herald/adapters/sqlstore"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports/porttest"
)

// Migration 0011 gives each campaign its template's category where a sync
// has seen the template (the one synced last when two accounts have it);
// other campaigns' category is not known, and counts as marketing.
// Contacts have not stopped marketing, and failures Meta reported keep no
// Herald code. It runs on a database at version 10, and on one at version
// 9 that the same upgrade takes through 0010_whatsapp_identities first.
func TestMigrationMarketingSQLite(t *testing.T) {
	t.Parallel()
	for _, from := range []int{9, 10} {
		t.Run(fmt.Sprintf("from version %d", from), func(t *testing.T) {
			t.Parallel()
			db, _, err := sqlstore.Open(t.Context(), sqlstore.Config{DatabaseURL: "sqlite:" + filepath.Join(t.TempDir(), "m.db")})
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			t.Cleanup(func() { _ = db.Close() })
			testMigrationMarketing(t, db, sqlstore.SQLite(), from, `CREATE TABLE schema_migrations (
    version INTEGER NOT NULL PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL) STRICT`)
		})
	}
}

func TestMigrationMarketingPostgres(t *testing.T) {
	t.Parallel()
	for _, from := range []int{9, 10} {
		t.Run(fmt.Sprintf("from version %d", from), func(t *testing.T) {
			t.Parallel()
			testMigrationMarketing(t, newPostgres(t, false), sqlstore.Postgres(), from, `CREATE TABLE schema_migrations (
    version integer NOT NULL PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL)`)
		})
	}
}

// testMigrationMarketing brings db to version from (9: by the runner
// before goose; 10: by goose), stores what that version holds, and
// migrates to the latest version.
func testMigrationMarketing(t *testing.T, db *sqlx.DB, d sqlstore.Dialect, from int, schemaMigrationsDDL string) {
	ctx := t.Context()
	switch from {
	case 9:
		migrateByHand(t, db, d, schemaMigrationsDDL, 10)
	case 10:
		if err := sqlstore.MigrateTo(ctx, db, d, 10); err != nil {
			t.Fatalf("MigrateTo 10: %v", err)
		}
	default:
		t.Fatalf("no data of version %d", from)
	}
	exec := func(q string, arg any) {
		t.Helper()
		if _, err := db.NamedExecContext(ctx, q, arg); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	ws := porttest.NewWorkspace(t)
	ct := porttest.NewContact(t, ws.ID)
	now := porttest.Now()
	exec(`INSERT INTO workspaces (id, name, is_default, created_at) VALUES (:id, :name, false, :created_at)`,
		map[string]any{"id": ws.ID, "name": ws.Name, "created_at": now})
	insertContact := `INSERT INTO contacts (id, workspace_id, mode, conversation_id, phone_number, name, email, attributes,
    tags, opted_out, created_at, updated_at)
VALUES (:id, :workspace_id, 'live', :conversation_id, :phone_number, '', '', '{}', '[]', true, :created_at, :created_at)`
	if from >= 10 { // a contact is found by its number key since 0010
		insertContact = `INSERT INTO contacts (id, workspace_id, mode, conversation_id, phone_number, name, email, attributes,
    tags, opted_out, number_key, created_at, updated_at)
VALUES (:id, :workspace_id, 'live', :conversation_id, :phone_number, '', '', '{}', '[]', true, :number_key, :created_at,
    :created_at)`
	}
	exec(insertContact, map[string]any{"id": ct.ID, "workspace_id": ws.ID, "conversation_id": ct.ConversationID,
		"phone_number": ct.Phone.String(), "number_key": ct.NumberKey(), "created_at": now})
	synced, local := porttest.NewTemplateName(), porttest.NewTemplateName()
	campaign := func(name string) domain.CampaignID {
		id := domain.CampaignID(porttest.NewID(domain.PrefixCampaign))
		exec(`INSERT INTO campaigns (id, workspace_id, name, template_name, language, header_format, header_text, body,
    footer, placeholders, status, created_at, updated_at)
VALUES (:id, :workspace_id, 'c', :template_name, 'pt_BR', 'none', '', 'b', '', '[]', 'active', :created_at, :created_at)`,
			map[string]any{"id": id, "workspace_id": ws.ID, "template_name": name, "created_at": now})
		return id
	}
	fromSync, defined := campaign(synced), campaign(local)
	template := func(category string, at time.Time) {
		exec(`INSERT INTO templates (account, name, language, provider_id, status, category, header_format, header_text,
    body, footer, placeholders, unsupported, synced_at)
VALUES (:account, :name, 'pt_BR', '1', 'APPROVED', :category, 'none', '', 'b', '', '[]', '', :synced_at)`,
			map[string]any{"account": porttest.NewAccount(), "name": synced, "category": category, "synced_at": at})
	}
	template("MARKETING", now.Add(-time.Hour))
	template("utility", now) // synced last, in a form Meta does not use: kept, in Meta's
	failed := domain.MessageID(porttest.NewID(domain.PrefixMessage))
	exec(`INSERT INTO messages (id, workspace_id, campaign_id, contact_id, key_id, mode, phone_number,
    template_name, language, header_format, variables, media_header_url, rendered_body, status, history,
    failure_code, failure_title, created_at, updated_at, attempts)
VALUES (:id, :workspace_id, :campaign_id, :contact_id, 'key_x', 'live', :phone_number, :template_name, 'pt_BR', 'none',
    '[]', '', 'b', 'failed', '[]', 131026, 'Message undeliverable', :created_at, :created_at, 1)`,
		map[string]any{"id": failed, "workspace_id": ws.ID, "campaign_id": fromSync, "contact_id": ct.ID,
			"phone_number": ct.Phone.String(), "template_name": synced, "created_at": now})

	if err := sqlstore.Migrate(ctx, db, d); err != nil {
		t.Fatalf("Migrate: %v", err)
	}
	s := sqlstore.New(db, d)
	for id, want := range map[domain.CampaignID]domain.TemplateCategory{fromSync: domain.CategoryUtility, defined: {}} {
		c, err := s.GetCampaign(ctx, ws.ID, id)
		if err != nil || c.Category != want {
			t.Errorf("campaign %s: category %q, %v; want %q", id, c.Category, err, want)
		}
	}
	c, err := s.GetContactByPhone(ctx, ws.ID, domain.ModeLive, ct.Phone)
	if err != nil || c.ID != ct.ID || !c.OptedOut || c.Marketing != (domain.MarketingPreference{}) {
		t.Errorf("contact after the migration: %+v, %v; want %s, opted out, marketing not stopped", c, err, ct.ID)
	}
	m, err := s.GetMessage(ctx, ws.ID, failed)
	if err != nil || m.Failure == nil || *m.Failure != (domain.Failure{Code: 131026, Title: "Message undeliverable"}) {
		t.Errorf("failed message after the migration: %+v, %v", m.Failure, err)
	}
	failures, err := s.CountFailuresByCode(ctx, ws.ID, fromSync, domain.KeyMode{})
	if err != nil || len(failures) != 1 || failures[domain.FailureKey{Code: 131026}] != 1 {
		t.Errorf("failures by code after the migration: %v, %v", failures, err)
	}
}
