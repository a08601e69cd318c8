package sqlstore_test

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/heraldhq/herald/adapters/sqlstore"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
	"github.com/heraldhq/herald/ports/porttest"
)

// groupEngines opens a fresh, migrated store on each engine with group
// commit: SQLite only (PostgreSQL runs every transaction alone).
var groupEngines = map[string]func(t *testing.T) (*sqlstore.Store, sqlstore.Dialect){
	"sqlite": func(t *testing.T) (*sqlstore.Store, sqlstore.Dialect) {
		db, _ := newSQLite(t, sqlstore.Config{})
		return sqlstore.New(db, sqlstore.SQLite()), sqlstore.SQLite()
	},
}

// groupFixture is a store whose group-commit runners are all held busy, so
// that transactions started meanwhile queue and then run as one group.
type groupFixture struct {
	t       *testing.T
	s       *sqlstore.Store
	ws      domain.WorkspaceID
	release chan struct{}
	held    sync.WaitGroup
}

func newGroupFixture(t *testing.T, open func(t *testing.T) (*sqlstore.Store, sqlstore.Dialect)) *groupFixture {
	s, d := open(t)
	w := porttest.NewWorkspace(t)
	if err := s.CreateWorkspace(t.Context(), w); err != nil {
		t.Fatalf("CreateWorkspace: %v", err)
	}
	f := &groupFixture{t: t, s: s, ws: w.ID, release: make(chan struct{})}
	started := make(chan struct{})
	for range sqlstore.CommitRunners(d) {
		f.held.Go(func() {
			err := s.WithinTx(t.Context(), func(ctx context.Context, r ports.Repos) error {
				started <- struct{}{}
				<-f.release
				return nil
			})
			if err != nil {
				t.Errorf("holding transaction: %v", err)
			}
		})
		<-started
	}
	t.Cleanup(f.unblock)
	return f
}

// waitQueued waits until n transactions are queued.
func (f *groupFixture) waitQueued(n int) {
	f.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for f.s.Waiting() < n {
		if time.Now().After(deadline) {
			f.t.Fatalf("%d transactions queued after 10s, want %d", f.s.Waiting(), n)
		}
		runtime.Gosched()
	}
}

// unblock lets the held runners finish.
func (f *groupFixture) unblock() {
	select {
	case <-f.release:
	default:
		close(f.release)
	}
	f.held.Wait()
}

func (f *groupFixture) contact() domain.Contact { return porttest.NewContact(f.t, f.ws) }

func (f *groupFixture) exists(c domain.Contact) bool {
	f.t.Helper()
	_, err := f.s.GetContactByPhone(context.Background(), f.ws, c.Mode, c.Phone)
	if err != nil && !errors.Is(err, domain.ErrContactNotFound) {
		f.t.Fatalf("GetContactByPhone: %v", err)
	}
	return err == nil
}

// Transactions that queue behind a running one commit together, and each
// member still succeeds, fails or panics on its own: a failing or panicking
// member leaves nothing, the others are committed by the time they return.
func TestGroupCommitMembersAreIndependent(t *testing.T) {
	t.Parallel()
	for name, open := range groupEngines {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newGroupFixture(t, open)
			const n, failing, panicking = 10, 3, 6
			boom := errors.New("boom")
			contacts := make([]domain.Contact, n)
			txs := make([]any, n)
			errs := make([]error, n)
			panics := make([]any, n)
			committedOnReturn := make([]bool, n)
			var wg sync.WaitGroup
			for i := range n {
				contacts[i] = f.contact()
				wg.Go(func() {
					defer func() { panics[i] = recover() }()
					errs[i] = f.s.WithinTx(t.Context(), func(ctx context.Context, r ports.Repos) error {
						txs[i] = sqlstore.TxOf(r)
						if err := r.Contacts.CreateContact(ctx, contacts[i]); err != nil {
							return err
						}
						switch i {
						case failing:
							return boom
						case panicking:
							panic("member panics")
						}
						return nil
					})
					committedOnReturn[i] = errs[i] == nil && f.exists(contacts[i])
				})
			}
			f.waitQueued(n)
			f.unblock()
			wg.Wait()

			for i := range n {
				if txs[i] != txs[0] {
					t.Fatalf("member %d ran in another transaction than member 0: want one group", i)
				}
				switch i {
				case failing:
					if !errors.Is(errs[i], boom) || f.exists(contacts[i]) {
						t.Errorf("failing member: err %v, stored %v; want boom and nothing stored", errs[i], f.exists(contacts[i]))
					}
				case panicking:
					if panics[i] != "member panics" || f.exists(contacts[i]) {
						t.Errorf("panicking member: panic %v, stored %v; want its panic re-raised and nothing stored", panics[i], f.exists(contacts[i]))
					}
				default:
					if errs[i] != nil || panics[i] != nil || !committedOnReturn[i] {
						t.Errorf("member %d: err %v, panic %v, committed when it returned %v; want nil, nil, true",
							i, errs[i], panics[i], committedOnReturn[i])
					}
				}
			}
		})
	}
}

// A group holds at most MaxBatch members; a longer queue is committed in
// several groups, and every member is committed once.
func TestGroupCommitBoundsGroups(t *testing.T) {
	t.Parallel()
	for name, open := range groupEngines {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newGroupFixture(t, open)
			n := sqlstore.MaxBatch + 36
			var mu sync.Mutex
			members := map[any]int{}
			var wg sync.WaitGroup
			contacts := make([]domain.Contact, n)
			for i := range n {
				contacts[i] = f.contact()
				wg.Go(func() {
					err := f.s.WithinTx(t.Context(), func(ctx context.Context, r ports.Repos) error {
						mu.Lock()
						members[sqlstore.TxOf(r)]++
						mu.Unlock()
						return r.Contacts.CreateContact(ctx, contacts[i])
					})
					if err != nil {
						t.Errorf("member %d: %v", i, err)
					}
				})
			}
			f.waitQueued(n)
			f.unblock()
			wg.Wait()
			total, largest := 0, 0
			for _, m := range members {
				total += m
				largest = max(largest, m)
			}
			if total != n || largest != sqlstore.MaxBatch || len(members) < 2 {
				t.Fatalf("%d members in %d groups, the largest %d; want %d in at least 2, the largest %d",
					total, len(members), largest, n, sqlstore.MaxBatch)
			}
			for i, c := range contacts {
				if !f.exists(c) {
					t.Fatalf("member %d's contact was not committed", i)
				}
			}
		})
	}
}

// When the group's commit fails, every member hears of it, including those
// whose own work succeeded, and nothing of the group is stored. SQLite
// checks deferred foreign keys at COMMIT, which makes a commit fail on
// demand.
func TestGroupCommitFailedCommitFailsEveryMember(t *testing.T) {
	t.Parallel()
	f := newGroupFixture(t, groupEngines["sqlite"])
	orphan := porttest.NewCampaign(t, "wsp_missing")
	const n = 5
	contacts := make([]domain.Contact, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		contacts[i] = f.contact()
		wg.Go(func() {
			errs[i] = f.s.WithinTx(t.Context(), func(ctx context.Context, r ports.Repos) error {
				if err := r.Contacts.CreateContact(ctx, contacts[i]); err != nil {
					return err
				}
				if i != 2 {
					return nil
				}
				if err := sqlstore.DeferForeignKeys(ctx, r); err != nil {
					return err
				}
				return r.Campaigns.CreateCampaign(ctx, orphan) // violates its foreign key at COMMIT
			})
		})
	}
	f.waitQueued(n)
	f.unblock()
	wg.Wait()
	for i := range n {
		if errs[i] == nil || f.exists(contacts[i]) {
			t.Errorf("member %d: err %v, stored %v; want the commit's error and nothing stored", i, errs[i], f.exists(contacts[i]))
		}
	}
}

// A caller whose context ends while its transaction is queued gets the
// context's error at once, and its function never runs.
func TestGroupCommitCallerLeavesTheQueue(t *testing.T) {
	t.Parallel()
	for name, open := range groupEngines {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newGroupFixture(t, open)
			ctx, cancel := context.WithCancel(t.Context())
			ran := false
			done := make(chan error)
			go func() {
				done <- f.s.WithinTx(ctx, func(context.Context, ports.Repos) error { ran = true; return nil })
			}()
			f.waitQueued(1)
			cancel()
			err := <-done
			if !errors.Is(err, context.Canceled) || f.s.Waiting() != 0 {
				t.Fatalf("WithinTx = %v with %d still queued; want context.Canceled and an empty queue", err, f.s.Waiting())
			}
			f.unblock()
			if ran {
				t.Fatal("the function of a transaction that left the queue ran")
			}
		})
	}
}
