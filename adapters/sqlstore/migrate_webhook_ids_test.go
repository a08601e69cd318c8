package sqlstore_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/heraldhq/herald/adapters/sqlstore"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/ports/porttest"
)

// Migration 0012 gives the stored webhook calls the prefix whk_, keeping
// the rest of each id: the calls stored before it are found by their new
// ids, in the order they had, and undoing it gives them their old ids back.
func TestMigrationWebhookEventIDs(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, db *sqlx.DB, d sqlstore.Dialect, _ string) {
		ctx := t.Context()
		if err := sqlstore.MigrateTo(ctx, db, d, 11); err != nil {
			t.Fatalf("MigrateTo 11: %v", err)
		}
		received := porttest.Now().Add(-time.Hour)
		var old []string
		for i := range 3 {
			e := porttest.NewWebhookEvent(received.Add(time.Duration(i) * time.Second))
			id := "evt_" + strings.TrimPrefix(string(e.ID), "whk_")
			old = append(old, id)
			if _, err := db.NamedExecContext(ctx, `INSERT INTO webhook_events (id, body, sha256, received_at, applied_at, attempts, last_error)
VALUES (:id, :body, :sha256, :received_at, NULL, 0, '')`,
				map[string]any{"id": id, "body": e.Body, "sha256": e.SHA256, "received_at": e.ReceivedAt}); err != nil {
				t.Fatalf("insert a webhook event of version 11: %v", err)
			}
		}
		if err := sqlstore.Migrate(ctx, db, d); err != nil {
			t.Fatalf("Migrate: %v", err)
		}
		s := sqlstore.New(db, d)
		window := ports.WebhookEventFilter{ReceivedSince: received, ReceivedBefore: received.Add(time.Minute)}
		list, err := s.ListWebhookEvents(ctx, window)
		if err != nil {
			t.Fatalf("ListWebhookEvents: %v", err)
		}
		var got []string
		for _, e := range list {
			got = append(got, string(e.ID))
		}
		slices.Sort(old) // ids made in one millisecond sort by their random part
		var want []string
		for _, id := range old {
			want = append(want, "whk_"+strings.TrimPrefix(id, "evt_"))
		}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Fatalf("webhook events after the migration: %v; want %v, in that order", got, want)
		}
		parsed, err := domain.ParseWebhookEventID(old[1])
		if err != nil {
			t.Fatalf("ParseWebhookEventID(%s): %v", old[1], err)
		}
		if e, err := s.GetWebhookEvent(ctx, parsed); err != nil || string(e.ID) != want[1] {
			t.Fatalf("GetWebhookEvent(%s) by its former id = %s, %v; want %s", parsed, e.ID, err, want[1])
		}
		window.After = domain.WebhookEventID(want[0])
		if after, err := s.ListWebhookEvents(ctx, window); err != nil || len(after) != 2 {
			t.Fatalf("ListWebhookEvents after the first = %d events, %v; want 2", len(after), err)
		}

		for v := latestVersion(t, db, d); v > 11; v-- {
			if err := sqlstore.MigrateDown(ctx, db, d); err != nil {
				t.Fatalf("MigrateDown from %d: %v", v, err)
			}
		}
		var back []string
		if err := db.SelectContext(ctx, &back, `SELECT id FROM webhook_events ORDER BY id`); err != nil {
			t.Fatal(err)
		}
		if strings.Join(back, " ") != strings.Join(old, " ") {
			t.Errorf("webhook event ids after undoing 0012: %v; want %v", back, old)
		}
	})
}

// latestVersion is db's schema version.
func latestVersion(t *testing.T, db *sqlx.DB, d sqlstore.Dialect) int {
	t.Helper()
	current, _, err := sqlstore.Version(t.Context(), db, d)
	if err != nil {
		t.Fatalf("Version: %v", err)
	}
	return current
}
