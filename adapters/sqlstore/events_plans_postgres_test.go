package sqlstore_test

import (
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/heraldhq/herald/adapters/sqlstore"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/ports/porttest"
)

// The outbox's statements read what they need however PostgreSQL's
// statistics stand (decision 0010's test): each runs on one session
// enough times, on nearly empty tables, for a generic plan; the tables then
// grow to thousands of rows without ANALYZE, and the next run may read only
// the rows it works on. A fan-out that read its events back by id had a
// generic plan that read the whole events table twice per event appended.

// outboxSession is one PostgreSQL session's store with a workspace and
// endpoints subscribed to every type, and autovacuum off on the outbox's
// tables.
func outboxSession(t *testing.T, endpoints int) (*sqlx.DB, *sqlstore.Store, domain.WorkspaceID, []domain.WebhookEndpoint) {
	t.Helper()
	db, st := oneSession(t)
	mustExec(t, db,
		`ALTER TABLE events SET (autovacuum_enabled = false)`,
		`ALTER TABLE event_deliveries SET (autovacuum_enabled = false)`,
		`ALTER TABLE event_attempts SET (autovacuum_enabled = false)`,
	)
	ws := porttest.NewWorkspace(t)
	if err := st.CreateWorkspace(t.Context(), ws); err != nil {
		t.Fatal(err)
	}
	var es []domain.WebhookEndpoint
	for range endpoints {
		e := porttest.NewEndpoint(t, ws.ID, domain.ModeLive, domain.AllEvents())
		if err := st.CreateEndpoint(t.Context(), e); err != nil {
			t.Fatal(err)
		}
		es = append(es, e)
	}
	return db, st, ws.ID, es
}

// growOutbox adds n sequenced events of ws, an hour old, each with a
// pending delivery due to endpoint, without ANALYZE.
func growOutbox(t *testing.T, db *sqlx.DB, ws domain.WorkspaceID, endpoint domain.WebhookEndpointID, n int) {
	t.Helper()
	q := `INSERT INTO events (id, workspace_id, mode, type, subject, occurred_at, body, seq)
SELECT 'evt_g' || lpad(i::text, 7, '0'), $1, 'live', 'message.sent', 'msg_g' || i, now() - interval '1 hour', '\x7b7d',
    (SELECT last_seq FROM event_sequence) + i
FROM generate_series(1, $2::int) AS i`
	if _, err := db.ExecContext(t.Context(), q, string(ws), n); err != nil {
		t.Fatalf("grow events: %v", err)
	}
	mustExec(t, db,
		`UPDATE event_sequence SET last_seq = (SELECT max(seq) FROM events)`,
		`INSERT INTO event_deliveries (event_id, endpoint_id, subject, event_order, state, attempts, next_attempt_at, updated_at)
SELECT e.id, '`+string(endpoint)+`', e.subject, e.appended, 'pending', 0, e.occurred_at, e.occurred_at
FROM events e WHERE e.id LIKE 'evt_g%'`,
	)
}

// reads is how many rows the session has read of each table so far:
// scanned, and fetched through indexes (rowsRead).
func reads(t *testing.T, db *sqlx.DB, tables ...string) map[string]int64 {
	t.Helper()
	if _, err := db.ExecContext(t.Context(), `SELECT pg_stat_force_next_flush()`); err != nil {
		t.Fatal(err)
	}
	var rows []struct {
		Table string `db:"relname"`
		Read  int64  `db:"read"`
	}
	q := `SELECT relname, coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0) AS read FROM pg_stat_user_tables
WHERE relname = ANY($1)`
	if err := db.SelectContext(t.Context(), &rows, q, tables); err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for _, r := range rows {
		out[r.Table] = r.Read
	}
	return out
}

// since is how many rows of each table of before the session has read
// since.
func since(t *testing.T, db *sqlx.DB, before map[string]int64) map[string]int64 {
	t.Helper()
	var tables []string
	for tb := range before {
		tables = append(tables, tb)
	}
	now := reads(t, db, tables...)
	out := map[string]int64{}
	for tb, n := range before {
		out[tb] = now[tb] - n
	}
	return out
}

// An event's fan-out reads of the events only the one appended (once per
// delivery, the foreign key's check), and of the deliveries only those of
// its own subject.
func TestFanOutReadsItsOwnRowsPostgres(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	db, st, ws, es := outboxSession(t, 2)
	appendOne := func() {
		t.Helper()
		e := porttest.NewEvent(t, ws, domain.ModeLive, domain.EventMessageDelivered, porttest.NewID(domain.PrefixMessage), time.Now())
		if err := st.AppendEvents(ctx, e); err != nil {
			t.Fatalf("AppendEvents: %v", err)
		}
	}
	for range 10 {
		appendOne()
	}
	growOutbox(t, db, ws, es[0].ID, 3000)
	before := reads(t, db, "events", "event_deliveries")
	appendOne()
	if got := since(t, db, before); got["events"] > 2 || got["event_deliveries"] > 2 {
		t.Errorf("appending one event among 3,000 read %v rows; want its own rows only", got)
	}
}

// A claim reads the deliveries it takes, in event_deliveries_due's order,
// and their events; recording an attempt reads its delivery and the later
// ones of its subject.
func TestDeliveryClaimReadsWhatItTakesPostgres(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	db, st, ws, es := outboxSession(t, 1)
	cycle := func(limit int) []ports.ClaimedDelivery {
		t.Helper()
		now := time.Now()
		cs, err := st.ClaimDeliveries(ctx, ports.DeliveryClaim{Owner: "w", Now: now, LeaseUntil: now.Add(time.Minute), Limit: limit})
		if err != nil {
			t.Fatalf("ClaimDeliveries: %v", err)
		}
		return cs
	}
	record := func(c ports.ClaimedDelivery) {
		t.Helper()
		now := time.Now()
		_, err := st.RecordAttempt(ctx, ports.AttemptRecord{Owner: "w", Attempt: c.Attempt,
			DeliveryAttempt: domain.DeliveryAttempt{Event: c.Event.ID, Endpoint: c.Endpoint.ID, At: now, Status: 500},
			State:           domain.DeliveryPending, RetryAt: now.Add(time.Hour)}, func(e *domain.WebhookEndpoint) error {
			e.RecordAttempt(500, now, 0)
			return nil
		})
		if err != nil {
			t.Fatalf("RecordAttempt: %v", err)
		}
	}
	for range 10 {
		e := porttest.NewEvent(t, ws, domain.ModeLive, domain.EventMessageSent, porttest.NewID(domain.PrefixMessage), time.Now())
		if err := st.AppendEvents(ctx, e); err != nil {
			t.Fatal(err)
		}
		for _, c := range cycle(64) {
			record(c)
		}
	}
	growOutbox(t, db, ws, es[0].ID, 3000)

	before := reads(t, db, "events", "event_deliveries")
	const limit = 64
	cs := cycle(limit)
	if len(cs) != limit {
		t.Fatalf("claimed %d deliveries, want %d", len(cs), limit)
	}
	// Each is read to take it, once more to check that nothing of its
	// subject comes before it, and once to lease it.
	if got := since(t, db, before); got["event_deliveries"] > 3*limit || got["events"] > limit {
		t.Errorf("claiming %d of 3,000 due deliveries read %v rows; want at most %d deliveries and %d events", limit, got, 3*limit, limit)
	}
	before = reads(t, db, "events", "event_deliveries", "event_attempts")
	record(cs[0])
	if got := since(t, db, before); got["event_deliveries"] > 2 || got["events"] > 0 || got["event_attempts"] > 0 {
		t.Errorf("recording an attempt read %v rows; want its delivery alone", got)
	}
}

// The sequencer reads the events it sequences, not those sequenced before;
// the pull reads the page it returns.
func TestSequencerReadsWhatItSequencesPostgres(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	db, st, ws, es := outboxSession(t, 1)
	appendSome := func(n int) {
		t.Helper()
		for range n {
			e := porttest.NewEvent(t, ws, domain.ModeLive, domain.EventContactOptedOut, "", time.Now())
			if err := st.AppendEvents(ctx, e); err != nil {
				t.Fatal(err)
			}
		}
	}
	for range 10 {
		appendSome(2)
		if _, err := st.SequenceEvents(ctx, 100); err != nil {
			t.Fatal(err)
		}
		if _, err := st.ListEvents(ctx, ws, domain.ModeLive, ports.EventFilter{Limit: 10}); err != nil {
			t.Fatal(err)
		}
	}
	growOutbox(t, db, ws, es[0].ID, 3000)
	appendSome(20)

	before := reads(t, db, "events")
	if n, err := st.SequenceEvents(ctx, 100); err != nil || n != 20 {
		t.Fatalf("SequenceEvents = %d, %v; want 20", n, err)
	}
	if got := since(t, db, before); got["events"] > 3*20 {
		t.Errorf("sequencing 20 events among 3,000 read %v rows; want at most %d", got, 3*20)
	}
	before = reads(t, db, "events")
	page, err := st.ListEvents(ctx, ws, domain.ModeLive, ports.EventFilter{AfterSeq: 1000, Limit: 10})
	if err != nil || len(page) != 10 {
		t.Fatalf("ListEvents = %d events, %v; want 10", len(page), err)
	}
	if got := since(t, db, before); got["events"] > 10 {
		t.Errorf("a page of 10 events read %v rows; want 10", got)
	}
}
