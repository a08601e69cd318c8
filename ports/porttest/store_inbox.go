package porttest

import (
	"slices"
	"testing"
	"time"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

var inboxTests = []storeTest{
	{"ByLastActivity", testThreadsByLastActivity},
	{"Pages", testThreadsPages},
	{"MarkRead", testThreadsMarkRead},
	{"MarkReadUnknownContact", testThreadsMarkReadUnknown},
	{"Modes", testThreadsModes},
	{"BadCursor", testThreadsBadCursor},
}

// orderedEntryIDs returns n fresh entry ids in the order they sort, as entries
// recorded one after another get them.
func orderedEntryIDs(n int) []domain.EntryID {
	ids := make([]domain.EntryID, n)
	for i := range ids {
		ids[i] = domain.EntryID(NewID(domain.PrefixEntry))
	}
	slices.Sort(ids)
	return ids
}

// inbound returns an inbound text entry of ct with the given id.
func inbound(ct domain.Contact, id domain.EntryID, body string) domain.Entry {
	e := NewInboundEntry(ct, body)
	e.ID = id
	return e
}

// active records a message of ct at at, as a send or an inbound message
// moves the contact's last message time.
func (f *fixture) active(ct domain.Contact, at time.Time) domain.Contact {
	f.t.Helper()
	c, err := f.s.UpdateContact(f.ctx, f.ws, ct.ID, func(c *domain.Contact) error {
		c.Touch(at)
		return nil
	})
	if err != nil {
		f.t.Fatalf("UpdateContact: %v", err)
	}
	return c
}

// markRead marks ct's thread read through and checks the mark it had.
func (f *fixture) markRead(ct domain.Contact, through, wantBefore domain.EntryID) {
	f.t.Helper()
	before, err := f.s.MarkThreadRead(f.ctx, f.ws, ct.ID, through)
	if err != nil {
		f.t.Fatalf("MarkThreadRead: %v", err)
	}
	if before != wantBefore {
		f.t.Fatalf("MarkThreadRead through %s returned the mark %q, want %q", through, before, wantBefore)
	}
}

func (f *fixture) threads(mode domain.KeyMode, p ports.Page) ([]domain.Thread, string) {
	f.t.Helper()
	ts, next, err := f.s.ListThreads(f.ctx, f.ws, mode, p)
	if err != nil {
		f.t.Fatalf("ListThreads: %v", err)
	}
	return ts, next
}

// Conversations come newest-active first, each with its newest entry (an
// outbound one with its message's current status) and the number of the
// contact's messages after the read mark; a contact nobody has written to
// or heard from is not a conversation, and another workspace's are not
// listed.
func testThreadsByLastActivity(t *testing.T, s Store) {
	f := newFixture(t, s)
	base := Now().Add(-time.Hour)
	quiet, answered, waiting := f.contact(), f.contact(), f.contact()
	_ = f.contact() // never active: not listed
	ids := orderedEntryIDs(4)
	f.entry(inbound(answered, ids[0], "Where is my order?"))
	m := f.message(f.campaign(), answered)
	reply := NewOutboundEntry(m, answered)
	reply.ID = ids[1]
	f.entry(reply)
	f.advance(m.ID, domain.StatusDelivered, m.CreatedAt.Add(time.Millisecond), nil)
	f.entry(inbound(waiting, ids[2], "Hello?"))
	second := f.entry(inbound(waiting, ids[3], "Can I change the delivery address?"))
	quiet = f.active(quiet, base)
	answered = f.active(answered, base.Add(time.Minute))
	waiting = f.active(waiting, base.Add(2*time.Minute))

	other := f.otherWorkspace()
	oc := NewContact(t, other)
	if err := s.CreateContact(f.ctx, oc); err != nil {
		t.Fatalf("CreateContact: %v", err)
	}
	if _, err := s.UpdateContact(f.ctx, other, oc.ID, func(c *domain.Contact) error { c.Touch(base.Add(time.Hour)); return nil }); err != nil {
		t.Fatalf("UpdateContact: %v", err)
	}

	got, next := f.threads(domain.KeyMode{}, ports.Page{Limit: 10})
	reply.Status = domain.StatusDelivered
	want := []domain.Thread{
		{Contact: waiting, Last: second, Unread: 2},
		{Contact: answered, Last: reply, Unread: 1},
		{Contact: quiet},
	}
	mustEqual(t, "threads", want, got)
	if next != "" {
		t.Fatalf("cursor = %q on the only page, want empty", next)
	}
}

// Pages follow one another without gaps or repeats, contacts active at
// the same moment included.
func testThreadsPages(t *testing.T, s Store) {
	f := newFixture(t, s)
	at := Now().Add(-time.Hour)
	var want []domain.ContactID
	for i := range 5 {
		c := f.contact()
		moment := at
		if i >= 2 {
			moment = at.Add(time.Duration(i) * time.Second) // two share a moment
		}
		f.active(c, moment)
	}
	all, _ := f.threads(domain.KeyMode{}, ports.Page{Limit: 10})
	for _, th := range all {
		want = append(want, th.Contact.ID)
	}
	if len(want) != 5 {
		t.Fatalf("listed %d threads, want 5", len(want))
	}
	var got []domain.ContactID
	cursor := ""
	for range 5 {
		page, next := f.threads(domain.KeyMode{}, ports.Page{Cursor: cursor, Limit: 2})
		for _, th := range page {
			got = append(got, th.Contact.ID)
		}
		if next == "" {
			break
		}
		cursor = next
	}
	mustEqual(t, "contacts over pages of 2", want, got)
	for i := 1; i < len(all); i++ {
		a, b := all[i-1].Contact, all[i].Contact
		if a.LastMessageAt.Before(*b.LastMessageAt) || (a.LastMessageAt.Equal(*b.LastMessageAt) && a.ID < b.ID) {
			t.Fatalf("thread %d (%s at %s) is listed before %s at %s", i-1, a.ID, a.LastMessageAt, b.ID, b.LastMessageAt)
		}
	}
}

// A read mark counts the contact's messages up to it as read, whatever
// arrives later as unread, and never moves back.
func testThreadsMarkRead(t *testing.T, s Store) {
	f := newFixture(t, s)
	ct := f.contact()
	ids := orderedEntryIDs(3)
	f.entry(inbound(ct, ids[0], "one"))
	f.entry(inbound(ct, ids[1], "two"))
	f.active(ct, Now())
	f.markRead(ct, ids[1], "")
	if got, _ := f.threads(domain.KeyMode{}, ports.Page{}); len(got) != 1 || got[0].Unread != 0 {
		t.Fatalf("after reading through the newest: %+v, want one thread with nothing unread", got)
	}
	f.entry(inbound(ct, ids[2], "three"))
	f.markRead(ct, ids[0], ids[1])
	if got, _ := f.threads(domain.KeyMode{}, ports.Page{}); len(got) != 1 || got[0].Unread != 1 {
		t.Fatalf("after a later message and an older mark: %+v, want 1 unread", got)
	}
	f.markRead(ct, ids[2], ids[1])
	if got, _ := f.threads(domain.KeyMode{}, ports.Page{}); len(got) != 1 || got[0].Unread != 0 {
		t.Fatalf("after reading the later message: %+v, want nothing unread", got)
	}
}

// Marking another workspace's contact, or one that does not exist, is
// contact_not_found.
func testThreadsMarkReadUnknown(t *testing.T, s Store) {
	f := newFixture(t, s)
	ct := f.contact()
	id := domain.EntryID(NewID(domain.PrefixEntry))
	_, err := s.MarkThreadRead(f.ctx, f.ws, domain.ContactID(NewID(domain.PrefixContact)), id)
	mustBe(t, "MarkThreadRead of an unknown contact", err, domain.ErrContactNotFound)
	_, err = s.MarkThreadRead(f.ctx, f.otherWorkspace(), ct.ID, id)
	mustBe(t, "MarkThreadRead from another workspace", err, domain.ErrContactNotFound)
}

// A mode keeps its own contacts' conversations; the zero mode keeps all.
func testThreadsModes(t *testing.T, s Store) {
	f := newFixture(t, s)
	test := f.contact()
	live := domain.NewContact(domain.ContactID(NewID(domain.PrefixContact)), domain.ConversationID(NewID(domain.PrefixConversation)),
		f.ws, domain.ModeLive, RandomPhone(), Now())
	if err := s.CreateContact(f.ctx, live); err != nil {
		t.Fatalf("CreateContact: %v", err)
	}
	f.active(test, Now().Add(-time.Minute))
	f.active(live, Now())
	for _, tc := range []struct {
		mode domain.KeyMode
		want []domain.ContactID
	}{
		{domain.ModeLive, []domain.ContactID{live.ID}},
		{domain.ModeTest, []domain.ContactID{test.ID}},
		{domain.KeyMode{}, []domain.ContactID{live.ID, test.ID}},
	} {
		ts, _ := f.threads(tc.mode, ports.Page{})
		var got []domain.ContactID
		for _, th := range ts {
			got = append(got, th.Contact.ID)
		}
		mustEqual(t, "contacts of mode "+tc.mode.String(), tc.want, got)
	}
}

// A cursor this list never returned is invalid_parameter.
func testThreadsBadCursor(t *testing.T, s Store) {
	f := newFixture(t, s)
	_, _, err := s.ListThreads(f.ctx, f.ws, domain.KeyMode{}, ports.Page{Cursor: "ctc_x"})
	mustBe(t, "ListThreads with a foreign cursor", err, domain.ErrInvalidParameter)
}
