package sqlstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/heraldhq/herald/adapters/sqlstore"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/ports/porttest"
)

// TestOptOutAndReleaseMeetOnPostgres: a STOP that commits while a
// dispatcher records the outcome of a send that did not go (released for a
// retry) never leaves the message waiting. The dispatcher's transaction
// releases the message (locking it) and then reads the contact; the
// opt-out's transaction opts the contact out and then fails the contact's
// waiting messages, locking them, those under a lease too. Whichever takes
// the message's row first, the other waits for it, and the message ends
// failed with the opt-out. (SQLite runs write transactions one at a time.)
func TestOptOutAndReleaseMeetOnPostgres(t *testing.T) {
	t.Parallel()
	for _, releaseFirst := range []bool{true, false} {
		name := "opt-out first"
		if releaseFirst {
			name = "release first"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			db := newPostgres(t, true)
			s := sqlstore.New(db, sqlstore.Postgres())
			ctx := t.Context()
			ws := porttest.NewWorkspace(t)
			camp, ct := porttest.NewCampaign(t, ws.ID), porttest.NewContact(t, ws.ID)
			m := porttest.NewMessage(t, camp, ct)
			for _, err := range []error{s.CreateWorkspace(ctx, ws), s.CreateCampaign(ctx, camp), s.CreateContact(ctx, ct),
				s.CreateMessages(ctx, m), s.AppendEntries(ctx, porttest.NewOutboundEntry(m, ct))} {
				if err != nil {
					t.Fatal(err)
				}
			}
			now := porttest.Now()
			if got, err := s.ClaimMessages(ctx, ports.Claim{Owner: "a", Now: now, LeaseUntil: now.Add(time.Minute), Limit: 10}); err != nil || len(got) != 1 {
				t.Fatalf("ClaimMessages: %v %v", got, err)
			}
			retryAt := now.Add(time.Hour)

			// The dispatcher's record: release for a retry, then read the
			// contact and fail what waits if they opted out.
			record := func(locked, proceed chan struct{}) error {
				return s.WithinTx(ctx, func(ctx context.Context, r ports.Repos) error {
					if err := r.Queue.ReleaseMessage(ctx, m.ID, "a", 1, &retryAt); err != nil {
						return err
					}
					close(locked)
					<-proceed
					c, err := r.Contacts.GetContact(ctx, ws.ID, ct.ID)
					if err != nil || !c.OptedOut {
						return err
					}
					_, err = r.Queue.FailQueuedMessages(ctx, c, now)
					return err
				})
			}
			// The STOP: opt out, then fail what waits.
			stop := func(locked, proceed chan struct{}) error {
				return s.WithinTx(ctx, func(ctx context.Context, r ports.Repos) error {
					c, err := r.Contacts.UpdateContact(ctx, ws.ID, ct.ID, func(c *domain.Contact) error {
						c.SetOptOut(true, now, now)
						return nil
					})
					if err != nil {
						return err
					}
					if _, err := r.Queue.FailQueuedMessages(ctx, c, now); err != nil {
						return err
					}
					close(locked)
					<-proceed
					return nil
				})
			}
			first, second := record, stop
			if !releaseFirst {
				first, second = stop, record
			}
			locked, proceed := make(chan struct{}), make(chan struct{})
			firstDone, secondDone := make(chan error, 1), make(chan error, 1)
			go func() { firstDone <- first(locked, proceed) }()
			<-locked
			go func() { secondDone <- second(make(chan struct{}), closed()) }()
			awaitLockWait(t, db) // the second waits for the first's row lock
			close(proceed)
			for _, done := range []chan error{firstDone, secondDone} {
				if err := <-done; err != nil {
					t.Fatal(err)
				}
			}
			got, err := s.GetMessage(ctx, ws.ID, m.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.Status != domain.StatusFailed || got.Failure == nil || got.Failure.HeraldCode != domain.CodeContactOptedOut {
				t.Fatalf("message after both: %v %+v, want failed with contact_opted_out", got.Status, got.Failure)
			}
			if cl, err := s.ClaimMessages(ctx, ports.Claim{Owner: "b", Now: retryAt, LeaseUntil: retryAt.Add(time.Minute), Limit: 10}); err != nil || len(cl) != 0 {
				t.Fatalf("claimed after both: %v %v, want nothing", cl, err)
			}
		})
	}
}

func closed() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}

// awaitLockWait waits until a session of db's database waits for a lock:
// PostgreSQL's own report is the signal. Bounded.
func awaitLockWait(t *testing.T, db *sqlx.DB) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var n int
		if err := db.GetContext(t.Context(), &n, `SELECT count(*) FROM pg_stat_activity
WHERE datname = current_database() AND wait_event_type = 'Lock'`); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("no transaction waited for a lock within 10s")
		}
		time.Sleep(5 * time.Millisecond) // PostgreSQL reports waits only when asked
	}
}
