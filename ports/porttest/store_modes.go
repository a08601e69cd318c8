package porttest

import (
	"testing"
	"time"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// Live and test traffic are kept apart: a phone number has a contact per
// workspace and mode, thread entries keep their mode, and a campaign's
// counts can be read for one mode. The zero mode reads every mode.
var modeTests = []storeTest{
	{"ContactPerMode", testModeContactPerMode},
	{"ContactSaveKeepsMode", testModeContactSaveKeepsMode},
	{"ContactListByMode", testModeContactList},
	{"Entries", testModeEntries},
	{"Counts", testModeCounts},
	{"CountsOfOneCampaign", testMessageCountByMode},
	{"EntryModeWhateverTheContact", testEntryOutboundMode},
}

// liveContact is a live contact of ws with phone, not yet stored.
func liveContact(t *testing.T, ws domain.WorkspaceID, phone domain.PhoneNumber) domain.Contact {
	t.Helper()
	c := newContactWithPhone(t, ws, phone)
	c.Mode = domain.ModeLive
	return c
}

// A live and a test contact of one workspace share a number; each lookup
// by number finds its own mode's only, and a second contact of a mode with
// the number is a conflict. Updating a contact keeps its mode.
func testModeContactPerMode(t *testing.T, s Store) {
	f := newFixture(t, s)
	test := f.contact()
	live := liveContact(t, f.ws, test.Phone)
	if err := s.CreateContact(f.ctx, live); err != nil {
		t.Fatalf("CreateContact of a live contact with a test contact's number: %v", err)
	}
	for _, want := range []domain.Contact{live, test} {
		got, err := s.GetContactByPhone(f.ctx, f.ws, want.Mode, want.Phone)
		if err != nil {
			t.Fatalf("GetContactByPhone in %s mode: %v", want.Mode, err)
		}
		mustEqual(t, want.Mode.String()+" contact by phone", want, got)
		got, err = s.GetContact(f.ctx, f.ws, want.ID)
		if err != nil {
			t.Fatalf("GetContact: %v", err)
		}
		mustEqual(t, want.Mode.String()+" contact by id", want, got)
		found, err := s.FindContactsByPhone(f.ctx, f.ws, want.Mode, []domain.PhoneNumber{want.Phone})
		if err != nil {
			t.Fatalf("FindContactsByPhone in %s mode: %v", want.Mode, err)
		}
		mustEqual(t, want.Mode.String()+" contacts found by phone", []domain.Contact{want}, found)
		listed, err := s.ListContactsByPhone(f.ctx, want.Mode, want.Phone)
		if err != nil {
			t.Fatalf("ListContactsByPhone in %s mode: %v", want.Mode, err)
		}
		mustEqual(t, want.Mode.String()+" contacts listed by phone", []domain.Contact{want}, listed)
	}
	mustBe(t, "a second live contact with the number", s.CreateContact(f.ctx, liveContact(t, f.ws, test.Phone)), domain.ErrConflict)

	onlyLive := liveContact(t, f.ws, RandomPhone())
	if err := s.CreateContact(f.ctx, onlyLive); err != nil {
		t.Fatalf("CreateContact: %v", err)
	}
	_, err := s.GetContactByPhone(f.ctx, f.ws, domain.ModeTest, onlyLive.Phone)
	mustBe(t, "GetContactByPhone in test mode of a number only live holds", err, domain.ErrContactNotFound)
	if found, err := s.FindContactsByPhone(f.ctx, f.ws, domain.ModeTest, []domain.PhoneNumber{onlyLive.Phone}); err != nil || len(found) != 0 {
		t.Fatalf("FindContactsByPhone in test mode of a number only live holds: %d, %v; want none", len(found), err)
	}
	if listed, err := s.ListContactsByPhone(f.ctx, domain.ModeTest, onlyLive.Phone); err != nil || len(listed) != 0 {
		t.Fatalf("ListContactsByPhone in test mode of a number only live holds: %d, %v; want none", len(listed), err)
	}

	got, err := s.UpdateContact(f.ctx, f.ws, test.ID, func(c *domain.Contact) error {
		c.Mode = domain.ModeLive
		c.OptedOut = true
		return nil
	})
	if err != nil {
		t.Fatalf("UpdateContact: %v", err)
	}
	want := cloneContact(test)
	want.OptedOut = true
	mustEqual(t, "contact after an update that tried to change its mode", want, got)
	mustReadBack(t, s, "contact after an update that tried to change its mode", want, live)
}

// SaveContacts creates a contact of each mode for one number; an id stored
// with another mode is a conflict that stores nothing.
func testModeContactSaveKeepsMode(t *testing.T, s Store) {
	f := newFixture(t, s)
	phone := RandomPhone()
	test, live := newContactWithPhone(t, f.ws, phone), liveContact(t, f.ws, phone)
	if err := s.SaveContacts(f.ctx, cloneContact(test), cloneContact(live)); err != nil {
		t.Fatalf("SaveContacts of a test and a live contact with one number: %v", err)
	}
	mustReadBack(t, s, "saved contact", test, live)
	moved := cloneContact(test)
	moved.Mode, moved.Phone = domain.ModeLive, RandomPhone()
	call := []domain.Contact{NewContact(t, f.ws), moved}
	mustBe(t, "SaveContacts of a test contact as live", s.SaveContacts(f.ctx, call...), domain.ErrConflict)
	mustBeUnsaved(t, s, "a call moving a contact to another mode", []domain.Contact{test, live}, call)
}

// ListContacts with a mode lists that mode's contacts, in pages; without
// one, every mode's.
func testModeContactList(t *testing.T, s Store) {
	f := newFixture(t, s)
	var live, test []domain.Contact
	for i := range 3 {
		l := liveContact(t, f.ws, RandomPhone())
		if err := s.CreateContact(f.ctx, l); err != nil {
			t.Fatalf("CreateContact: %v", err)
		}
		live = append(live, l)
		if i < 2 {
			test = append(test, f.contact())
		}
	}
	for _, tc := range []struct {
		mode domain.KeyMode
		want []domain.Contact
	}{
		{domain.ModeLive, live}, {domain.ModeTest, test}, {domain.KeyMode{}, append(append([]domain.Contact{}, live...), test...)},
	} {
		want := newestContactsFirst(tc.want...)
		for _, limit := range []int{1, 2, 10} {
			got := collectPages(t, len(want), limit, func(p ports.Page) ([]domain.Contact, string, error) {
				return s.ListContacts(f.ctx, f.ws, ports.ContactFilter{Mode: tc.mode}, p)
			})
			mustEqual(t, "contacts of mode "+tc.mode.String(), want, got)
		}
	}
}

// Entries keep their mode: an outbound entry its message's, an inbound one
// live. ListEntries with a mode lists that mode's, in pages; without one,
// all.
func testModeEntries(t *testing.T, s Store) {
	f := newFixture(t, s)
	ct, c := f.contact(), f.campaign()
	testMsg := f.message(c, ct)
	liveMsg := NewMessage(t, c, ct)
	liveMsg.Mode = domain.ModeLive
	if err := s.CreateMessages(f.ctx, liveMsg); err != nil {
		t.Fatalf("CreateMessages: %v", err)
	}
	var test, live []domain.Entry
	for range 2 {
		test = append(test, f.entry(NewOutboundEntry(testMsg, ct)))
		live = append(live, f.entry(NewOutboundEntry(liveMsg, ct)), f.entry(NewInboundEntry(ct, "hi")))
	}
	if test[0].Mode != domain.ModeTest || live[0].Mode != domain.ModeLive || live[1].Mode != domain.ModeLive {
		t.Fatalf("the entries' modes: %v %v %v", test[0].Mode, live[0].Mode, live[1].Mode)
	}
	for _, tc := range []struct {
		mode domain.KeyMode
		want []domain.Entry
	}{
		{domain.ModeTest, test}, {domain.ModeLive, live}, {domain.KeyMode{}, append(append([]domain.Entry{}, live...), test...)},
	} {
		want := newestEntriesFirst(tc.want...)
		for _, limit := range []int{1, 2, 10} {
			got := collectPages(t, len(want), limit, func(p ports.Page) ([]domain.Entry, string, error) {
				return s.ListEntries(f.ctx, f.ws, ct.ID, tc.mode, p)
			})
			mustEqual(t, "entries of mode "+tc.mode.String(), want, got)
		}
	}
}

// newestEntriesFirst orders entries as ListEntries returns them, each with
// its message's status (queued: nothing advanced them).
func newestEntriesFirst(es ...domain.Entry) []domain.Entry {
	out := make([]domain.Entry, len(es))
	for i, id := range sortedDesc(entryIDs(es)) {
		for _, e := range es {
			if e.ID == id {
				out[i] = e
			}
		}
	}
	return out
}

func entryIDs(es []domain.Entry) []domain.EntryID {
	ids := make([]domain.EntryID, len(es))
	for i, e := range es {
		ids[i] = e.ID
	}
	return ids
}

// A campaign's counts by status, by failure code and over time, read for
// one mode, count that mode's messages only; the zero mode counts all.
func testModeCounts(t *testing.T, s Store) {
	f := newFixture(t, s)
	c, ct := f.campaign(), f.contact()
	at := Now().Add(time.Millisecond)
	send := func(mode domain.KeyMode, status domain.MessageStatus, code int) {
		t.Helper()
		m := NewMessage(t, c, ct)
		m.Mode = mode
		if err := s.CreateMessages(f.ctx, m); err != nil {
			t.Fatalf("CreateMessages: %v", err)
		}
		if status != domain.StatusQueued {
			f.advance(m.ID, status, at, &domain.Failure{Code: code, Title: "t"})
		}
	}
	send(domain.ModeLive, domain.StatusRead, 0)
	send(domain.ModeLive, domain.StatusFailed, 131026)
	send(domain.ModeTest, domain.StatusQueued, 0)
	send(domain.ModeTest, domain.StatusFailed, 131049)
	send(domain.ModeTest, domain.StatusFailed, 131049)

	for _, tc := range []struct {
		mode     domain.KeyMode
		counts   map[domain.MessageStatus]int
		failures map[domain.FailureKey]int
		timeline map[domain.MessageStatus]int
	}{
		{domain.ModeLive, map[domain.MessageStatus]int{domain.StatusRead: 1, domain.StatusFailed: 1}, map[domain.FailureKey]int{{Code: 131026}: 1},
			map[domain.MessageStatus]int{domain.StatusQueued: 2, domain.StatusSent: 1, domain.StatusDelivered: 1,
				domain.StatusRead: 1, domain.StatusFailed: 1}},
		{domain.ModeTest, map[domain.MessageStatus]int{domain.StatusQueued: 1, domain.StatusFailed: 2}, map[domain.FailureKey]int{{Code: 131049}: 2},
			map[domain.MessageStatus]int{domain.StatusQueued: 3, domain.StatusFailed: 2}},
		{domain.KeyMode{}, map[domain.MessageStatus]int{domain.StatusRead: 1, domain.StatusQueued: 1, domain.StatusFailed: 3},
			map[domain.FailureKey]int{{Code: 131026}: 1, {Code: 131049}: 2}, map[domain.MessageStatus]int{domain.StatusQueued: 5, domain.StatusSent: 1,
				domain.StatusDelivered: 1, domain.StatusRead: 1, domain.StatusFailed: 3}},
	} {
		what := "mode " + tc.mode.String()
		counts, err := s.CountMessagesByStatus(f.ctx, f.ws, c.ID, tc.mode)
		if err != nil {
			t.Fatalf("CountMessagesByStatus in %s: %v", what, err)
		}
		mustEqual(t, "counts of "+what, tc.counts, nonZero(counts))
		failures, err := s.CountFailuresByCode(f.ctx, f.ws, c.ID, tc.mode)
		if err != nil {
			t.Fatalf("CountFailuresByCode in %s: %v", what, err)
		}
		mustEqual(t, "failures of "+what, tc.failures, failures)
		timeline, err := s.CountStatusTimeline(f.ctx, f.ws, c.ID, tc.mode, at.Add(-time.Hour), at.Add(time.Hour), domain.IntervalDay)
		if err != nil {
			t.Fatalf("CountStatusTimeline in %s: %v", what, err)
		}
		total := map[domain.MessageStatus]int{}
		for _, sc := range timeline {
			total[sc.Status] += sc.Count
		}
		mustEqual(t, "timeline of "+what, tc.timeline, total)
	}
}

// A campaign's counts of one mode never mix in the other mode's messages,
// another campaign's or another workspace's: sandbox traffic, which always
// reaches read, is never mixed with what went to Meta.
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
	send(other, test, domain.StatusFailed)

	for mode, want := range map[domain.KeyMode]map[domain.MessageStatus]int{
		live: {domain.StatusQueued: 1, domain.StatusRead: 1, domain.StatusFailed: 2},
		test: {domain.StatusRead: 3},
	} {
		got, err := s.CountMessagesByStatus(f.ctx, f.ws, c.ID, mode)
		if err != nil {
			t.Fatalf("CountMessagesByStatus in mode %s: %v", mode, err)
		}
		mustEqual(t, "counts of mode "+mode.String(), want, nonZero(got))

		got, err = s.CountMessagesByStatus(f.ctx, f.otherWorkspace(), c.ID, mode)
		if err != nil {
			t.Fatalf("CountMessagesByStatus in mode %s from another workspace: %v", mode, err)
		}
		if len(nonZero(got)) != 0 {
			t.Fatalf("counts of mode %s from another workspace: %v, want none", mode, got)
		}
	}
}

// An entry reads with its mode whatever the contact's: an outbound one
// with the mode of the key that sent its message, so a thread can mark
// what stayed in the sandbox, an inbound one live (it came from Meta).
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
	got, _, err := s.ListEntries(f.ctx, f.ws, ct.ID, domain.KeyMode{}, ports.Page{Limit: 10})
	if err != nil {
		t.Fatalf("ListEntries: %v", err)
	}
	modes := map[domain.EntryID]string{}
	for _, e := range got {
		modes[e.ID] = e.Mode.String()
	}
	mustEqual(t, "modes of the thread's entries",
		map[domain.EntryID]string{want[0].ID: "live", want[1].ID: "test", want[2].ID: "live"}, modes)
}
