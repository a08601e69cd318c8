package porttest

import (
	"errors"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/heraldhq/herald/domain"
)

var messageTests = []storeTest{
	{"RoundTrip", testMessageRoundTrip},
	{"NotFound", testMessageNotFound},
	{"OtherWorkspace", testMessageOtherWorkspace},
	{"Update", testMessageUpdate},
	{"UpdateError", testMessageUpdateError},
	{"ForwardOnlyRace", testMessageForwardOnlyRace},
	{"Locate", testMessageLocate},
	{"CountByStatus", testMessageCountByStatus},
	{"CountFailuresByCode", testMessageCountFailuresByCode},
}

func testMessageRoundTrip(t *testing.T, s Store) {
	f := newFixture(t, s)
	c, ct := f.campaign(), f.contact()
	queued := NewMessage(t, c, ct)

	failed := NewMessage(t, c, ct)
	failed.HeaderFormat = domain.HeaderImage
	failed.MediaHeaderURL = "https://cdn.example.com/banner.png"
	failed.ProviderID = "wamid." + NewID("x")
	failed.WaID = "447700900123"
	failed.Advance(domain.StatusSending, failed.CreatedAt.Add(time.Millisecond), nil)
	failed.Advance(domain.StatusSent, failed.CreatedAt.Add(2*time.Millisecond), nil)
	failed.Advance(domain.StatusFailed, failed.CreatedAt.Add(3*time.Millisecond),
		&domain.Failure{Code: 131026, Title: "Message undeliverable"})

	for _, m := range []domain.Message{queued, failed} {
		if err := s.CreateMessage(f.ctx, m); err != nil {
			t.Fatalf("CreateMessage: %v", err)
		}
		got, err := s.GetMessage(f.ctx, f.ws, m.ID)
		if err != nil {
			t.Fatalf("GetMessage: %v", err)
		}
		mustEqual(t, m.Status.String()+" message", m, got)
	}
}

func testMessageNotFound(t *testing.T, s Store) {
	f := newFixture(t, s)
	id := domain.MessageID(NewID(domain.PrefixMessage))
	_, err := s.GetMessage(f.ctx, f.ws, id)
	mustBe(t, "GetMessage of an unknown id", err, domain.ErrMessageNotFound)
	called := false
	_, err = s.UpdateMessage(f.ctx, f.ws, id, func(*domain.Message) error {
		called = true
		return nil
	})
	mustBe(t, "UpdateMessage of an unknown id", err, domain.ErrMessageNotFound)
	if called {
		t.Fatal("UpdateMessage called fn for an unknown message")
	}
	_, err = s.LocateMessage(f.ctx, id, "")
	mustBe(t, "LocateMessage of an unknown id", err, domain.ErrMessageNotFound)
	_, err = s.LocateMessage(f.ctx, "", "wamid."+NewID("x"))
	mustBe(t, "LocateMessage of an unknown provider id", err, domain.ErrMessageNotFound)
	_, err = s.LocateMessage(f.ctx, "", "")
	mustBe(t, "LocateMessage of nothing", err, domain.ErrMessageNotFound)
}

func testMessageOtherWorkspace(t *testing.T, s Store) {
	f := newFixture(t, s)
	m := f.message(f.campaign(), f.contact())
	other := f.otherWorkspace()
	_, err := s.GetMessage(f.ctx, other, m.ID)
	mustBe(t, "GetMessage from another workspace", err, domain.ErrMessageNotFound)
	called := false
	_, err = s.UpdateMessage(f.ctx, other, m.ID, func(m *domain.Message) error {
		called = true
		m.Advance(domain.StatusSent, Now(), nil)
		return nil
	})
	mustBe(t, "UpdateMessage from another workspace", err, domain.ErrMessageNotFound)
	if called {
		t.Fatal("UpdateMessage called fn for another workspace's message")
	}
	got, err := s.GetMessage(f.ctx, f.ws, m.ID)
	if err != nil {
		t.Fatalf("GetMessage: %v", err)
	}
	mustEqual(t, "message after a foreign update", m, got)
}

func testMessageUpdate(t *testing.T, s Store) {
	f := newFixture(t, s)
	m := f.message(f.campaign(), f.contact())
	at := m.CreatedAt.Add(time.Second)
	apply := func(m *domain.Message) error {
		m.ProviderID = "wamid.ABC"
		m.WaID = "447700900123"
		m.Advance(domain.StatusSending, at, nil)
		m.Advance(domain.StatusSent, at.Add(time.Millisecond), nil)
		m.Advance(domain.StatusRead, at.Add(3*time.Millisecond), nil)
		m.Advance(domain.StatusDelivered, at.Add(2*time.Millisecond), nil) // late: history only
		return nil
	}
	want := cloneMessage(m)
	_ = apply(&want)
	got, err := s.UpdateMessage(f.ctx, f.ws, m.ID, apply)
	if err != nil {
		t.Fatalf("UpdateMessage: %v", err)
	}
	mustEqual(t, "UpdateMessage result", want, got)
	read, err := s.GetMessage(f.ctx, f.ws, m.ID)
	if err != nil {
		t.Fatalf("GetMessage: %v", err)
	}
	mustEqual(t, "updated message read back", want, read)
	if read.Status != domain.StatusRead {
		t.Fatalf("status = %v, want read", read.Status)
	}
}

func testMessageUpdateError(t *testing.T, s Store) {
	f := newFixture(t, s)
	m := f.message(f.campaign(), f.contact())
	boom := errors.New("boom")
	_, err := s.UpdateMessage(f.ctx, f.ws, m.ID, func(m *domain.Message) error {
		m.Variables[0] = "changed"
		m.History[0].At = m.History[0].At.Add(time.Hour)
		m.ProviderID = "wamid.changed"
		m.Advance(domain.StatusFailed, Now(), &domain.Failure{Code: 1, Title: "changed"})
		return boom
	})
	mustBe(t, "UpdateMessage with a failing fn", err, boom)
	got, err := s.GetMessage(f.ctx, f.ws, m.ID)
	if err != nil {
		t.Fatalf("GetMessage: %v", err)
	}
	mustEqual(t, "message after a failed update", m, got)
	_, err = s.LocateMessage(f.ctx, "", "wamid.changed")
	mustBe(t, "LocateMessage by a provider id that was never stored", err, domain.ErrMessageNotFound)
}

// testMessageForwardOnlyRace has 20 goroutines advance one message at once.
// Every update must land (read-modify-write is atomic), the history must
// hold each status once, and the status must be one that forward-only rules
// allow for the statuses applied.
func testMessageForwardOnlyRace(t *testing.T, s Store) {
	f := newFixture(t, s)
	m := f.message(f.campaign(), f.contact())
	choices := []domain.MessageStatus{domain.StatusSent, domain.StatusDelivered, domain.StatusRead, domain.StatusFailed}
	const n = 20
	statuses := make([]domain.MessageStatus, n)
	for i := range statuses {
		statuses[i] = choices[rand.IntN(len(choices))]
	}
	results := make([]domain.Message, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			at := m.CreatedAt.Add(time.Duration(i+1) * time.Millisecond)
			results[i], errs[i] = f.s.UpdateMessage(f.ctx, f.ws, m.ID, func(m *domain.Message) error {
				var failure *domain.Failure
				if statuses[i] == domain.StatusFailed {
					failure = &domain.Failure{Code: 131026, Title: "Message undeliverable"}
				}
				m.Advance(statuses[i], at, failure)
				return nil
			})
		})
	}
	wg.Wait()

	applied := map[domain.MessageStatus]bool{domain.StatusQueued: true}
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("UpdateMessage: %v", errs[i])
		}
		if !hasStatus(results[i].History, statuses[i]) {
			t.Fatalf("update %d (%v) returned a history without its own status: %v", i, statuses[i], results[i].History)
		}
		applied[statuses[i]] = true
	}
	got, err := s.GetMessage(f.ctx, f.ws, m.ID)
	if err != nil {
		t.Fatalf("GetMessage: %v", err)
	}
	seen := map[domain.MessageStatus]bool{}
	for _, h := range got.History {
		if seen[h.Status] {
			t.Fatalf("status %v appears twice in the history %v", h.Status, got.History)
		}
		seen[h.Status] = true
	}
	mustEqual(t, "statuses in the history (lost update?)", applied, seen)

	var legal []domain.MessageStatus
	switch {
	case applied[domain.StatusRead] || applied[domain.StatusFailed]:
		for _, st := range []domain.MessageStatus{domain.StatusRead, domain.StatusFailed} {
			if applied[st] {
				legal = append(legal, st)
			}
		}
	case applied[domain.StatusDelivered]:
		legal = []domain.MessageStatus{domain.StatusDelivered}
	default:
		legal = []domain.MessageStatus{domain.StatusSent}
	}
	ok := false
	for _, st := range legal {
		ok = ok || got.Status == st
	}
	if !ok {
		t.Fatalf("status = %v after applying %v; want one of %v", got.Status, statuses, legal)
	}
	if (got.Status == domain.StatusFailed) != (got.Failure != nil) {
		t.Fatalf("status %v with failure %+v", got.Status, got.Failure)
	}
}

func hasStatus(h []domain.StatusChange, s domain.MessageStatus) bool {
	for _, c := range h {
		if c.Status == s {
			return true
		}
	}
	return false
}

// LocateMessage looks across workspaces, by id or by provider id.
func testMessageLocate(t *testing.T, s Store) {
	f := newFixture(t, s)
	m := f.message(f.campaign(), f.contact())
	providerID := "wamid." + NewID("x")
	m, err := s.UpdateMessage(f.ctx, f.ws, m.ID, func(m *domain.Message) error {
		m.ProviderID = providerID
		m.WaID = "919812345678"
		m.Advance(domain.StatusSent, m.CreatedAt.Add(time.Millisecond), nil)
		return nil
	})
	if err != nil {
		t.Fatalf("UpdateMessage: %v", err)
	}
	got, err := s.LocateMessage(f.ctx, m.ID, "")
	if err != nil {
		t.Fatalf("LocateMessage by id: %v", err)
	}
	mustEqual(t, "message located by id", m, got)
	got, err = s.LocateMessage(f.ctx, "", providerID)
	if err != nil {
		t.Fatalf("LocateMessage by provider id: %v", err)
	}
	mustEqual(t, "message located by provider id", m, got)
	got, err = s.LocateMessage(f.ctx, m.ID, providerID)
	if err != nil {
		t.Fatalf("LocateMessage by both: %v", err)
	}
	mustEqual(t, "message located by both", m, got)
}

// CountMessagesByStatus counts by current status, for one campaign of one
// workspace. Statuses without messages may be absent or zero.
func testMessageCountByStatus(t *testing.T, s Store) {
	f := newFixture(t, s)
	c, other, ct := f.campaign(), f.campaign(), f.contact()
	plan := []domain.MessageStatus{
		domain.StatusQueued, domain.StatusQueued, domain.StatusQueued,
		domain.StatusSent, domain.StatusSent, domain.StatusRead, domain.StatusFailed,
	}
	want := map[domain.MessageStatus]int{}
	for _, st := range plan {
		m := f.message(c, ct)
		if st != domain.StatusQueued {
			f.advance(m.ID, st, m.CreatedAt.Add(time.Millisecond), nil)
		}
		want[st]++
	}
	f.message(other, ct)
	m := f.message(other, ct)
	f.advance(m.ID, domain.StatusDelivered, m.CreatedAt.Add(time.Millisecond), nil)

	got, err := s.CountMessagesByStatus(f.ctx, f.ws, c.ID)
	if err != nil {
		t.Fatalf("CountMessagesByStatus: %v", err)
	}
	mustEqual(t, "counts", want, nonZero(got))

	got, err = s.CountMessagesByStatus(f.ctx, f.otherWorkspace(), c.ID)
	if err != nil {
		t.Fatalf("CountMessagesByStatus from another workspace: %v", err)
	}
	mustEqual(t, "counts from another workspace", map[domain.MessageStatus]int{}, nonZero(got))
}

// CountFailuresByCode counts one campaign's failed messages per code, with
// 0 for failures without one; other statuses and campaigns are not counted.
func testMessageCountFailuresByCode(t *testing.T, s Store) {
	f := newFixture(t, s)
	c, other, ct := f.campaign(), f.campaign(), f.contact()
	for _, code := range []int{131026, 131026, 131049, 0} {
		m := f.message(c, ct)
		var failure *domain.Failure
		if code != 0 {
			failure = &domain.Failure{Code: code, Title: "t"}
		}
		f.advance(m.ID, domain.StatusFailed, m.CreatedAt.Add(time.Millisecond), failure)
	}
	sent := f.message(c, ct)
	f.advance(sent.ID, domain.StatusSent, sent.CreatedAt.Add(time.Millisecond), nil)
	elsewhere := f.message(other, ct)
	f.advance(elsewhere.ID, domain.StatusFailed, elsewhere.CreatedAt.Add(time.Millisecond), &domain.Failure{Code: 132001})

	got, err := s.CountFailuresByCode(f.ctx, f.ws, c.ID)
	if err != nil {
		t.Fatalf("CountFailuresByCode: %v", err)
	}
	mustEqual(t, "failures by code", map[int]int{131026: 2, 131049: 1, 0: 1}, got)
	got, err = s.CountFailuresByCode(f.ctx, f.otherWorkspace(), c.ID)
	if err != nil || len(got) != 0 {
		t.Fatalf("failures seen from another workspace: %v %v", got, err)
	}
}

func nonZero(m map[domain.MessageStatus]int) map[domain.MessageStatus]int {
	out := map[domain.MessageStatus]int{}
	for k, v := range m {
		if v != 0 {
			out[k] = v
		}
	}
	return out
}
