package sqlstore_test

import (
	"errors"
	"maps"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/heraldhq/herald/adapters/sqlstore"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/ports/porttest"
)

// Migrations 8 and 9 give the mode to rows written before them (a
// database at version 6 goes through 7, 8 and 9 in one upgrade): an
// Idempotency-Key takes the mode of the message it stands for; a contact
// that only test sends reached is a test contact, any other live; a thread
// entry takes its message's mode, and what a contact wrote is live.
func TestMigrationModesSQLite(t *testing.T) {
	t.Parallel()
	db, _, err := sqlstore.Open(t.Context(), sqlstore.Config{DatabaseURL: "sqlite:" + filepath.Join(t.TempDir(), "m.db")})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = db.Close() })
	testMigrationModes(t, db, sqlstore.SQLite(), `CREATE TABLE schema_migrations (
    version INTEGER NOT NULL PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL) STRICT`)
}

func TestMigrationModesPostgres(t *testing.T) {
	t.Parallel()
	testMigrationModes(t, newPostgres(t, false), sqlstore.Postgres(), `CREATE TABLE schema_migrations (
    version integer NOT NULL PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL)`)
}

// v6 writes rows with the columns of schema version 6.
type v6 struct {
	t  *testing.T
	db *sqlx.DB
	ws domain.WorkspaceID
	c  domain.CampaignID
}

func (w v6) exec(q string, arg map[string]any) {
	w.t.Helper()
	if _, err := w.db.NamedExecContext(w.t.Context(), q, arg); err != nil {
		w.t.Fatalf("%s: %v", q, err)
	}
}

func (w v6) contact(phone string) (domain.ContactID, domain.ConversationID) {
	w.t.Helper()
	id, conv := domain.ContactID(porttest.NewID(domain.PrefixContact)), domain.ConversationID(porttest.NewID(domain.PrefixConversation))
	w.exec(`INSERT INTO contacts (id, workspace_id, conversation_id, phone_number, name, email, attributes, tags,
    opted_out, created_at, updated_at)
VALUES (:id, :ws, :conv, :phone, 'Asha', '', '{}', '[]', false, :at, :at)`,
		map[string]any{"id": id, "ws": w.ws, "conv": conv, "phone": phone, "at": porttest.Now()})
	return id, conv
}

func (w v6) message(contact domain.ContactID, mode domain.KeyMode) domain.MessageID {
	w.t.Helper()
	id := domain.MessageID(porttest.NewID(domain.PrefixMessage))
	w.exec(`INSERT INTO messages (id, workspace_id, campaign_id, contact_id, key_id, mode, phone_number,
    template_name, language, header_format, variables, media_header_url, rendered_body, status, history,
    created_at, updated_at, attempts)
VALUES (:id, :ws, :c, :contact, 'key_x', :mode, '+14155552671', 't', 'en', 'none', '[]', '', 'b', 'queued',
    '[]', :at, :at, 0)`,
		map[string]any{"id": id, "ws": w.ws, "c": w.c, "contact": contact, "mode": mode.String(), "at": porttest.Now()})
	return id
}

func (w v6) entry(contact domain.ContactID, conv domain.ConversationID, msg domain.MessageID) domain.EntryID {
	w.t.Helper()
	id, direction := domain.EntryID(porttest.NewID(domain.PrefixEntry)), "outbound"
	var message any = msg
	if msg == "" {
		direction, message = "inbound", nil
	}
	w.exec(`INSERT INTO conversation_entries (id, workspace_id, contact_id, conversation_id, direction, message_id,
    body, created_at)
VALUES (:id, :ws, :contact, :conv, :direction, :msg, 'b', :at)`,
		map[string]any{"id": id, "ws": w.ws, "contact": contact, "conv": conv, "direction": direction, "msg": message,
			"at": porttest.Now()})
	return id
}

func (w v6) idempotencyKey(key string, msg domain.MessageID) {
	w.t.Helper()
	w.exec(`INSERT INTO idempotency_keys (workspace_id, key, fingerprint, message_id, created_at)
VALUES (:ws, :key, 'fp', :msg, :at)`, map[string]any{"ws": w.ws, "key": key, "msg": msg, "at": porttest.Now()})
}

func testMigrationModes(t *testing.T, db *sqlx.DB, d sqlstore.Dialect, schemaMigrationsDDL string) {
	ctx := t.Context()
	migrateByHand(t, db, d, schemaMigrationsDDL, 7)
	ws, c := porttest.NewWorkspace(t), porttest.NewCampaign(t, "")
	w := v6{t: t, db: db, ws: ws.ID, c: c.ID}
	w.exec(`INSERT INTO workspaces (id, name, is_default, created_at) VALUES (:id, 'W', false, :at)`,
		map[string]any{"id": ws.ID, "at": ws.CreatedAt})
	w.exec(`INSERT INTO campaigns (id, workspace_id, name, template_name, language, header_format, header_text, body,
    footer, placeholders, status, created_at, updated_at)
VALUES (:id, :ws, 'c', 't', 'en', 'none', '', 'b', '', '[]', 'active', :at, :at)`,
		map[string]any{"id": c.ID, "ws": ws.ID, "at": c.CreatedAt})

	// Contacts as test traffic, live traffic, both, a reply and a sync
	// left them.
	phones := map[string]string{"test only": "+14155550001", "live only": "+14155550002", "both": "+14155550003",
		"test and a reply": "+14155550004", "synced": "+14155550005"}
	ids := map[string]domain.ContactID{}
	convs := map[string]domain.ConversationID{}
	for what, phone := range phones {
		ids[what], convs[what] = w.contact(phone)
	}
	w.entry(ids["test only"], convs["test only"], w.message(ids["test only"], domain.ModeTest))
	w.entry(ids["live only"], convs["live only"], w.message(ids["live only"], domain.ModeLive))
	live, test := w.message(ids["both"], domain.ModeLive), w.message(ids["both"], domain.ModeTest)
	bothLive := []domain.EntryID{w.entry(ids["both"], convs["both"], live), w.entry(ids["both"], convs["both"], "")}
	bothTest := w.entry(ids["both"], convs["both"], test)
	w.entry(ids["test and a reply"], convs["test and a reply"], w.message(ids["test and a reply"], domain.ModeTest))
	w.entry(ids["test and a reply"], convs["test and a reply"], "")
	w.idempotencyKey("k-live", live)
	w.idempotencyKey("k-test", test)
	w.idempotencyKey("k-gone", domain.MessageID(porttest.NewID(domain.PrefixMessage)))

	if err := sqlstore.Migrate(ctx, db, d); err != nil {
		t.Fatalf("Migrate: %v", err)
	}
	s := sqlstore.New(db, d)
	for _, c := range []struct {
		mode  domain.KeyMode
		key   string
		found bool
		msg   domain.MessageID
	}{
		{domain.ModeLive, "k-live", true, live}, {domain.ModeTest, "k-live", false, ""},
		{domain.ModeTest, "k-test", true, test}, {domain.ModeLive, "k-test", false, ""},
		{domain.ModeLive, "k-gone", false, ""}, {domain.ModeTest, "k-gone", false, ""},
	} {
		rec, found, err := s.FindIdempotencyRecord(ctx, ws.ID, c.mode, domain.IdempotencyKey(c.key))
		if err != nil || found != c.found || rec.Message != c.msg || found && rec.Mode != c.mode {
			t.Errorf("%s in %s mode after the migration: %+v found=%v (%v); want found=%v for %s",
				c.key, c.mode, rec, found, err, c.found, c.msg)
		}
	}

	for what, want := range map[string]domain.KeyMode{"test only": domain.ModeTest, "live only": domain.ModeLive,
		"both": domain.ModeLive, "test and a reply": domain.ModeLive, "synced": domain.ModeLive} {
		phone := domain.MustPhoneNumber(phones[what])
		got, err := s.GetContactByPhone(ctx, ws.ID, want, phone)
		if err != nil || got.ID != ids[what] || got.Mode != want {
			t.Errorf("the %s contact after the migration: %s %v (%v), want %s in %s mode", what, got.ID, got.Mode, err, ids[what], want)
		}
		other := domain.ModeTest
		if want == domain.ModeTest {
			other = domain.ModeLive
		}
		if _, err := s.GetContactByPhone(ctx, ws.ID, other, phone); !errors.Is(err, domain.ErrContactNotFound) {
			t.Errorf("the %s contact in %s mode: %v, want contact_not_found", what, other, err)
		}
		// The number is free in the other mode.
		c := domain.NewContact(domain.ContactID(porttest.NewID(domain.PrefixContact)),
			domain.ConversationID(porttest.NewID(domain.PrefixConversation)), ws.ID, other, phone, porttest.Now())
		if err := s.CreateContact(ctx, c); err != nil {
			t.Errorf("a %s contact for the %s number: %v", other, what, err)
		}
	}
	for mode, want := range map[domain.KeyMode][]domain.EntryID{domain.ModeLive: bothLive, domain.ModeTest: {bothTest}} {
		es, _, err := s.ListEntries(ctx, ws.ID, ids["both"], mode, ports.Page{})
		got := make([]domain.EntryID, len(es))
		for i, e := range es {
			got[i] = e.ID
		}
		slices.Sort(got)
		slices.Sort(want)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("%s entries of the contact both reached after the migration: %v (%v), want %v", mode, got, err, want)
		}
	}
}

// Undoing migration 8 leaves one record per Idempotency-Key and workspace,
// as version 7 holds them: a key claimed in both modes keeps its earlier
// claim (the live one when both came at once), and a key claimed once
// stays.
func TestMigrationIdempotencyModeDown(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, db *sqlx.DB, d sqlstore.Dialect, _ string) {
		ctx := t.Context()
		if err := sqlstore.MigrateTo(ctx, db, d, 8); err != nil {
			t.Fatalf("MigrateTo 8: %v", err)
		}
		s := sqlstore.New(db, d)
		ws := porttest.NewWorkspace(t)
		if err := s.CreateWorkspace(ctx, ws); err != nil {
			t.Fatal(err)
		}
		at := porttest.Now()
		kept := map[string]domain.MessageID{}
		claim := func(key string, mode domain.KeyMode, after time.Duration) domain.MessageID {
			t.Helper()
			msg := domain.MessageID(porttest.NewID(domain.PrefixMessage))
			rec := domain.IdempotencyRecord{Workspace: ws.ID, Mode: mode, Key: domain.IdempotencyKey(key),
				Fingerprint: "fp", Message: msg, CreatedAt: at.Add(after)}
			if err := s.ClaimIdempotencyKey(ctx, rec, at.Add(-time.Hour)); err != nil {
				t.Fatalf("claim %s in %s mode: %v", key, mode, err)
			}
			return msg
		}
		kept["live first"] = claim("live first", domain.ModeLive, 0)
		claim("live first", domain.ModeTest, time.Second)
		claim("test first", domain.ModeLive, time.Second)
		kept["test first"] = claim("test first", domain.ModeTest, 0)
		claim("at once", domain.ModeTest, 0)
		kept["at once"] = claim("at once", domain.ModeLive, 0)
		kept["test only"] = claim("test only", domain.ModeTest, 0)

		if err := sqlstore.MigrateDown(ctx, db, d); err != nil {
			t.Fatalf("MigrateDown from 8: %v", err)
		}
		var rows []struct {
			Key     string           `db:"key"`
			Message domain.MessageID `db:"message_id"`
		}
		if err := db.SelectContext(ctx, &rows, db.Rebind(`SELECT key, message_id FROM idempotency_keys WHERE workspace_id = ?`), ws.ID); err != nil {
			t.Fatal(err)
		}
		got := map[string]domain.MessageID{}
		for _, r := range rows {
			got[r.Key] = r.Message
		}
		if len(rows) != len(got) || !maps.Equal(got, kept) {
			t.Errorf("Idempotency-Keys after undoing migration 8: %v, want %v", rows, kept)
		}
	})
}
