package sqlstore_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/jmoiron/sqlx"

	"github.com/heraldhq/herald/adapters/sqlstore"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/ports/porttest"
)

// Migration 0015 adds template slots. A campaign, a synced template and a
// message stored before it keep their meaning: the campaign takes the same
// variables and media header, renders the same body and sends the same
// components; the message queued before it sends what it would have.
func TestMigrationSlotsSQLite(t *testing.T) {
	t.Parallel()
	db, _, err := sqlstore.Open(t.Context(), sqlstore.Config{DatabaseURL: "sqlite:" + filepath.Join(t.TempDir(), "m.db")})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = db.Close() })
	testMigrationSlots(t, db, sqlstore.SQLite())
}

func TestMigrationSlotsPostgres(t *testing.T) {
	t.Parallel()
	testMigrationSlots(t, newPostgres(t, false), sqlstore.Postgres())
}

func testMigrationSlots(t *testing.T, db *sqlx.DB, d sqlstore.Dialect) {
	ctx := t.Context()
	if err := sqlstore.MigrateTo(ctx, db, d, 13); err != nil {
		t.Fatalf("MigrateTo 13: %v", err)
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
	exec(`INSERT INTO contacts (id, workspace_id, mode, conversation_id, phone_number, name, email, attributes,
    tags, opted_out, number_key, created_at, updated_at)
VALUES (:id, :workspace_id, 'test', :conversation_id, :phone_number, '', '', '{}', '[]', false, :number_key, :created_at, :created_at)`,
		map[string]any{"id": ct.ID, "workspace_id": ws.ID, "conversation_id": ct.ConversationID,
			"phone_number": ct.Phone.String(), "number_key": ct.NumberKey(), "created_at": now})
	campaign := domain.CampaignID(porttest.NewID(domain.PrefixCampaign))
	exec(`INSERT INTO campaigns (id, workspace_id, name, template_name, language, header_format, header_text, body,
    footer, placeholders, status, created_at, updated_at)
VALUES (:id, :workspace_id, 'c', 'promo', 'en_US', 'image', '', :body, '', :placeholders, 'active', :created_at, :created_at)`,
		map[string]any{"id": campaign, "workspace_id": ws.ID, "created_at": now, "body": "Hi {{1}}, {{2}} off",
			"placeholders": `[{"index":1,"label":"name"},{"index":2,"label":"discount"}]`})
	account := porttest.NewAccount()
	exec(`INSERT INTO templates (account, name, language, provider_id, status, category, header_format, header_text,
    body, footer, placeholders, unsupported, synced_at)
VALUES (:account, 'promo', 'en_US', '1', 'APPROVED', 'MARKETING', 'image', '', :body, '', :placeholders, '', :synced_at)`,
		map[string]any{"account": account, "synced_at": now, "body": "Hi {{1}}, {{2}} off",
			"placeholders": `[{"index":1,"label":""},{"index":2,"label":""}]`})
	queued := domain.MessageID(porttest.NewID(domain.PrefixMessage))
	exec(`INSERT INTO messages (id, workspace_id, campaign_id, contact_id, key_id, mode, phone_number,
    template_name, language, header_format, variables, media_header_url, rendered_body, status, history,
    created_at, updated_at, due_at, attempts)
VALUES (:id, :workspace_id, :campaign_id, :contact_id, 'key_x', 'test', :phone_number, 'promo', 'en_US', 'image',
    :variables, :url, 'Hi Ana, 20% off', 'queued', '[]', :created_at, :created_at, :created_at, 0)`,
		map[string]any{"variables": `["Ana","20%"]`, "url": "https://cdn.example.com/sale.jpg", "id": queued, "workspace_id": ws.ID, "campaign_id": campaign, "contact_id": ct.ID,
			"phone_number": ct.Phone.String(), "created_at": now})

	if err := sqlstore.Migrate(ctx, db, d); err != nil {
		t.Fatalf("Migrate: %v", err)
	}
	s := sqlstore.New(db, d)
	// The pre-slots payload of this send: the image, then the body.
	const want = `{"messaging_product":"whatsapp","recipient_type":"individual","to":"%s","type":"template",` +
		`"biz_opaque_callback_data":"%s","template":{"name":"promo","language":{"policy":"deterministic","code":"en_US"},` +
		`"components":[{"type":"header","parameters":[{"type":"image","image":{"link":"https://cdn.example.com/sale.jpg"}}]},` +
		`{"type":"body","parameters":[{"type":"text","text":"Ana"},{"type":"text","text":"20%%"}]}]}}`
	payload := func(m domain.Message) string {
		b, err := json.Marshal(ports.OutboundFor(m).Payload())
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}

	old, err := s.GetMessage(ctx, ws.ID, queued)
	if err != nil || old.Values != nil {
		t.Fatalf("message queued before: %+v, %v; want no slot values", old.Values, err)
	}
	if got, w := payload(old), fmt.Sprintf(want, ct.Phone.String(), queued); got != w {
		t.Errorf("message queued before sends\n%s\nwant\n%s", got, w)
	}

	c, err := s.GetCampaign(ctx, ws.ID, campaign)
	if err != nil || c.Template.Slots != nil {
		t.Fatalf("campaign: %+v, %v; want no stored slots", c.Template.Slots, err)
	}
	if c.Template.VariableCount() != 2 || c.Template.Placeholders[1].Label != "discount" {
		t.Fatalf("campaign takes %d variables, placeholders %+v", c.Template.VariableCount(), c.Template.Placeholders)
	}
	prep, err := c.Prepare([]string{"Ana", "20%"}, "https://cdn.example.com/sale.jpg", domain.MediaPolicy{})
	if err != nil || prep.RenderedBody != "Hi Ana, 20% off" {
		t.Fatalf("Prepare: %+v, %v", prep, err)
	}
	m := domain.NewMessage(domain.MessageID(porttest.NewID(domain.PrefixMessage)), c, ct,
		domain.Principal{Workspace: ws.ID, Key: "key_x", Mode: domain.ModeTest}, prep, now)
	if got, w := payload(m), fmt.Sprintf(want, ct.Phone.String(), m.ID); got != w {
		t.Errorf("a send of the campaign after the migration\n%s\nwant\n%s", got, w)
	}

	tmpl, err := s.GetTemplate(ctx, account, "promo", "en_US")
	if err != nil {
		t.Fatal(err)
	}
	def, err := tmpl.Usable([]string{"name"})
	if err != nil || def.VariableCount() != 2 {
		t.Fatalf("synced template: %+v, %v", def, err)
	}
	if hs, ok := def.MediaHeaderSlot(); !ok || hs.Media != domain.HeaderImage {
		t.Fatalf("synced template's image header is not fed by mediaHeaderUrl: %+v", def.Slots)
	}
}
