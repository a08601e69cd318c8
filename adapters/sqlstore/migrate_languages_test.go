package sqlstore_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/heraldhq/herald/adapters/sqlstore"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports/porttest"
)

// Migration 0007 stores every template language in canonical form: a
// campaign created as pt-br before it is found by a status event naming
// pt-BR or pt_BR, a template synced under two forms is kept once (the later
// sync), and queued messages go to Meta with the canonical code.
func TestMigrationCanonicalLanguagesSQLite(t *testing.T) {
	t.Parallel()
	db, _, err := sqlstore.Open(t.Context(), sqlstore.Config{DatabaseURL: "sqlite:" + filepath.Join(t.TempDir(), "l.db")})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = db.Close() })
	testMigrationCanonicalLanguages(t, db, sqlstore.SQLite(), `CREATE TABLE schema_migrations (
    version INTEGER NOT NULL PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL) STRICT`)
}

func TestMigrationCanonicalLanguagesPostgres(t *testing.T) {
	t.Parallel()
	testMigrationCanonicalLanguages(t, newPostgres(t, false), sqlstore.Postgres(), `CREATE TABLE schema_migrations (
    version integer NOT NULL PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL)`)
}

// migrateByHand applies d's migrations before version until, as a build of
// that schema did.
func migrateByHand(t *testing.T, db *sqlx.DB, d sqlstore.Dialect, schemaMigrationsDDL string, until int) {
	t.Helper()
	ctx := t.Context()
	if _, err := db.ExecContext(ctx, schemaMigrationsDDL); err != nil {
		t.Fatalf("create schema_migrations: %v", err)
	}
	dir := filepath.Join("migrations", d.Name())
	files, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for v := 1; v < until; v++ {
		name := ""
		for _, f := range files {
			if strings.HasPrefix(f.Name(), fmt.Sprintf("%04d_", v)) {
				name = strings.TrimSuffix(f.Name(), ".sql")
			}
		}
		b, err := os.ReadFile(filepath.Join(dir, name+".sql"))
		if err != nil {
			t.Fatalf("migration %d: %v", v, err)
		}
		if _, err := db.ExecContext(ctx, upSection(b)); err != nil {
			t.Fatalf("apply %s: %v", name, err)
		}
		if _, err := db.NamedExecContext(ctx, `INSERT INTO schema_migrations (version, name, applied_at)
VALUES (:version, :name, :applied_at)`, map[string]any{"version": v, "name": name, "applied_at": time.Now()}); err != nil {
			t.Fatalf("record %s: %v", name, err)
		}
	}
}

func testMigrationCanonicalLanguages(t *testing.T, db *sqlx.DB, d sqlstore.Dialect, schemaMigrationsDDL string) {
	ctx := t.Context()
	migrateByHand(t, db, d, schemaMigrationsDDL, 7)
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
	exec(`INSERT INTO contacts (id, workspace_id, conversation_id, phone_number, name, email, attributes, tags,
    opted_out, created_at, updated_at)
VALUES (:id, :workspace_id, :conversation_id, :phone_number, '', '', '{}', '[]', false, :created_at, :created_at)`,
		map[string]any{"id": ct.ID, "workspace_id": ws.ID, "conversation_id": ct.ConversationID,
			"phone_number": ct.Phone.String(), "created_at": now})
	tmpl := porttest.NewTemplateName()
	campaign := func(language string) domain.CampaignID {
		id := domain.CampaignID(porttest.NewID(domain.PrefixCampaign))
		exec(`INSERT INTO campaigns (id, workspace_id, name, template_name, language, header_format, header_text, body,
    footer, placeholders, status, created_at, updated_at)
VALUES (:id, :workspace_id, 'c', :template_name, :language, 'none', '', 'b', '', '[]', 'active', :created_at, :created_at)`,
			map[string]any{"id": id, "workspace_id": ws.ID, "template_name": tmpl, "language": language, "created_at": now})
		return id
	}
	lower, canonical, us, english := campaign("pt-br"), campaign("pt_BR"), campaign("EN_us"), campaign("EN")
	account := porttest.NewAccount()
	template := func(language, status string, synced time.Time) {
		exec(`INSERT INTO templates (account, name, language, provider_id, status, category, header_format, header_text,
    body, footer, placeholders, unsupported, synced_at)
VALUES (:account, :name, :language, '1', :status, 'UTILITY', 'none', '', 'b', '', '[]', '', :synced_at)`,
			map[string]any{"account": account, "name": tmpl, "language": language, "status": status, "synced_at": synced})
	}
	template("pt_BR", "APPROVED", now.Add(-time.Hour))
	template("pt-BR", "PAUSED", now) // synced last: kept
	template("pt_br", "REJECTED", now.Add(-2*time.Hour))
	template("EN", "APPROVED", now)
	message := func(language string, queued bool) domain.MessageID {
		id := domain.MessageID(porttest.NewID(domain.PrefixMessage))
		var due any
		status := "read"
		if queued {
			due, status = now, "queued"
		}
		exec(`INSERT INTO messages (id, workspace_id, campaign_id, contact_id, key_id, mode, phone_number,
    template_name, language, header_format, variables, media_header_url, rendered_body, status, history,
    created_at, updated_at, due_at, attempts)
VALUES (:id, :workspace_id, :campaign_id, :contact_id, 'key_x', 'live', :phone_number, :template_name, :language, 'none',
    '[]', '', 'b', :status, '[]', :created_at, :created_at, :due_at, 0)`,
			map[string]any{"id": id, "workspace_id": ws.ID, "campaign_id": lower, "contact_id": ct.ID,
				"phone_number": ct.Phone.String(), "template_name": tmpl, "language": language, "status": status,
				"created_at": now, "due_at": due})
		return id
	}
	queued, sent := message("pt-br", true), message("pt-br", false)

	if err := sqlstore.Migrate(ctx, db, d); err != nil {
		t.Fatalf("Migrate: %v", err)
	}
	s := sqlstore.New(db, d)
	for _, form := range []string{"pt-BR", "pt_BR"} {
		list, err := s.ListCampaignsByTemplate(ctx, tmpl, form)
		if err != nil {
			t.Fatalf("ListCampaignsByTemplate: %v", err)
		}
		if len(list) != 2 || list[0].ID != min(lower, canonical) || list[1].ID != max(lower, canonical) {
			t.Fatalf("campaigns of %s (%s) after the migration: %v; want %s and %s", tmpl, form, list, lower, canonical)
		}
		for _, c := range list {
			if c.Template.Language != "pt_BR" {
				t.Errorf("campaign %s has language %q, want pt_BR", c.ID, c.Template.Language)
			}
		}
	}
	for id, want := range map[domain.CampaignID]string{us: "en_US", english: "en"} {
		c, err := s.GetCampaign(ctx, ws.ID, id)
		if err != nil || c.Template.Language != want {
			t.Errorf("campaign %s: language %q, %v; want %s", id, c.Template.Language, err, want)
		}
	}
	ts, err := s.ListTemplates(ctx, account)
	if err != nil {
		t.Fatalf("ListTemplates: %v", err)
	}
	var got []string
	for _, tm := range ts {
		got = append(got, tm.Language+" "+tm.Status.String())
	}
	if strings.Join(got, ", ") != "en APPROVED, pt_BR PAUSED" {
		t.Errorf("templates after the migration: %v; want en APPROVED, pt_BR PAUSED (the one synced last)", got)
	}
	for id, want := range map[domain.MessageID]string{queued: "pt_BR", sent: "pt-br"} {
		m, err := s.GetMessage(ctx, ws.ID, id)
		if err != nil || m.Language != want {
			t.Errorf("message %s: language %q, %v; want %s", id, m.Language, err, want)
		}
	}
}
