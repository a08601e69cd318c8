package porttest

import (
	"fmt"
	"testing"
	"time"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

var conversationTests = []storeTest{
	{"RoundTrip", testEntryRoundTrip},
	{"OutboundStatus", testEntryOutboundStatus},
	{"UnknownContact", testEntriesUnknownContact},
	{"OtherWorkspace", testEntriesOtherWorkspace},
	{"List", testEntriesList},
}

func testEntryRoundTrip(t *testing.T, s Store) {
	f := newFixture(t, s)
	ct := f.contact()
	m := f.message(f.campaign(), ct)
	out := f.entry(NewOutboundEntry(m, ct))
	in := f.entry(NewInboundEntry(ct, "Thanks! 👍"))
	got, cursor, err := s.ListEntries(f.ctx, f.ws, ct.ID, ports.Page{Limit: 10})
	if err != nil {
		t.Fatalf("ListEntries: %v", err)
	}
	want := []domain.Entry{out, in}
	if in.ID > out.ID {
		want = []domain.Entry{in, out}
	}
	mustEqual(t, "entries", want, got)
	if cursor != "" {
		t.Fatalf("cursor = %q on the only page, want empty", cursor)
	}
}

// Outbound entries carry their message's current status when read.
func testEntryOutboundStatus(t *testing.T, s Store) {
	f := newFixture(t, s)
	ct := f.contact()
	m := f.message(f.campaign(), ct)
	e := f.entry(NewOutboundEntry(m, ct))
	f.advance(m.ID, domain.StatusDelivered, m.CreatedAt.Add(time.Millisecond), nil)
	got, _, err := s.ListEntries(f.ctx, f.ws, ct.ID, ports.Page{Limit: 10})
	if err != nil {
		t.Fatalf("ListEntries: %v", err)
	}
	e.Status = domain.StatusDelivered
	mustEqual(t, "entries", []domain.Entry{e}, got)
}

// ListEntries of a contact that does not exist is an empty page, not an
// error: the caller checks the contact first when it needs a 404.
func testEntriesUnknownContact(t *testing.T, s Store) {
	f := newFixture(t, s)
	got, cursor, err := s.ListEntries(f.ctx, f.ws, domain.ContactID(NewID(domain.PrefixContact)), ports.Page{Limit: 10})
	if err != nil {
		t.Fatalf("ListEntries of an unknown contact: %v", err)
	}
	if len(got) != 0 || cursor != "" {
		t.Fatalf("ListEntries of an unknown contact = %d entries, cursor %q; want none", len(got), cursor)
	}
}

// Another workspace's contact is treated like an unknown one.
func testEntriesOtherWorkspace(t *testing.T, s Store) {
	f := newFixture(t, s)
	ct := f.contact()
	f.entry(NewInboundEntry(ct, "hello"))
	got, cursor, err := s.ListEntries(f.ctx, f.otherWorkspace(), ct.ID, ports.Page{Limit: 10})
	if err != nil {
		t.Fatalf("ListEntries from another workspace: %v", err)
	}
	if len(got) != 0 || cursor != "" {
		t.Fatalf("ListEntries from another workspace = %d entries, cursor %q; want none", len(got), cursor)
	}
}

// testEntriesList pins the thread's pagination: newest first (identifiers
// descending), only this contact's entries, every entry once.
func testEntriesList(t *testing.T, s Store) {
	f := newFixture(t, s)
	ct, someoneElse := f.contact(), f.contact()
	c := f.campaign()
	byID := map[domain.EntryID]domain.Entry{}
	var ids []domain.EntryID
	for i := range 7 {
		var e domain.Entry
		if i%2 == 0 {
			m := f.message(c, ct)
			e = NewOutboundEntry(m, ct)
		} else {
			e = NewInboundEntry(ct, fmt.Sprintf("reply %d", i))
		}
		f.entry(e)
		byID[e.ID] = e
		ids = append(ids, e.ID)
	}
	f.entry(NewInboundEntry(someoneElse, "not in this thread"))
	var want []domain.Entry
	for _, id := range sortedDesc(ids) {
		want = append(want, byID[id])
	}
	for _, limit := range []int{1, 2, 3, 7, 10} {
		got := collectPages(t, len(ids), limit, func(p ports.Page) ([]domain.Entry, string, error) {
			return s.ListEntries(f.ctx, f.ws, ct.ID, p)
		})
		mustEqual(t, "entries listed in pages", want, got)
	}
}
