package sqlstore_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/heraldhq/herald/adapters/sqlstore"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/ports/porttest"
)

// The session messages migration keeps every message (a template, its
// campaign and its thread entry intact, its kind template), gives each
// contact the time of its latest inbound message as the start of its
// window (none for a contact who never wrote), and lets a message without
// a campaign be stored. It runs on a database at version 14, the last
// before it.
func TestMigrationSessionMessagesSQLite(t *testing.T) {
	t.Parallel()
	db, _, err := sqlstore.Open(t.Context(), sqlstore.Config{DatabaseURL: "sqlite:" + filepath.Join(t.TempDir(), "m.db")})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = db.Close() })
	testMigrationSessionMessages(t, db, sqlstore.SQLite())
}

func TestMigrationSessionMessagesPostgres(t *testing.T) {
	t.Parallel()
	testMigrationSessionMessages(t, newPostgres(t, false), sqlstore.Postgres())
}

func testMigrationSessionMessages(t *testing.T, db *sqlx.DB, d sqlstore.Dialect) {
	ctx := t.Context()
	if err := sqlstore.MigrateTo(ctx, db, d, 14); err != nil {
		t.Fatalf("MigrateTo 14: %v", err)
	}
	exec := func(q string, arg any) {
		t.Helper()
		if _, err := db.NamedExecContext(ctx, q, arg); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	ws := porttest.NewWorkspace(t)
	now := porttest.Now()
	exec(`INSERT INTO workspaces (id, name, is_default, created_at) VALUES (:id, :name, false, :created_at)`,
		map[string]any{"id": ws.ID, "name": ws.Name, "created_at": now})
	wrote, silent := porttest.NewContact(t, ws.ID), porttest.NewContact(t, ws.ID)
	for _, ct := range []domain.Contact{wrote, silent} {
		exec(`INSERT INTO contacts (id, workspace_id, mode, conversation_id, phone_number, name, email, attributes,
    tags, opted_out, number_key, created_at, updated_at, last_message_at)
VALUES (:id, :workspace_id, 'live', :conversation_id, :phone_number, '', '', '{}', '[]', false, :number_key, :created_at,
    :created_at, :created_at)`, map[string]any{"id": ct.ID, "workspace_id": ws.ID, "conversation_id": ct.ConversationID,
			"phone_number": ct.Phone.String(), "number_key": ct.NumberKey(), "created_at": now})
	}
	campaign := domain.CampaignID(porttest.NewID(domain.PrefixCampaign))
	exec(`INSERT INTO campaigns (id, workspace_id, name, template_name, language, header_format, header_text, body,
    footer, placeholders, status, created_at, updated_at)
VALUES (:id, :workspace_id, 'c', 'welcome', 'en', 'none', '', 'b', '', '[]', 'active', :created_at, :created_at)`,
		map[string]any{"id": campaign, "workspace_id": ws.ID, "created_at": now})
	msg := domain.MessageID(porttest.NewID(domain.PrefixMessage))
	exec(`INSERT INTO messages (id, workspace_id, campaign_id, contact_id, key_id, mode, phone_number,
    template_name, language, header_format, variables, media_header_url, rendered_body, status, history,
    created_at, updated_at, due_at, attempts)
VALUES (:id, :workspace_id, :campaign_id, :contact_id, 'key_x', 'live', :phone_number, 'welcome', 'en', 'none',
    '[]', '', 'Hi', 'queued', '[]', :created_at, :created_at, :created_at, 0)`,
		map[string]any{"id": msg, "workspace_id": ws.ID, "campaign_id": campaign, "contact_id": wrote.ID,
			"phone_number": wrote.Phone.String(), "created_at": now})
	entry := func(direction string, message any, at time.Time) {
		exec(`INSERT INTO conversation_entries (id, workspace_id, contact_id, conversation_id, direction, message_id, body,
    created_at, kind, provider_id, mode)
VALUES (:id, :workspace_id, :contact_id, :conversation_id, :direction, :message_id, 'b', :created_at, 'text', :provider_id, 'live')`,
			map[string]any{"id": porttest.NewID(domain.PrefixEntry), "workspace_id": ws.ID, "contact_id": wrote.ID,
				"conversation_id": wrote.ConversationID, "direction": direction, "message_id": message, "created_at": at,
				"provider_id": map[bool]any{true: "wamid." + porttest.NewID("w"), false: nil}[direction == "inbound"]})
	}
	latest := now.Add(-2 * time.Hour)
	entry("outbound", msg, now)
	entry("inbound", nil, now.Add(-5*time.Hour))
	entry("inbound", nil, latest)

	if err := sqlstore.Migrate(ctx, db, d); err != nil {
		t.Fatalf("Migrate: %v", err)
	}
	s := sqlstore.New(db, d)
	m, err := s.GetMessage(ctx, ws.ID, msg)
	if err != nil || m.Kind != domain.MessageKindTemplate || m.CampaignID != campaign || m.Session != nil || m.RenderedBody != "Hi" {
		t.Fatalf("message after the migration: %+v, %v", m, err)
	}
	thread, _, err := s.ListEntries(ctx, ws.ID, wrote.ID, domain.ModeLive, ports.Page{Limit: 100})
	if err != nil || len(thread) != 3 {
		t.Fatalf("thread after the migration: %d entries, %v", len(thread), err)
	}
	c, err := s.GetContact(ctx, ws.ID, wrote.ID)
	if exp, ok := c.ServiceWindowExpiresAt(); err != nil || !ok || !exp.Equal(latest.Add(24*time.Hour)) {
		t.Errorf("window of the contact who wrote: %v %v, %v; want %v", exp, ok, err, latest.Add(24*time.Hour))
	}
	c, err = s.GetContact(ctx, ws.ID, silent.ID)
	if err != nil || c.LastInboundAt != nil {
		t.Errorf("contact who never wrote: %v, %v", c.LastInboundAt, err)
	}
	sess := porttest.NewSessionMessage(t, c)
	if err := s.CreateMessages(ctx, sess); err != nil {
		t.Fatalf("a session message after the migration: %v", err)
	}
}
