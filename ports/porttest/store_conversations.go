package porttest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
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
	{"DuplicateProviderID", testEntryDuplicateProviderID},
	{"DuplicateProviderIDInTx", testEntryDuplicateProviderIDInTx},
	{"AppendMany", testEntriesAppendMany},
	{"AppendManyDuplicateProviderID", testEntriesAppendManyDuplicate},
	{"AppendManyDuplicateProviderIDInTx", testEntriesAppendManyDuplicateInTx},
}

// Every kind of entry round-trips: an outbound template, inbound text, an
// image with a caption answering a message, and a tapped button with its
// payload.
func testEntryRoundTrip(t *testing.T, s Store) {
	f := newFixture(t, s)
	ct := f.contact()
	m := f.message(f.campaign(), ct)
	out := f.entry(NewOutboundEntry(m, ct))
	text := f.entry(NewInboundEntry(ct, "Thanks! 👍"))
	image := domain.InboundEntry(domain.EntryID(NewID(domain.PrefixEntry)), ct, domain.InboundMessage{
		ProviderID: NewWamid(), Kind: domain.KindDocument, Text: "the invoice",
		Media: &domain.Attachment{ID: "1234567890", MimeType: "application/pdf",
			SHA256: "u6M2bCVpZnZqFZy0AodDNe3bq2OcMWJrK2gJb0JyrCs=", Filename: "invoice.pdf"},
		ReplyTo: NewWamid(), At: Now(),
	}, m.ID)
	written := cloneEntry(image)
	f.entry(written)
	written.Media.Filename = "changed.pdf" // the store keeps its own copy
	button := f.entry(domain.InboundEntry(domain.EntryID(NewID(domain.PrefixEntry)), ct, domain.InboundMessage{
		ProviderID: NewWamid(), Kind: domain.KindButton, Text: "Stop promotions", Payload: "STOP", At: Now(),
	}, m.ID))
	if out.Kind != domain.KindTemplate || text.Kind != domain.KindText || text.ProviderID == "" {
		t.Fatalf("the fixtures do not cover the kinds: outbound %q, inbound %q %q", out.Kind, text.Kind, text.ProviderID)
	}
	byID := map[domain.EntryID]domain.Entry{}
	for _, e := range []domain.Entry{out, text, image, button} {
		byID[e.ID] = e
	}
	var want []domain.Entry
	for _, id := range sortedDesc(slices.Collect(maps.Keys(byID))) {
		want = append(want, byID[id])
	}
	got, cursor, err := s.ListEntries(f.ctx, f.ws, ct.ID, domain.KeyMode{}, ports.Page{Limit: 10})
	if err != nil {
		t.Fatalf("ListEntries: %v", err)
	}
	mustEqual(t, "entries", want, got)
	if cursor != "" {
		t.Fatalf("cursor = %q on the only page, want empty", cursor)
	}
	for _, e := range got {
		if e.Media != nil {
			e.Media.Filename = "changed.pdf"
		}
	}
	again, _, err := s.ListEntries(f.ctx, f.ws, ct.ID, domain.KeyMode{}, ports.Page{Limit: 10})
	if err != nil {
		t.Fatalf("ListEntries: %v", err)
	}
	mustEqual(t, "entries after changing those read", want, again)
}

// Outbound entries carry their message's current status when read.
func testEntryOutboundStatus(t *testing.T, s Store) {
	f := newFixture(t, s)
	ct := f.contact()
	m := f.message(f.campaign(), ct)
	e := f.entry(NewOutboundEntry(m, ct))
	f.advance(m.ID, domain.StatusDelivered, m.CreatedAt.Add(time.Millisecond), nil)
	got, _, err := s.ListEntries(f.ctx, f.ws, ct.ID, domain.KeyMode{}, ports.Page{Limit: 10})
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
	got, cursor, err := s.ListEntries(f.ctx, f.ws, domain.ContactID(NewID(domain.PrefixContact)), domain.KeyMode{}, ports.Page{Limit: 10})
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
	got, cursor, err := s.ListEntries(f.ctx, f.otherWorkspace(), ct.ID, domain.KeyMode{}, ports.Page{Limit: 10})
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
			return s.ListEntries(f.ctx, f.ws, ct.ID, domain.KeyMode{}, p)
		})
		mustEqual(t, "entries listed in pages", want, got)
	}
}

// listThread returns a contact's whole thread (at most 100 entries).
func listThread(t *testing.T, s ports.ConversationRepository, ws domain.WorkspaceID, ct domain.ContactID) []domain.Entry {
	t.Helper()
	got, _, err := s.ListEntries(t.Context(), ws, ct, domain.KeyMode{}, ports.Page{Limit: 100})
	if err != nil {
		t.Fatalf("ListEntries: %v", err)
	}
	return got
}

// An inbound message is recorded once per workspace: a second entry with
// its wamid is a conflict and is not stored. Another workspace records the
// same wamid for its own contact.
func testEntryDuplicateProviderID(t *testing.T, s Store) {
	f := newFixture(t, s)
	ct := f.contact()
	first := f.entry(NewInboundEntry(ct, "hello"))
	dup := NewInboundEntry(ct, "hello")
	dup.ProviderID = first.ProviderID
	mustBe(t, "AppendEntries with a recorded wamid", s.AppendEntries(f.ctx, dup), domain.ErrConflict)
	mustEqual(t, "thread after the duplicate", []domain.Entry{first}, listThread(t, s, f.ws, ct.ID))

	other := f.otherWorkspace()
	theirs := newContactWithPhone(t, other, ct.Phone)
	if err := s.CreateContact(f.ctx, theirs); err != nil {
		t.Fatalf("CreateContact: %v", err)
	}
	same := NewInboundEntry(theirs, "hello")
	same.ProviderID = first.ProviderID
	if err := s.AppendEntries(f.ctx, same); err != nil {
		t.Fatalf("AppendEntries of the wamid in another workspace: %v", err)
	}
	mustEqual(t, "the other workspace's thread", []domain.Entry{same}, listThread(t, s, other, theirs.ID))
}

// The conflict leaves the transaction usable: it goes on writing and
// commits (on PostgreSQL a failed statement would abort it).
func testEntryDuplicateProviderIDInTx(t *testing.T, s Store) {
	f := newFixture(t, s)
	ct := f.contact()
	first := f.entry(NewInboundEntry(ct, "hello"))
	dup := NewInboundEntry(ct, "hello")
	dup.ProviderID = first.ProviderID
	next := NewInboundEntry(ct, "are you there?")
	at := Now().Add(time.Second)
	want := cloneContact(ct)
	want.RecordInbound("447700900123", "Asha", at, at)
	err := s.WithinTx(f.ctx, func(ctx context.Context, r ports.Repos) error {
		if err := r.Conversations.AppendEntries(ctx, dup); !errors.Is(err, domain.ErrConflict) {
			return fmt.Errorf("AppendEntries with a recorded wamid: got %v, want a conflict", err)
		}
		if err := r.Conversations.AppendEntries(ctx, next); err != nil {
			return fmt.Errorf("AppendEntries after the conflict: %w", err)
		}
		_, err := r.Contacts.UpdateContact(ctx, f.ws, ct.ID, func(c *domain.Contact) error {
			c.RecordInbound("447700900123", "Asha", at, at)
			return nil
		})
		return err
	})
	if err != nil {
		t.Fatalf("WithinTx: %v", err)
	}
	thread := []domain.Entry{first, next}
	if first.ID < next.ID {
		thread = []domain.Entry{next, first}
	}
	mustEqual(t, "thread after the transaction", thread, listThread(t, s, f.ws, ct.ID))
	got, err := s.GetContact(f.ctx, f.ws, ct.ID)
	if err != nil {
		t.Fatalf("GetContact: %v", err)
	}
	mustEqual(t, "contact updated after the conflict", want, got)
}

// newestFirst is the thread ListEntries returns for es: identifiers
// descending.
func newestFirst(es ...domain.Entry) []domain.Entry {
	out := slices.Clone(es)
	slices.SortFunc(out, func(a, b domain.Entry) int { return cmp.Compare(b.ID, a.ID) })
	return out
}

// AppendEntries stores every entry of a call, outbound and inbound, each in
// its contact's thread; a call without entries succeeds.
func testEntriesAppendMany(t *testing.T, s Store) {
	f := newFixture(t, s)
	ct, someoneElse := f.contact(), f.contact()
	m := f.message(f.campaign(), ct)
	es := []domain.Entry{NewOutboundEntry(m, ct), NewInboundEntry(ct, "one"), NewInboundEntry(someoneElse, "hi"),
		NewInboundEntry(ct, "two")}
	var call []domain.Entry
	for _, e := range es {
		call = append(call, cloneEntry(e))
	}
	if err := s.AppendEntries(f.ctx, call...); err != nil {
		t.Fatalf("AppendEntries: %v", err)
	}
	mustEqual(t, "thread", newestFirst(es[0], es[1], es[3]), listThread(t, s, f.ws, ct.ID))
	mustEqual(t, "the other contact's thread", []domain.Entry{es[2]}, listThread(t, s, f.ws, someoneElse.ID))
	if err := s.AppendEntries(f.ctx); err != nil {
		t.Fatalf("AppendEntries of no entries: %v", err)
	}
}

// An entry whose wamid the workspace holds, or which an earlier entry of
// the call carries, is skipped: the call is a conflict, and its other
// entries, before and after the duplicate, are stored.
func testEntriesAppendManyDuplicate(t *testing.T, s Store) {
	f := newFixture(t, s)
	ct := f.contact()
	first := f.entry(NewInboundEntry(ct, "hello"))
	redelivered := NewInboundEntry(ct, "hello")
	redelivered.ProviderID = first.ProviderID
	before, after := NewInboundEntry(ct, "before"), NewInboundEntry(ct, "after")
	err := s.AppendEntries(f.ctx, before, redelivered, after)
	mustBe(t, "AppendEntries with a recorded wamid", err, domain.ErrConflict)
	mustEqual(t, "thread after a recorded wamid", newestFirst(first, before, after), listThread(t, s, f.ws, ct.ID))

	once := NewInboundEntry(ct, "twice")
	twice := NewInboundEntry(ct, "twice")
	twice.ProviderID = once.ProviderID
	last := NewInboundEntry(ct, "last")
	err = s.AppendEntries(f.ctx, once, twice, last)
	mustBe(t, "AppendEntries with a wamid twice", err, domain.ErrConflict)
	mustEqual(t, "thread after a wamid twice", newestFirst(first, before, after, once, last), listThread(t, s, f.ws, ct.ID))
}

// A partly refused call leaves the transaction usable: it goes on writing,
// commits, and the call's other entries are committed with the rest.
func testEntriesAppendManyDuplicateInTx(t *testing.T, s Store) {
	f := newFixture(t, s)
	ct := f.contact()
	first := f.entry(NewInboundEntry(ct, "hello"))
	dup := NewInboundEntry(ct, "hello")
	dup.ProviderID = first.ProviderID
	before, after, next := NewInboundEntry(ct, "before"), NewInboundEntry(ct, "after"), NewInboundEntry(ct, "next")
	at := Now().Add(time.Second)
	want := cloneContact(ct)
	want.Touch(at)
	err := s.WithinTx(f.ctx, func(ctx context.Context, r ports.Repos) error {
		if err := r.Conversations.AppendEntries(ctx, before, dup, after); !errors.Is(err, domain.ErrConflict) {
			return fmt.Errorf("AppendEntries with a recorded wamid: got %v, want a conflict", err)
		}
		if err := r.Conversations.AppendEntries(ctx, next); err != nil {
			return fmt.Errorf("AppendEntries after the conflict: %w", err)
		}
		_, err := r.Contacts.UpdateContact(ctx, f.ws, ct.ID, func(c *domain.Contact) error {
			c.Touch(at)
			return nil
		})
		return err
	})
	if err != nil {
		t.Fatalf("WithinTx: %v", err)
	}
	mustEqual(t, "thread after the transaction", newestFirst(first, before, after, next), listThread(t, s, f.ws, ct.ID))
	got, err := s.GetContact(f.ctx, f.ws, ct.ID)
	if err != nil {
		t.Fatalf("GetContact: %v", err)
	}
	mustEqual(t, "contact updated after the conflict", want, got)
}
