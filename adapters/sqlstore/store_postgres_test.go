package sqlstore_test

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
	"go.uber.org/fx"
	"go.uber.org/fx/fxtest"

	"github.com/heraldhq/herald/adapters/sqlstore"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/ports/porttest"
	"github.com/heraldhq/herald/test/testenv"
)

// newPostgres opens a fresh database (testenv.PostgresDatabase), migrated
// when migrate is set.
func newPostgres(t *testing.T, migrate bool) *sqlx.DB {
	t.Helper()
	ctx := t.Context()
	db, d, err := sqlstore.Open(ctx, sqlstore.Config{DatabaseURL: testenv.PostgresDatabase(t)})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	// Registered after the drop, so it runs before it.
	t.Cleanup(func() { _ = db.Close() })
	if migrate {
		if err := sqlstore.Migrate(ctx, db, d); err != nil {
			t.Fatalf("Migrate: %v", err)
		}
	}
	return db
}

func TestStorePostgres(t *testing.T) {
	t.Parallel()
	porttest.RunStore(t, func(t *testing.T) porttest.Store {
		return sqlstore.New(newPostgres(t, true), sqlstore.Postgres())
	})
}

// Migrations apply once, however often and however concurrently Migrate
// runs.
func TestMigratePostgres(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	db := newPostgres(t, false)
	current, latest, err := sqlstore.Version(ctx, db, sqlstore.Postgres())
	if err != nil || current != 0 || latest < 1 {
		t.Fatalf("Version before migrating = %d, %d, %v; want 0, at least 1", current, latest, err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() { errs[i] = sqlstore.Migrate(ctx, db, sqlstore.Postgres()) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatalf("Migrate: %v", err)
		}
	}
	if err := sqlstore.Migrate(ctx, db, sqlstore.Postgres()); err != nil {
		t.Fatalf("Migrate again: %v", err)
	}
	current, latest, err = sqlstore.Version(ctx, db, sqlstore.Postgres())
	if err != nil || current != latest {
		t.Fatalf("Version = %d, %d, %v; want current == latest", current, latest, err)
	}
}

// PostgresModule refuses to start on a schema that is behind, and starts
// once it is migrated.
func TestPostgresModule(t *testing.T) {
	t.Parallel()
	cfg := sqlstore.Config{DatabaseURL: testenv.PostgresDatabase(t)}
	var pinger ports.Pinger
	opts := fx.Options(sqlstore.PostgresModule, fx.Supply(cfg), fx.NopLogger, fx.Populate(&pinger))
	if err := fx.ValidateApp(opts); err != nil {
		t.Fatalf("ValidateApp: %v", err)
	}
	behind := fx.New(opts)
	if err := behind.Start(t.Context()); err == nil || !strings.Contains(err.Error(), "herald migrate") {
		t.Fatalf("Start on an unmigrated database = %v, want a request to migrate", err)
	}
	db, d, err := sqlstore.Open(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := sqlstore.Migrate(t.Context(), db, d); err != nil {
		t.Fatalf("Migrate: %v", err)
	}
	app := fxtest.New(t, opts)
	app.RequireStart()
	if err := pinger.Ping(t.Context()); err != nil {
		t.Fatalf("Ping: %v", err)
	}
	app.RequireStop()
}

// A batch's contacts are found by one index probe per number even on a
// table PostgreSQL has no statistics for (a new installation under its
// first burst): reading the workspace's contacts and filtering them made
// every batch's lookup grow with the workspace.
func TestContactLookupProbesEachNumberPostgres(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	db := newPostgres(t, true)
	mustExec(t, db,
		`ALTER TABLE contacts SET (autovacuum_enabled = false)`,
		`INSERT INTO workspaces (id, name, is_default, created_at) VALUES ('wsp_plan', 'plan', false, now())`,
	)
	insertContacts(t, db, "wsp_plan", 1, 3000)
	var numbers []string
	for i := 1; i <= 17; i++ {
		numbers = append(numbers, "1415555"+strconv.Itoa(1000+i*100))
	}
	q, args, err := sqlstore.ContactsByNumberQuery(db, sqlstore.Postgres(), "wsp_plan", "test", numbers)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := db.BeginTxx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	var lines []string
	if err := tx.SelectContext(ctx, &lines, "EXPLAIN (ANALYZE, TIMING OFF, COSTS OFF) "+q, args...); err != nil {
		t.Fatalf("EXPLAIN: %v", err)
	}
	plan := strings.Join(lines, "\n")
	if !strings.Contains(plan, "contacts_number") || !strings.Contains(plan, "loops=17") ||
		strings.Contains(plan, "Rows Removed by Filter") {
		t.Errorf("the lookup of 17 numbers among 3,000 contacts without statistics does not probe contacts_number once per number:\n%s", plan)
	}
	var found int
	if err := tx.GetContext(ctx, &found, "SELECT count(*) FROM ("+q+") AS found", args...); err != nil || found != len(numbers) {
		t.Errorf("the lookup found %d contacts, %v; want %d", found, err, len(numbers))
	}
}

// A batch's lookup is planned for the table as it is when it runs. A plan
// PostgreSQL kept for the lookup's prepared statement while the table was
// nearly empty went on scanning the workspace's contacts and filtering them,
// for every number, once the workspace had thousands (measured under load:
// 27 ms and 20,000 buffers per batch until autovacuum's next ANALYZE).
func TestContactLookupPlannedAsTheTableGrowsPostgres(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	db, st := oneSession(t)
	mustExec(t, db,
		`ALTER TABLE contacts SET (autovacuum_enabled = false)`,
		`INSERT INTO workspaces (id, name, is_default, created_at) VALUES ('wsp_plan', 'plan', false, now())`,
	)
	insertContacts(t, db, "wsp_plan", 1, 20)
	lookup := func(numbers ...int) int {
		t.Helper()
		phones := make([]domain.PhoneNumber, len(numbers))
		for i, n := range numbers {
			phones[i] = domain.MustPhoneNumber("+1415555" + strconv.Itoa(1000+n))
		}
		var found []domain.Contact
		err := st.WithinTx(ctx, func(ctx context.Context, r ports.Repos) error {
			var err error
			found, err = r.Contacts.FindContactsByPhone(ctx, "wsp_plan", domain.ModeTest, phones)
			return err
		})
		if err != nil {
			t.Fatalf("FindContactsByPhone: %v", err)
		}
		return len(found)
	}
	// PostgreSQL plans a prepared statement's first five runs for their
	// values and may then keep one generic plan, which assumes an array of
	// ten: lookups of more numbers make the generic plan look cheaper.
	warm := make([]int, 40)
	for i := range warm {
		warm[i] = i + 1
	}
	for range 10 {
		lookup(warm...)
	}
	insertContacts(t, db, "wsp_plan", 21, 3000)
	before := sessionCount(t, db, indexEntriesRead, "contacts")
	numbers := []int{100, 700, 1300, 1900, 2500, 2999}
	if found := lookup(numbers...); found != len(numbers) {
		t.Fatalf("the lookup found %d contacts, want %d", found, len(numbers))
	}
	if read := sessionCount(t, db, indexEntriesRead, "contacts") - before; read > int64(len(numbers)) {
		t.Errorf("looking up %d numbers among 3,000 contacts read %d index entries, want at most one per number", len(numbers), read)
	}
}

// A claim reads the messages it takes, in messages_due's order, however
// long the queue and whatever PostgreSQL's statistics say. Planned without
// statistics, it read the whole queue and sorted it for every claim.
func TestClaimReadsWhatItTakesPostgres(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	db, st := oneSession(t)
	mustExec(t, db,
		`ALTER TABLE messages SET (autovacuum_enabled = false)`,
		`INSERT INTO workspaces (id, name, is_default, created_at) VALUES ('wsp_q', 'q', false, now())`,
		`INSERT INTO campaigns (id, workspace_id, name, template_name, language, header_format, header_text, body,
    footer, placeholders, status, created_at, updated_at)
VALUES ('cmp_q', 'wsp_q', 'q', 'tpl', 'en_US', 'none', '', 'Hi', '', '[]', 'active', now(), now())`,
		`INSERT INTO contacts (id, workspace_id, mode, conversation_id, phone_number, number_key, name, email, attributes,
    tags, opted_out, created_at, updated_at)
VALUES ('ctc_q', 'wsp_q', 'test', 'cnv_q', '+14155551000', '14155551000', '', '', '{}', '[]', false, now(), now())`,
		`INSERT INTO messages (id, workspace_id, campaign_id, contact_id, key_id, mode, phone_number, template_name,
    language, header_format, variables, media_header_url, rendered_body, status, history, created_at, updated_at,
    due_at, attempts)
SELECT 'msg_' || lpad(i::text, 6, '0'), 'wsp_q', 'cmp_q', 'ctc_q', 'key_q', 'live', '+14155551000', 'tpl',
    'en_US', 'none', '[]', '', 'Hi', 'queued', '[]', now(), now(), now() - interval '1 hour' + i * interval '1 ms', 0
FROM generate_series(1, 3000) AS i`,
	)
	before := sessionCount(t, db, rowsRead, "messages")
	now := time.Now()
	const limit = 64
	claimed, err := st.ClaimMessages(ctx, ports.Claim{Owner: "dsp_q", Now: now, LeaseUntil: now.Add(time.Minute), Limit: limit})
	if err != nil || len(claimed) != limit {
		t.Fatalf("ClaimMessages = %d messages, %v; want %d", len(claimed), err, limit)
	}
	if first := claimed[0].Message.ID; first != "msg_000001" {
		t.Errorf("the first message claimed is %s, want the one due first, msg_000001", first)
	}
	// Each claimed message is read once to take it and once to lease it.
	if read := sessionCount(t, db, rowsRead, "messages") - before; read > 2*limit {
		t.Errorf("claiming %d of 3,000 due messages read %d rows, want at most %d", limit, read, 2*limit)
	}
}

// sessionCount runs q, a query of one count from PostgreSQL's cumulative
// statistics with table as $1, once the counts of db's one session so far
// have reached them.
func sessionCount(t *testing.T, db *sqlx.DB, q, table string) int64 {
	t.Helper()
	// A session's counts reach the statistics once it has been idle after
	// asking for a flush (PostgreSQL 15 and later).
	if _, err := db.ExecContext(t.Context(), `SELECT pg_stat_force_next_flush()`); err != nil {
		t.Fatal(err)
	}
	var n int64
	if err := db.GetContext(t.Context(), &n, q, table); err != nil {
		t.Fatal(err)
	}
	return n
}

// indexEntriesRead counts the entries table's indexes have returned.
const indexEntriesRead = `SELECT coalesce(sum(idx_tup_read), 0) FROM pg_stat_user_indexes WHERE relname = $1`

// rowsRead counts the rows read from table, by scans and through indexes.
const rowsRead = `SELECT coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0) FROM pg_stat_user_tables WHERE relname = $1`

// A contact is looked up by phone number through contacts_number, however
// the workspace grew since the lookup was first planned: told the workspace
// too, PostgreSQL's generic plan, made while contacts was nearly empty, read
// every contact of the workspace for each lookup.
func TestContactByPhoneReadsItsNumberPostgres(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	db, st := oneSession(t)
	mustExec(t, db,
		`ALTER TABLE contacts SET (autovacuum_enabled = false)`,
		`INSERT INTO workspaces (id, name, is_default, created_at) VALUES ('wsp_a', 'a', false, now()), ('wsp_b', 'b', false, now())`,
		// Workspace b has the number looked up too.
		`INSERT INTO contacts (id, workspace_id, mode, conversation_id, phone_number, number_key, name, email, attributes,
    tags, opted_out, created_at, updated_at)
VALUES ('ctc_b', 'wsp_b', 'test', 'cnv_b', '+14155553000', '14155553000', 'b', '', '{}', '[]', false, now(), now())`,
	)
	insertContacts(t, db, "wsp_a", 1, 5)
	// Past the five runs PostgreSQL plans for their values.
	for i := range 10 {
		if _, err := st.GetContactByPhone(ctx, "wsp_a", domain.ModeTest, domain.MustPhoneNumber("+1415555"+strconv.Itoa(1001+i%5))); err != nil {
			t.Fatalf("GetContactByPhone: %v", err)
		}
	}
	insertContacts(t, db, "wsp_a", 6, 3000)
	before := sessionCount(t, db, indexEntriesRead, "contacts")
	got, err := st.GetContactByPhone(ctx, "wsp_a", domain.ModeTest, domain.MustPhoneNumber("+14155553000"))
	if err != nil || got.ID != "ctc_2000" {
		t.Fatalf("GetContactByPhone = %s, %v; want workspace a's contact ctc_2000", got.ID, err)
	}
	// The number's entries in contacts_number: workspace a's and b's.
	if read := sessionCount(t, db, indexEntriesRead, "contacts") - before; read > 2 {
		t.Errorf("looking up one number among 3,000 contacts read %d index entries, want 2", read)
	}
}

// insertContacts stores contacts ctc_i of workspace ws, numbered
// +1415555 followed by 1000+i, for i from first to last.
func insertContacts(t *testing.T, db *sqlx.DB, ws string, first, last int) {
	t.Helper()
	q := `INSERT INTO contacts (id, workspace_id, mode, conversation_id, phone_number, number_key, name, email, attributes,
    tags, opted_out, created_at, updated_at)
SELECT 'ctc_' || i, $1, 'test', 'cnv_' || i, '+1415555' || (1000 + i), '1415555' || (1000 + i), '', '', '{}', '[]',
    false, now(), now()
FROM generate_series($2::int, $3::int) AS i`
	if _, err := db.ExecContext(t.Context(), q, ws, first, last); err != nil {
		t.Fatalf("insert contacts: %v", err)
	}
}

// mustExec runs each statement on db, in order.
func mustExec(t *testing.T, db *sqlx.DB, statements ...string) {
	t.Helper()
	for _, q := range statements {
		if _, err := db.ExecContext(t.Context(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// oneSession opens a fresh migrated database and a store on it that uses
// one connection: one PostgreSQL session, whose prepared statements and
// statistics the test reads.
func oneSession(t *testing.T) (*sqlx.DB, *sqlstore.Store) {
	t.Helper()
	db := newPostgres(t, true)
	db.SetMaxOpenConns(1)
	return db, sqlstore.New(db, sqlstore.Postgres())
}
