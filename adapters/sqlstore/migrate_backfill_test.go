package sqlstore_test

import (
	"cmp"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/jmoiron/sqlx"

	"github.com/heraldhq/herald/adapters/sqlstore"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/ports/porttest"
)

// Migration 0003 backfills the status timeline of messages written before
// it from their histories, to the microsecond, and marks outbound entries
// as templates.
func TestMigrationBackfillSQLite(t *testing.T) {
	t.Parallel()
	db, _, err := sqlstore.Open(t.Context(), sqlstore.Config{DatabaseURL: "sqlite:" + filepath.Join(t.TempDir(), "b.db")})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = db.Close() })
	testMigrationBackfill(t, db, sqlstore.SQLite(), `CREATE TABLE schema_migrations (
    version INTEGER NOT NULL PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL) STRICT`)
}

func TestMigrationBackfillPostgres(t *testing.T) {
	t.Parallel()
	db := newPostgres(t, false)
	testMigrationBackfill(t, db, sqlstore.Postgres(), `CREATE TABLE schema_migrations (
    version integer NOT NULL PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL)`)
}

// testMigrationBackfill applies migrations 1 and 2 by hand, writes rows as a
// build of that schema did, lets Migrate apply the rest and checks what it
// derived.
func testMigrationBackfill(t *testing.T, db *sqlx.DB, d sqlstore.Dialect, schemaMigrationsDDL string) {
	ctx := t.Context()
	if _, err := db.ExecContext(ctx, schemaMigrationsDDL); err != nil {
		t.Fatalf("create schema_migrations: %v", err)
	}
	for v, name := range []string{"0001_init", "0002_templates_and_wa_id"} {
		b, err := os.ReadFile(filepath.Join("migrations", d.Name(), name+".sql"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.ExecContext(ctx, upSection(b)); err != nil {
			t.Fatalf("apply %s: %v", name, err)
		}
		if _, err := db.NamedExecContext(ctx, `INSERT INTO schema_migrations (version, name, applied_at)
VALUES (:version, :name, :applied_at)`, map[string]any{"version": v + 1, "name": name, "applied_at": time.Now()}); err != nil {
			t.Fatalf("record %s: %v", name, err)
		}
	}

	ws := porttest.NewWorkspace(t)
	c := porttest.NewCampaign(t, ws.ID)
	ct := porttest.NewContact(t, ws.ID)
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	histories := [][]domain.StatusChange{
		{ // read without delivered, at the last microsecond of an hour
			{Status: domain.StatusQueued, At: at("2024-05-06T10:00:00Z")},
			{Status: domain.StatusSending, At: at("2024-05-06T10:00:00.5Z")},
			{Status: domain.StatusSent, At: at("2024-05-06T10:00:01.000001Z")},
			{Status: domain.StatusRead, At: at("2024-05-06T10:59:59.999999Z")},
		},
		{
			{Status: domain.StatusQueued, At: at("2024-05-06T10:00:00.123Z")},
			{Status: domain.StatusSending, At: at("2024-05-06T10:00:00.2Z")},
			{Status: domain.StatusFailed, At: at("2024-05-06T10:30:00.12345Z")},
		},
		{ // delivered reported at an earlier time than sent
			{Status: domain.StatusQueued, At: at("2024-05-06T10:00:00Z")},
			{Status: domain.StatusDelivered, At: at("2024-05-06T10:00:01.9Z")},
			{Status: domain.StatusSent, At: at("2024-05-06T10:00:02Z")},
		},
		nil, // stored as JSON null
	}
	var messages []domain.Message
	for _, h := range histories {
		m := porttest.NewMessage(t, c, ct)
		m.History = h
		if h != nil {
			m.CreatedAt = h[0].At
			m.Status = h[len(h)-1].Status
		}
		m.UpdatedAt = m.CreatedAt
		messages = append(messages, m)
	}
	out := porttest.NewOutboundEntry(messages[0], ct)
	in := domain.Entry{ID: domain.EntryID(porttest.NewID(domain.PrefixEntry)), Workspace: ws.ID, ContactID: ct.ID,
		ConversationID: ct.ConversationID, Direction: domain.Inbound, Body: "thanks", CreatedAt: porttest.Now()}

	writeVersion2Rows(t, db, ws, c, ct, messages, []domain.Entry{out, in})
	if err := sqlstore.Migrate(ctx, db, d); err != nil {
		t.Fatalf("Migrate: %v", err)
	}

	s := sqlstore.New(db, d)
	var want []domain.StatusCount
	for _, m := range messages {
		want = append(want, domain.StatusCount{Status: domain.StatusQueued, Start: m.CreatedAt, Count: 1})
		for _, st := range domain.TimelineStatuses()[1:] {
			if reached, ok := m.ReachedAt(st); ok {
				want = append(want, domain.StatusCount{Status: st, Start: reached, Count: 1})
			}
		}
	}
	// One-microsecond intervals: each count's start is the backfilled time.
	got, err := s.CountStatusTimeline(ctx, ws.ID, c.ID, domain.KeyMode{}, time.Date(2024, 5, 6, 0, 0, 0, 0, time.UTC), porttest.Now(), time.Microsecond)
	if err != nil {
		t.Fatalf("CountStatusTimeline: %v", err)
	}
	// Two messages were accepted at 10:00:00.
	want = mergeCounts(want)
	got = mergeCounts(got)
	if diff := gocmp.Diff(want, got, gocmp.AllowUnexported(domain.MessageStatus{})); diff != "" {
		t.Errorf("backfilled timeline (-want +got):\n%s", diff)
	}
	for _, m := range messages {
		if _, err := s.GetMessage(ctx, ws.ID, m.ID); err != nil {
			t.Errorf("GetMessage of a message written before the migration: %v", err)
		}
	}
	entries, _, err := s.ListEntries(ctx, ws.ID, ct.ID, domain.KeyMode{}, ports.Page{})
	if err != nil {
		t.Fatalf("ListEntries: %v", err)
	}
	kinds := map[domain.EntryID]string{}
	for _, e := range entries {
		kinds[e.ID] = e.Kind
	}
	if diff := gocmp.Diff(map[domain.EntryID]string{out.ID: domain.KindTemplate, in.ID: ""}, kinds); diff != "" {
		t.Errorf("entry kinds after the migration (-want +got):\n%s", diff)
	}
}

// mergeCounts adds up counts of the same status and start, in a fixed order.
func mergeCounts(cs []domain.StatusCount) []domain.StatusCount {
	type key struct {
		status string
		start  int64
	}
	sum := map[key]int{}
	for _, c := range cs {
		sum[key{c.Status.String(), c.Start.UnixMicro()}] += c.Count
	}
	var out []domain.StatusCount
	for k, n := range sum {
		st, _ := domain.ParseMessageStatus(k.status)
		out = append(out, domain.StatusCount{Status: st, Start: time.UnixMicro(k.start).UTC(), Count: n})
	}
	slices.SortFunc(out, func(a, b domain.StatusCount) int {
		return cmp.Or(a.Start.Compare(b.Start), cmp.Compare(a.Status.String(), b.Status.String()))
	})
	return out
}

// writeVersion2Rows inserts rows with the columns of schema version 2.
func writeVersion2Rows(t *testing.T, db *sqlx.DB, ws domain.Workspace, c domain.Campaign, ct domain.Contact,
	ms []domain.Message, es []domain.Entry) {
	t.Helper()
	ctx := t.Context()
	exec := func(q string, arg any) {
		t.Helper()
		if _, err := db.NamedExecContext(ctx, q, arg); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec(`INSERT INTO workspaces (id, name, is_default, created_at) VALUES (:id, :name, false, :created_at)`,
		map[string]any{"id": ws.ID, "name": ws.Name, "created_at": ws.CreatedAt})
	exec(`INSERT INTO campaigns (id, workspace_id, name, template_name, language, header_format, header_text, body,
    footer, placeholders, status, created_at, updated_at)
VALUES (:id, :workspace_id, 'c', 't', 'en', '', '', 'b', '', '[]', 'active', :created_at, :created_at)`,
		map[string]any{"id": c.ID, "workspace_id": ws.ID, "created_at": c.CreatedAt})
	exec(`INSERT INTO contacts (id, workspace_id, conversation_id, phone_number, name, email, attributes, tags,
    opted_out, created_at, updated_at)
VALUES (:id, :workspace_id, :conversation_id, :phone_number, '', '', '{}', '[]', false, :created_at, :created_at)`,
		map[string]any{"id": ct.ID, "workspace_id": ws.ID, "conversation_id": ct.ConversationID,
			"phone_number": ct.Phone.String(), "created_at": ct.CreatedAt})
	for _, m := range ms {
		type change struct {
			Status string    `json:"status"`
			At     time.Time `json:"at"`
		}
		var hist []change
		for _, h := range m.History {
			hist = append(hist, change{Status: h.Status.String(), At: h.At.UTC()})
		}
		b, err := json.Marshal(hist)
		if err != nil {
			t.Fatal(err)
		}
		exec(`INSERT INTO messages (id, workspace_id, campaign_id, contact_id, key_id, mode, phone_number,
    template_name, language, header_format, variables, media_header_url, rendered_body, status, history,
    created_at, updated_at, attempts)
VALUES (:id, :workspace_id, :campaign_id, :contact_id, 'key_x', 'test', :phone_number, 't', 'en', '', '[]', '',
    'b', :status, :history, :created_at, :created_at, 0)`,
			map[string]any{"id": m.ID, "workspace_id": ws.ID, "campaign_id": c.ID, "contact_id": ct.ID,
				"phone_number": m.Phone.String(), "status": m.Status.String(), "history": string(b),
				"created_at": m.CreatedAt})
	}
	for _, e := range es {
		exec(`INSERT INTO conversation_entries (id, workspace_id, contact_id, conversation_id, direction, message_id,
    status, body, created_at)
VALUES (:id, :workspace_id, :contact_id, :conversation_id, :direction, :message_id, :status, :body, :created_at)`,
			map[string]any{"id": e.ID, "workspace_id": ws.ID, "contact_id": ct.ID, "conversation_id": ct.ConversationID,
				"direction": e.Direction.String(), "message_id": nullable(string(e.MessageID)),
				"status": nullable(e.Status.String()), "body": e.Body, "created_at": e.CreatedAt})
	}
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}
