package sqlstore_test

import (
	"errors"
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

// Migration 10 merges the contacts that were split before it: one person
// under both forms of a number WhatsApp writes (Brazil's ninth digit,
// Argentina's 9) in one workspace and mode. The contact Herald sent to
// stays, with the other's thread, messages and details, the later opt-out
// decision, and the wa_id it wrote from; contacts of other workspaces or
// modes, and numbers that only look alike, stay apart.
func TestMigrationIdentitiesSQLite(t *testing.T) {
	t.Parallel()
	db, _, err := sqlstore.Open(t.Context(), sqlstore.Config{DatabaseURL: "sqlite:" + filepath.Join(t.TempDir(), "m.db")})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = db.Close() })
	testMigrationIdentities(t, db, sqlstore.SQLite(), `CREATE TABLE schema_migrations (
    version INTEGER NOT NULL PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL) STRICT`)
}

func TestMigrationIdentitiesPostgres(t *testing.T) {
	t.Parallel()
	testMigrationIdentities(t, newPostgres(t, false), sqlstore.Postgres(), `CREATE TABLE schema_migrations (
    version integer NOT NULL PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL)`)
}

// v9 writes rows with the columns of schema version 9.
type v9 struct {
	v6
	base time.Time
}

// v9Contact is a contact as version 9 stores it.
type v9Contact struct {
	ws                 domain.WorkspaceID
	mode               domain.KeyMode
	phone, name, email string
	attributes, tags   string
	optedOut           bool
	optOutAt, lastAt   *time.Time
	waID, profileName  string
	created            time.Time
	id                 domain.ContactID
	conv               domain.ConversationID
	messages, entries  []string
}

func (w v9) contact(c *v9Contact) {
	w.t.Helper()
	c.id, c.conv = domain.ContactID(porttest.NewID(domain.PrefixContact)), domain.ConversationID(porttest.NewID(domain.PrefixConversation))
	if c.ws == "" {
		c.ws = w.ws
	}
	if c.mode.IsZero() {
		c.mode = domain.ModeLive
	}
	w.exec(`INSERT INTO contacts (id, workspace_id, mode, conversation_id, phone_number, name, email, attributes, tags,
    opted_out, opt_out_changed_at, wa_id, profile_name, created_at, updated_at, last_message_at)
VALUES (:id, :ws, :mode, :conv, :phone, :name, :email, :attributes, :tags, :opted_out, :opt_out_at, :wa_id,
    :profile_name, :created, :created, :last_at)`,
		map[string]any{"id": c.id, "ws": c.ws, "mode": c.mode.String(), "conv": c.conv, "phone": c.phone, "name": c.name,
			"email": c.email, "attributes": c.attributes, "tags": c.tags, "opted_out": c.optedOut, "opt_out_at": c.optOutAt,
			"wa_id": c.waID, "profile_name": c.profileName, "created": c.created, "last_at": c.lastAt})
}

// sent stores a message of c's mode to c, with its thread entry.
func (w v9) sent(c *v9Contact) domain.MessageID {
	w.t.Helper()
	id, entry := domain.MessageID(porttest.NewID(domain.PrefixMessage)), domain.EntryID(porttest.NewID(domain.PrefixEntry))
	w.exec(`INSERT INTO messages (id, workspace_id, campaign_id, contact_id, key_id, mode, phone_number,
    template_name, language, header_format, variables, media_header_url, rendered_body, status, history,
    created_at, updated_at, attempts)
VALUES (:id, :ws, :c, :contact, 'key_x', :mode, :phone, 't', 'en', 'none', '[]', '', 'b', 'queued',
    '[]', :at, :at, 0)`,
		map[string]any{"id": id, "ws": c.ws, "c": w.c, "contact": c.id, "mode": c.mode.String(), "phone": c.phone, "at": w.base})
	w.exec(`INSERT INTO conversation_entries (id, workspace_id, mode, contact_id, conversation_id, direction, kind,
    message_id, status, body, created_at)
VALUES (:id, :ws, :mode, :contact, :conv, 'outbound', 'template', :msg, 'queued', 'b', :at)`,
		map[string]any{"id": entry, "ws": c.ws, "mode": c.mode.String(), "contact": c.id, "conv": c.conv, "msg": id, "at": w.base})
	c.messages, c.entries = append(c.messages, string(id)), append(c.entries, string(entry))
	return id
}

// wrote stores an inbound thread entry of c.
func (w v9) wrote(c *v9Contact, body string) {
	w.t.Helper()
	id := domain.EntryID(porttest.NewID(domain.PrefixEntry))
	w.exec(`INSERT INTO conversation_entries (id, workspace_id, mode, contact_id, conversation_id, direction, kind,
    body, provider_id, created_at)
VALUES (:id, :ws, 'live', :contact, :conv, 'inbound', 'text', :body, :wamid, :at)`,
		map[string]any{"id": id, "ws": c.ws, "contact": c.id, "conv": c.conv, "body": body,
			"wamid": "wamid." + porttest.NewID("w"), "at": w.base.Add(time.Minute)})
	c.entries = append(c.entries, string(id))
}

func testMigrationIdentities(t *testing.T, db *sqlx.DB, d sqlstore.Dialect, schemaMigrationsDDL string) {
	ctx := t.Context()
	migrateByHand(t, db, d, schemaMigrationsDDL, 10)
	ws, other, c := porttest.NewWorkspace(t), porttest.NewWorkspace(t), porttest.NewCampaign(t, "")
	base := porttest.Now().Add(-time.Hour)
	w := v9{v6: v6{t: t, db: db, ws: ws.ID, c: c.ID}, base: base}
	for _, x := range []domain.Workspace{ws, other} {
		w.exec(`INSERT INTO workspaces (id, name, is_default, created_at) VALUES (:id, 'W', false, :at)`,
			map[string]any{"id": x.ID, "at": x.CreatedAt})
	}
	w.exec(`INSERT INTO campaigns (id, workspace_id, name, template_name, language, header_format, header_text, body,
    footer, placeholders, status, created_at, updated_at)
VALUES (:id, :ws, 'c', 't', 'en', 'none', '', 'b', '', '[]', 'active', :at, :at)`,
		map[string]any{"id": c.ID, "ws": ws.ID, "at": c.CreatedAt})
	at := func(d time.Duration) *time.Time { t := base.Add(d); return &t }

	// Brazil: Herald sent to the 13-digit number (synced, never opted
	// out); the person's replies and STOP made a 12-digit contact, created
	// later, with a message of its own sent since.
	sentTo := &v9Contact{phone: "+5582999448232", name: "Ana (CRM)", attributes: `{"plan":"pro","city":"Recife"}`,
		tags: `["vip"]`, optOutAt: at(time.Second), created: base}
	split := &v9Contact{phone: "+558299448232", email: "ana@example.com", attributes: `{"city":"Maceió","lang":"pt"}`,
		tags: `["lead","vip"]`, optedOut: true, optOutAt: at(2 * time.Minute), waID: "558299448232", profileName: "Ana",
		lastAt: at(2 * time.Minute), created: base.Add(time.Minute)}
	// Argentina: sent to 54…; the person wrote STOP from 549…, and was
	// synced back in later; the contact the person made is the older.
	arSent := &v9Contact{phone: "+541123456789", name: "Bruno", attributes: `{}`, tags: `[]`, optOutAt: at(time.Hour),
		created: base.Add(time.Minute)}
	arWrote := &v9Contact{phone: "+5491123456789", name: "Bruno W.", attributes: `{}`, tags: `[]`, optedOut: true,
		optOutAt: at(30 * time.Minute), waID: "5491123456789", profileName: "Bruno", lastAt: at(30 * time.Minute), created: base}
	// Brazil again, no messages: the older stays.
	older := &v9Contact{phone: "+5511988887777", attributes: `{}`, tags: `[]`, created: base}
	younger := &v9Contact{phone: "+551188887777", attributes: `{}`, tags: `[]`, waID: "551188887777", lastAt: at(time.Minute),
		created: base.Add(time.Second)}
	// Apart: other modes, other workspaces, a landline and the mobile
	// with a 9 before it.
	liveOne := &v9Contact{phone: "+5521987654321", attributes: `{}`, tags: `[]`, created: base}
	testOne := &v9Contact{phone: "+552187654321", mode: domain.ModeTest, attributes: `{}`, tags: `[]`, created: base}
	here := &v9Contact{phone: "+5531987654321", attributes: `{}`, tags: `[]`, created: base}
	there := &v9Contact{ws: other.ID, phone: "+553187654321", attributes: `{}`, tags: `[]`, created: base}
	landline := &v9Contact{phone: "+551133334444", attributes: `{}`, tags: `[]`, created: base}
	mobile := &v9Contact{phone: "+5511933334444", attributes: `{}`, tags: `[]`, created: base}
	apart := []*v9Contact{liveOne, testOne, here, there, landline, mobile}
	for _, c := range append([]*v9Contact{sentTo, split, arSent, arWrote, older, younger}, apart...) {
		w.contact(c)
	}
	w.sent(sentTo)
	w.wrote(split, "oi")
	w.wrote(split, "STOP")
	w.sent(split)
	w.sent(arSent)
	w.wrote(arWrote, "STOP")
	w.wrote(younger, "olá")

	if err := sqlstore.Migrate(ctx, db, d); err != nil {
		t.Fatalf("Migrate: %v", err)
	}
	s := sqlstore.New(db, d)
	merged := func(stays, goes *v9Contact) domain.Contact {
		t.Helper()
		got, err := s.GetContact(ctx, stays.ws, stays.id)
		if err != nil {
			t.Fatalf("the contact %s that stays: %v", stays.phone, err)
		}
		if _, err := s.GetContact(ctx, goes.ws, goes.id); !errors.Is(err, domain.ErrContactNotFound) {
			t.Errorf("the contact %s merged away: %v, want contact_not_found", goes.phone, err)
		}
		for _, p := range []string{stays.phone, goes.phone} {
			byPhone, err := s.GetContactByPhone(ctx, stays.ws, stays.mode, domain.MustPhoneNumber(p))
			if err != nil || byPhone.ID != stays.id {
				t.Errorf("the contact by %s = %s, %v; want %s", p, byPhone.ID, err, stays.id)
			}
		}
		es, _, err := s.ListEntries(ctx, stays.ws, stays.id, domain.KeyMode{}, ports.Page{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, e := range es {
			ids = append(ids, string(e.ID))
			if e.ContactID != stays.id || e.ConversationID != stays.conv {
				t.Errorf("entry %s after the merge: contact %s conversation %s, want %s %s", e.ID, e.ContactID,
					e.ConversationID, stays.id, stays.conv)
			}
		}
		want := append(slices.Clone(stays.entries), goes.entries...)
		slices.Sort(ids)
		slices.Sort(want)
		if !slices.Equal(ids, want) {
			t.Errorf("the thread of %s after the merge: %v, want %v", stays.phone, ids, want)
		}
		for _, id := range append(slices.Clone(stays.messages), goes.messages...) {
			m, err := s.GetMessage(ctx, stays.ws, domain.MessageID(id))
			if err != nil || m.ContactID != stays.id {
				t.Errorf("message %s after the merge: contact %s, %v; want %s", id, m.ContactID, err, stays.id)
			}
		}
		return got
	}

	ana := merged(sentTo, split)
	if ana.Phone.String() != sentTo.phone || ana.Name != "Ana (CRM)" || ana.Email != "ana@example.com" ||
		!ana.OptedOut || !ana.OptOutChangedAt.Equal(*split.optOutAt) || ana.WaID != "558299448232" ||
		ana.ProfileName != "Ana" || !ana.CreatedAt.Equal(base) || !ana.LastMessageAt.Equal(*split.lastAt) ||
		!slices.Equal(ana.Tags, []string{"lead", "vip"}) ||
		len(ana.Attributes) != 3 || ana.Attributes["city"] != "Recife" || ana.Attributes["lang"] != "pt" || ana.Attributes["plan"] != "pro" {
		t.Errorf("the Brazilian contact after the merge: %+v", ana)
	}
	bruno := merged(arSent, arWrote)
	if bruno.Phone.String() != arSent.phone || bruno.Name != "Bruno" || bruno.OptedOut ||
		!bruno.OptOutChangedAt.Equal(*arSent.optOutAt) || bruno.WaID != "5491123456789" || !bruno.CreatedAt.Equal(base) {
		t.Errorf("the Argentine contact after the merge (synced in after the STOP): %+v", bruno)
	}
	if kept := merged(older, younger); kept.WaID != "551188887777" || !kept.LastMessageAt.Equal(*younger.lastAt) {
		t.Errorf("the older contact after the merge: %+v", kept)
	}
	for _, c := range apart {
		got, err := s.GetContactByPhone(ctx, c.ws, c.mode, domain.MustPhoneNumber(c.phone))
		if err != nil || got.ID != c.id {
			t.Errorf("the contact %s (%s) kept apart: %s, %v", c.phone, c.mode, got.ID, err)
		}
	}
	// One number, one contact: the other form is taken now.
	dup := domain.NewContact(domain.ContactID(porttest.NewID(domain.PrefixContact)),
		domain.ConversationID(porttest.NewID(domain.PrefixConversation)), ws.ID, domain.ModeLive,
		domain.MustPhoneNumber(split.phone), porttest.Now())
	if err := s.CreateContact(ctx, dup); !errors.Is(err, domain.ErrConflict) {
		t.Errorf("a new contact for the merged-away form: %v, want a conflict", err)
	}
}
