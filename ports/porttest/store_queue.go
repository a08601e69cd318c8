package porttest

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// queueTests run one after another, before every other case (see RunStore).
// ClaimMessages looks across workspaces, so a claim may return messages of
// earlier cases, or of whatever the store held before; each case asserts only
// about its own messages.
var queueTests = []storeTest{
	{"ClaimOnce", testQueueClaimOnce},
	{"OldestFirst", testQueueOldestFirst},
	{"CreateMany", testQueueCreateMany},
	{"ConcurrentClaimers", testQueueConcurrentClaimers},
	{"ReleaseDone", testQueueReleaseDone},
	{"ReleaseRetry", testQueueReleaseRetry},
	{"ReleaseByOther", testQueueReleaseByOther},
	{"ExpiredLease", testQueueExpiredLease},
	{"ReleaseStaleAttempt", testQueueReleaseStaleAttempt},
	{"Renew", testQueueRenew},
	{"DocumentNameSurvivesClaim", testQueueDocumentNameSurvivesClaim},
	{"Stats", testQueueStats},
}

const lease = time.Minute

// claimOwn claims and returns, in the order the store gave them, only the
// claimed messages whose ids are in own.
func claimOwn(t *testing.T, s Store, c ports.Claim, own map[domain.MessageID]bool) []ports.Claimed {
	t.Helper()
	all, err := s.ClaimMessages(t.Context(), c)
	if err != nil {
		t.Fatalf("ClaimMessages: %v", err)
	}
	if len(all) > c.Limit {
		t.Fatalf("ClaimMessages returned %d messages, over the limit of %d", len(all), c.Limit)
	}
	var mine []ports.Claimed
	for _, cl := range all {
		if own[cl.Message.ID] {
			mine = append(mine, cl)
		}
	}
	return mine
}

func claim(owner string, now time.Time) ports.Claim {
	return ports.Claim{Owner: owner, Now: now, LeaseUntil: now.Add(lease), Limit: 1000}
}

func ids(ms ...domain.Message) map[domain.MessageID]bool {
	out := map[domain.MessageID]bool{}
	for _, m := range ms {
		out[m.ID] = true
	}
	return out
}

// mustClaimOne claims and expects exactly m among the results, at attempt.
func mustClaimOne(t *testing.T, s Store, c ports.Claim, m domain.Message, attempt int) ports.Claimed {
	t.Helper()
	got := claimOwn(t, s, c, ids(m))
	if len(got) != 1 {
		t.Fatalf("claim by %s at %v returned %d of our messages, want 1", c.Owner, c.Now, len(got))
	}
	if got[0].Attempt != attempt {
		t.Fatalf("claim by %s: attempt %d, want %d", c.Owner, got[0].Attempt, attempt)
	}
	checkSending(t, got[0].Message)
	return got[0]
}

func mustClaimNone(t *testing.T, s Store, c ports.Claim, m domain.Message) {
	t.Helper()
	if got := claimOwn(t, s, c, ids(m)); len(got) != 0 {
		t.Fatalf("claim by %s at %v returned our message (attempt %d), want none", c.Owner, c.Now, got[0].Attempt)
	}
}

// checkSending checks that a claimed message is sending, with sending once
// in its history.
func checkSending(t *testing.T, m domain.Message) {
	t.Helper()
	if m.Status != domain.StatusSending {
		t.Fatalf("claimed message is %v, want sending", m.Status)
	}
	n := 0
	for _, h := range m.History {
		if h.Status == domain.StatusSending {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("claimed message has sending %d times in its history %v, want once", n, m.History)
	}
}

// A new message is due from its creation on; a claim leases it, moves it to
// sending, and no other claim gets it while the lease lasts.
func testQueueClaimOnce(t *testing.T, s Store) {
	f := newFixture(t, s)
	m := f.message(f.campaign(), f.contact())
	mustClaimNone(t, s, claim("before", m.CreatedAt.Add(-time.Minute)), m)

	now := Now()
	got := mustClaimOne(t, s, claim("a", now), m, 1)
	want := cloneMessage(m)
	want.Advance(domain.StatusSending, now, nil)
	mustEqual(t, "claimed message", want, got.Message)
	stored, err := s.GetMessage(f.ctx, f.ws, m.ID)
	if err != nil {
		t.Fatalf("GetMessage: %v", err)
	}
	mustEqual(t, "claimed message read back", want, stored)

	mustClaimNone(t, s, claim("b", now.Add(time.Second)), m)
	mustClaimNone(t, s, claim("a", now.Add(time.Second)), m)
}

// Claims hand out due messages oldest first, and never more than Limit.
func testQueueOldestFirst(t *testing.T, s Store) {
	f := newFixture(t, s)
	c, ct := f.campaign(), f.contact()
	var ms []domain.Message
	for range 4 {
		ms = append(ms, f.message(c, ct))
		time.Sleep(2 * time.Millisecond) // distinct creation times
	}
	own := ids(ms...)
	now := Now()
	cl := claim("a", now)
	cl.Limit = 2
	got := claimOwn(t, s, cl, own)
	got = append(got, claimOwn(t, s, claim("a", now), own)...)
	var order []domain.MessageID
	for _, g := range got {
		order = append(order, g.Message.ID)
	}
	want := []domain.MessageID{ms[0].ID, ms[1].ID, ms[2].ID, ms[3].ID}
	mustEqual(t, "claim order", want, order)
}

// Each message of one CreateMessages call is due from its own creation
// time; a call refused as a conflict queues none of its messages.
func testQueueCreateMany(t *testing.T, s Store) {
	f := newFixture(t, s)
	c, ct := f.campaign(), f.contact()
	base := Now()
	var ms []domain.Message
	for i := range 3 {
		m := NewMessage(t, c, ct)
		at := base.Add(time.Duration(i) * time.Second)
		m.CreatedAt, m.UpdatedAt, m.History[0].At = at, at, at
		ms = append(ms, m)
	}
	if err := s.CreateMessages(f.ctx, ms[2], ms[0], ms[1]); err != nil {
		t.Fatalf("CreateMessages: %v", err)
	}
	own := ids(ms...)
	if got := claimOwn(t, s, claim("a", base.Add(-time.Millisecond)), own); len(got) != 0 {
		t.Fatalf("claim before the first creation returned %d of our messages, want none", len(got))
	}
	var order []domain.MessageID
	for _, g := range claimOwn(t, s, claim("a", base.Add(1500*time.Millisecond)), own) {
		checkSending(t, g.Message)
		order = append(order, g.Message.ID)
	}
	mustEqual(t, "messages due after 1.5s", []domain.MessageID{ms[0].ID, ms[1].ID}, order)
	mustClaimOne(t, s, claim("a", base.Add(2*time.Second)), ms[2], 1)

	refused := NewMessage(t, c, ct)
	mustBe(t, "CreateMessages with an id stored already", s.CreateMessages(f.ctx, refused, ms[0]), domain.ErrConflict)
	mustClaimNone(t, s, claim("b", base.Add(365*24*time.Hour)), refused)
}

// Two dispatchers claiming at once never get the same message, and together
// they get all of them.
func testQueueConcurrentClaimers(t *testing.T, s Store) {
	f := newFixture(t, s)
	c, ct := f.campaign(), f.contact()
	var ms []domain.Message
	for range 40 {
		ms = append(ms, f.message(c, ct))
	}
	own := ids(ms...)
	now := Now()
	var mu sync.Mutex
	claimedBy := map[domain.MessageID][]string{}
	errs := make(chan error, 2)
	var wg sync.WaitGroup
	for _, owner := range []string{"a", "b"} {
		wg.Go(func() {
			for {
				got, err := s.ClaimMessages(f.ctx, ports.Claim{Owner: owner, Now: now, LeaseUntil: now.Add(lease), Limit: 5})
				if err != nil {
					errs <- err
					return
				}
				if len(got) == 0 {
					return
				}
				mu.Lock()
				for _, g := range got {
					if own[g.Message.ID] {
						claimedBy[g.Message.ID] = append(claimedBy[g.Message.ID], owner)
					}
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("ClaimMessages: %v", err)
	}
	for _, m := range ms {
		switch owners := claimedBy[m.ID]; len(owners) {
		case 0:
			t.Errorf("message %s was never claimed", m.ID)
		case 1:
		default:
			t.Errorf("message %s was claimed by %v", m.ID, owners)
		}
	}
}

// A release without retry time ends the message's time in the queue.
func testQueueReleaseDone(t *testing.T, s Store) {
	f := newFixture(t, s)
	m := f.message(f.campaign(), f.contact())
	now := Now()
	got := mustClaimOne(t, s, claim("a", now), m, 1)
	if err := s.ReleaseMessage(f.ctx, m.ID, "a", 1, nil); err != nil {
		t.Fatalf("ReleaseMessage: %v", err)
	}
	stored, err := s.GetMessage(f.ctx, f.ws, m.ID)
	if err != nil {
		t.Fatalf("GetMessage: %v", err)
	}
	mustEqual(t, "message after release", got.Message, stored)
	mustClaimNone(t, s, claim("b", now.Add(time.Second)), m)
	mustClaimNone(t, s, claim("b", now.Add(365*24*time.Hour)), m)
}

// A release with a retry time makes the message due again then, and the
// next claim is the next attempt.
func testQueueReleaseRetry(t *testing.T, s Store) {
	f := newFixture(t, s)
	m := f.message(f.campaign(), f.contact())
	now := Now()
	mustClaimOne(t, s, claim("a", now), m, 1)
	retryAt := now.Add(10 * time.Minute)
	if err := s.ReleaseMessage(f.ctx, m.ID, "a", 1, &retryAt); err != nil {
		t.Fatalf("ReleaseMessage: %v", err)
	}
	mustClaimNone(t, s, claim("b", retryAt.Add(-time.Second)), m)
	mustClaimOne(t, s, claim("b", retryAt), m, 2)
}

// A release by anyone but the lease holder changes nothing.
func testQueueReleaseByOther(t *testing.T, s Store) {
	f := newFixture(t, s)
	m := f.message(f.campaign(), f.contact())
	now := Now()
	mustClaimOne(t, s, claim("a", now), m, 1)
	if err := s.ReleaseMessage(f.ctx, m.ID, "intruder", 1, nil); !errors.Is(err, ports.ErrLeaseLost) {
		t.Errorf("release by another owner: %v, want ErrLeaseLost", err)
	}
	early := now
	if err := s.ReleaseMessage(f.ctx, m.ID, "intruder", 1, &early); !errors.Is(err, ports.ErrLeaseLost) {
		t.Errorf("release by another owner: %v, want ErrLeaseLost", err)
	}
	mustClaimNone(t, s, claim("b", now.Add(time.Second)), m)
	// The lease still ends on time, and the message is still due.
	mustClaimOne(t, s, claim("b", now.Add(lease+time.Second)), m, 2)
}

// An expired lease can be claimed by another dispatcher; the first one's
// late release then changes nothing.
func testQueueExpiredLease(t *testing.T, s Store) {
	f := newFixture(t, s)
	m := f.message(f.campaign(), f.contact())
	now := Now()
	mustClaimOne(t, s, claim("a", now), m, 1)
	second := now.Add(lease + time.Second)
	mustClaimOne(t, s, claim("b", second), m, 2)
	if err := s.ReleaseMessage(f.ctx, m.ID, "a", 1, nil); !errors.Is(err, ports.ErrLeaseLost) { // a former holder
		t.Errorf("release by a former holder: %v, want ErrLeaseLost", err)
	}
	mustClaimNone(t, s, claim("c", second.Add(time.Second)), m)
	third := second.Add(lease + time.Second)
	mustClaimOne(t, s, claim("c", third), m, 3)
	if err := s.ReleaseMessage(f.ctx, m.ID, "c", 3, nil); err != nil {
		t.Fatalf("ReleaseMessage: %v", err)
	}
	mustClaimNone(t, s, claim("d", third.Add(365*24*time.Hour)), m)
}

// A release is fenced by attempt too: a dispatcher whose own lease expired
// and which claimed the message again cannot end the new attempt with the
// old attempt's outcome.
func testQueueReleaseStaleAttempt(t *testing.T, s Store) {
	f := newFixture(t, s)
	m := f.message(f.campaign(), f.contact())
	now := Now()
	mustClaimOne(t, s, claim("a", now), m, 1)
	again := now.Add(lease + time.Second)
	mustClaimOne(t, s, claim("a", again), m, 2)
	if err := s.ReleaseMessage(f.ctx, m.ID, "a", 1, nil); !errors.Is(err, ports.ErrLeaseLost) {
		t.Fatalf("release of a stale attempt: %v, want ErrLeaseLost", err)
	}
	mustClaimNone(t, s, claim("b", again.Add(time.Second)), m)
	if err := s.ReleaseMessage(f.ctx, m.ID, "a", 2, nil); err != nil {
		t.Fatalf("release of the current attempt: %v", err)
	}
}

// Renewing a lease keeps other dispatchers away until the new end.
func testQueueRenew(t *testing.T, s Store) {
	f := newFixture(t, s)
	m := f.message(f.campaign(), f.contact())
	now := Now()
	mustClaimOne(t, s, claim("a", now), m, 1)
	if err := s.RenewLeases(f.ctx, "intruder", []domain.MessageID{m.ID}, now.Add(100*lease)); err != nil {
		t.Fatalf("RenewLeases by another owner: %v", err)
	}
	until := now.Add(3 * lease)
	if err := s.RenewLeases(f.ctx, "a", []domain.MessageID{m.ID}, until); err != nil {
		t.Fatalf("RenewLeases: %v", err)
	}
	mustClaimNone(t, s, claim("b", now.Add(lease+time.Second)), m)
	mustClaimNone(t, s, claim("b", until.Add(-time.Second)), m)
	mustClaimOne(t, s, claim("b", until.Add(time.Second)), m, 2)
}

// QueueStats counts a new message as waiting, and no longer once it is
// released for good; its due time bounds the oldest. Earlier cases' messages
// may still wait, so the case checks what changed.
func testQueueStats(t *testing.T, s Store) {
	f := newFixture(t, s)
	before, err := s.QueueStats(f.ctx)
	if err != nil {
		t.Fatalf("QueueStats: %v", err)
	}
	m := f.message(f.campaign(), f.contact())
	during, err := s.QueueStats(f.ctx)
	if err != nil {
		t.Fatalf("QueueStats: %v", err)
	}
	if during.Depth != before.Depth+1 {
		t.Fatalf("depth %d after a message was accepted, want %d", during.Depth, before.Depth+1)
	}
	if during.OldestDue.IsZero() || during.OldestDue.After(m.CreatedAt) {
		t.Errorf("oldest due %v, want at or before the new message's %v", during.OldestDue, m.CreatedAt)
	}
	now := Now()
	mustClaimOne(t, s, claim("a", now), m, 1)
	if st, _ := s.QueueStats(f.ctx); st.Depth != during.Depth {
		t.Errorf("depth %d while the message is being sent, want %d (still waiting for its outcome)", st.Depth, during.Depth)
	}
	if err := s.ReleaseMessage(f.ctx, m.ID, "a", 1, nil); err != nil {
		t.Fatalf("ReleaseMessage: %v", err)
	}
	// Released for good, but its status is still sending until the
	// outcome is recorded: mark it sent as the dispatcher would.
	if _, err := s.UpdateMessage(f.ctx, m.Workspace, m.ID, func(m *domain.Message) error {
		m.Advance(domain.StatusSent, now, nil)
		return nil
	}); err != nil {
		t.Fatalf("UpdateMessage: %v", err)
	}
	after, err := s.QueueStats(f.ctx)
	if err != nil {
		t.Fatalf("QueueStats: %v", err)
	}
	if after.Depth != before.Depth {
		t.Errorf("depth %d after the message was sent, want %d", after.Depth, before.Depth)
	}
	if after.Depth == 0 && !after.OldestDue.IsZero() {
		t.Errorf("an empty queue's oldest due is %v, want zero", after.OldestDue)
	}
}
