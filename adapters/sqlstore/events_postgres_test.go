package sqlstore_test

import (
	"context"
	"testing"

	"github.com/heraldhq/herald/adapters/sqlstore"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/ports/porttest"
)

// A reader paging through events never skips one whose transaction
// committed after later events were read: the event appended first, by a
// transaction still open, is not sequenced (nor listed) until it commits,
// and then comes after the cursor. PostgreSQL only: SQLite's one writer
// cannot commit one transaction while another is open.
func TestPullNeverSkipsALateCommitPostgres(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := sqlstore.New(newPostgres(t, true), sqlstore.Postgres())
	ws := porttest.NewWorkspace(t)
	if err := s.CreateWorkspace(ctx, ws); err != nil {
		t.Fatal(err)
	}
	early := porttest.NewEvent(t, ws.ID, domain.ModeLive, domain.EventMessageSent, porttest.NewID(domain.PrefixMessage), porttest.Now())
	late := porttest.NewEvent(t, ws.ID, domain.ModeLive, domain.EventMessageSent, porttest.NewID(domain.PrefixMessage), porttest.Now())

	appended, release, committed := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	go func() {
		committed <- s.WithinTx(ctx, func(ctx context.Context, r ports.Repos) error {
			if err := r.Events.AppendEvents(ctx, early); err != nil {
				return err
			}
			close(appended)
			<-release
			return nil
		})
	}()
	<-appended
	if err := s.AppendEvents(ctx, late); err != nil {
		t.Fatalf("AppendEvents: %v", err)
	}
	sequence := func() {
		t.Helper()
		if n, err := s.SequenceEvents(ctx, 100); err != nil || n != 1 {
			t.Fatalf("SequenceEvents = %d, %v; want the one committed event", n, err)
		}
	}
	sequence()
	page, err := s.ListEvents(ctx, ws.ID, domain.ModeLive, ports.EventFilter{})
	if err != nil || len(page) != 1 || page[0].ID != late.ID {
		close(release)
		t.Fatalf("first page: %v, %v; want only the committed event", page, err)
	}
	close(release)
	if err := <-committed; err != nil {
		t.Fatalf("the early transaction: %v", err)
	}
	sequence()
	next, err := s.ListEvents(ctx, ws.ID, domain.ModeLive, ports.EventFilter{AfterSeq: page[0].Seq})
	if err != nil || len(next) != 1 || next[0].ID != early.ID {
		t.Fatalf("the page after the cursor: %v, %v; want the event that committed late", next, err)
	}
}
