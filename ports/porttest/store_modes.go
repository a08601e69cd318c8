package porttest

import (
	"testing"
	"time"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// CountMessagesByMode counts one campaign's messages of one workspace by
// the mode of the key that sent them and their current status: sandbox
// traffic is never mixed with what went to Meta.
func testMessageCountByMode(t *testing.T, s Store) {
	f := newFixture(t, s)
	c, other, ct := f.campaign(), f.campaign(), f.contact()
	send := func(c domain.Campaign, mode domain.KeyMode, st domain.MessageStatus) {
		t.Helper()
		m := NewMessage(t, c, ct)
		m.Mode = mode
		if err := s.CreateMessages(f.ctx, m); err != nil {
			t.Fatalf("CreateMessages: %v", err)
		}
		if st != domain.StatusQueued {
			f.advance(m.ID, st, m.CreatedAt.Add(time.Millisecond), nil)
		}
	}
	live, test := domain.ModeLive, domain.ModeTest
	for _, p := range []struct {
		mode domain.KeyMode
		st   domain.MessageStatus
	}{{live, domain.StatusQueued}, {live, domain.StatusRead}, {live, domain.StatusFailed}, {live, domain.StatusFailed},
		{test, domain.StatusRead}, {test, domain.StatusRead}, {test, domain.StatusRead}} {
		send(c, p.mode, p.st)
	}
	send(other, live, domain.StatusRead)

	got, err := s.CountMessagesByMode(f.ctx, f.ws, c.ID)
	if err != nil {
		t.Fatalf("CountMessagesByMode: %v", err)
	}
	want := map[domain.KeyMode]map[domain.MessageStatus]int{
		live: {domain.StatusQueued: 1, domain.StatusRead: 1, domain.StatusFailed: 2},
		test: {domain.StatusRead: 3},
	}
	mustEqual(t, "counts by mode", want, got)

	got, err = s.CountMessagesByMode(f.ctx, f.otherWorkspace(), c.ID)
	if err != nil {
		t.Fatalf("CountMessagesByMode from another workspace: %v", err)
	}
	if len(got) != 0 {
		t.Fatalf("counts from another workspace: %v, want none", got)
	}
}

// An outbound entry reads with the mode of the key that sent its message,
// so a thread can mark what stayed in the sandbox; inbound entries have
// none.
func testEntryOutboundMode(t *testing.T, s Store) {
	f := newFixture(t, s)
	c, ct := f.campaign(), f.contact()
	var want []domain.Entry
	for _, mode := range []domain.KeyMode{domain.ModeLive, domain.ModeTest} {
		m := NewMessage(t, c, ct)
		m.Mode = mode
		if err := s.CreateMessages(f.ctx, m); err != nil {
			t.Fatalf("CreateMessages: %v", err)
		}
		want = append(want, f.entry(NewOutboundEntry(m, ct)))
	}
	want = append(want, f.entry(NewInboundEntry(ct, "thanks")))
	got, _, err := s.ListEntries(f.ctx, f.ws, ct.ID, ports.Page{Limit: 10})
	if err != nil {
		t.Fatalf("ListEntries: %v", err)
	}
	modes := map[domain.EntryID]string{}
	for _, e := range got {
		modes[e.ID] = e.Mode.String()
	}
	mustEqual(t, "modes of the thread's entries",
		map[domain.EntryID]string{want[0].ID: "live", want[1].ID: "test", want[2].ID: ""}, modes)
}
