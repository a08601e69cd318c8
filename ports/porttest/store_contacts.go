package porttest

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

var contactTests = []storeTest{
	{"RoundTrip", testContactRoundTrip},
	{"NotFound", testContactNotFound},
	{"OtherWorkspace", testContactOtherWorkspace},
	{"PhoneUnique", testContactPhoneUnique},
	{"Update", testContactUpdate},
	{"UpdateError", testContactUpdateError},
	{"FindByPhone", testContactFindByPhone},
	{"Save", testContactSave},
	{"SavePhoneConflict", testContactSavePhoneConflict},
	{"SaveOtherWorkspace", testContactSaveOtherWorkspace},
	{"Copies", testContactCopies},
	{"ListByPhone", testContactListByPhone},
	{"List", testContactList},
	{"ListOtherWorkspace", testContactListOtherWorkspace},
	{"ListPhonePrefix", testContactListPhonePrefix},
}

func testContactRoundTrip(t *testing.T, s Store) {
	f := newFixture(t, s)
	full := NewContact(t, f.ws)
	full.RecordInbound("447700900123", "Asha 🌸", Now().Add(-time.Minute), Now())
	full.SetOptOut(true, Now().Add(-time.Second), Now())
	full.Touch(Now().Add(time.Second))
	if full.WaID == "" || full.ProfileName == "" || full.OptOutChangedAt == nil {
		t.Fatalf("the full contact lacks a field the round trip must cover: %+v", full)
	}
	bare := domain.NewContact(domain.ContactID(NewID(domain.PrefixContact)),
		domain.ConversationID(NewID(domain.PrefixConversation)), f.ws, domain.ModeTest, RandomPhone(), Now())
	for _, c := range []domain.Contact{full, bare} {
		if err := s.CreateContact(f.ctx, c); err != nil {
			t.Fatalf("CreateContact: %v", err)
		}
		got, err := s.GetContact(f.ctx, f.ws, c.ID)
		if err != nil {
			t.Fatalf("GetContact: %v", err)
		}
		mustEqual(t, "contact by id", c, got)
		got, err = s.GetContactByPhone(f.ctx, f.ws, c.Mode, c.Phone)
		if err != nil {
			t.Fatalf("GetContactByPhone: %v", err)
		}
		mustEqual(t, "contact by phone", c, got)
	}
}

func testContactNotFound(t *testing.T, s Store) {
	f := newFixture(t, s)
	id := domain.ContactID(NewID(domain.PrefixContact))
	_, err := s.GetContact(f.ctx, f.ws, id)
	mustBe(t, "GetContact of an unknown id", err, domain.ErrContactNotFound)
	_, err = s.GetContactByPhone(f.ctx, f.ws, domain.ModeTest, RandomPhone())
	mustBe(t, "GetContactByPhone of an unknown phone", err, domain.ErrContactNotFound)
	called := false
	_, err = s.UpdateContact(f.ctx, f.ws, id, func(*domain.Contact) error {
		called = true
		return nil
	})
	mustBe(t, "UpdateContact of an unknown id", err, domain.ErrContactNotFound)
	if called {
		t.Fatal("UpdateContact called fn for an unknown contact")
	}
}

func testContactOtherWorkspace(t *testing.T, s Store) {
	f := newFixture(t, s)
	c := f.contact()
	other := f.otherWorkspace()
	_, err := s.GetContact(f.ctx, other, c.ID)
	mustBe(t, "GetContact from another workspace", err, domain.ErrContactNotFound)
	_, err = s.GetContactByPhone(f.ctx, other, c.Mode, c.Phone)
	mustBe(t, "GetContactByPhone from another workspace", err, domain.ErrContactNotFound)
	called := false
	_, err = s.UpdateContact(f.ctx, other, c.ID, func(c *domain.Contact) error {
		called = true
		c.OptedOut = true
		return nil
	})
	mustBe(t, "UpdateContact from another workspace", err, domain.ErrContactNotFound)
	if called {
		t.Fatal("UpdateContact called fn for another workspace's contact")
	}
	got, err := s.GetContact(f.ctx, f.ws, c.ID)
	if err != nil {
		t.Fatalf("GetContact: %v", err)
	}
	mustEqual(t, "contact after a foreign update", c, got)
}

// A phone number is unique within a workspace, not across workspaces.
func testContactPhoneUnique(t *testing.T, s Store) {
	f := newFixture(t, s)
	c := f.contact()
	dup := newContactWithPhone(t, f.ws, c.Phone)
	err := s.CreateContact(f.ctx, dup)
	mustBe(t, "CreateContact with a taken phone", err, domain.ErrConflict)
	_, err = s.GetContact(f.ctx, f.ws, dup.ID)
	mustBe(t, "GetContact of the refused contact", err, domain.ErrContactNotFound)
	got, err := s.GetContactByPhone(f.ctx, f.ws, c.Mode, c.Phone)
	if err != nil {
		t.Fatalf("GetContactByPhone: %v", err)
	}
	mustEqual(t, "contact after a conflicting create", c, got)

	elsewhere := newContactWithPhone(t, f.otherWorkspace(), c.Phone)
	if err := s.CreateContact(f.ctx, elsewhere); err != nil {
		t.Fatalf("CreateContact with the same phone in another workspace: %v", err)
	}
	got, err = s.GetContactByPhone(f.ctx, elsewhere.Workspace, c.Mode, c.Phone)
	if err != nil {
		t.Fatalf("GetContactByPhone: %v", err)
	}
	mustEqual(t, "the other workspace's contact", elsewhere, got)
}

func testContactUpdate(t *testing.T, s Store) {
	f := newFixture(t, s)
	c := f.contact()
	name, opted := "Asha R.", true
	upd := domain.ContactSync{Name: &name, OptedOut: &opted,
		Attributes: map[string]string{"city": "", "plan": "pro"}, Tags: []string{"new"}}
	at := Now().Add(time.Second)
	apply := func(c *domain.Contact) error {
		if err := c.ApplySync(upd, at); err != nil {
			return err
		}
		c.RecordInbound("447700900123", "Asha", at, at)
		c.Touch(at)
		return nil
	}
	want := cloneContact(c)
	if err := apply(&want); err != nil {
		t.Fatal(err)
	}
	got, err := s.UpdateContact(f.ctx, f.ws, c.ID, apply)
	if err != nil {
		t.Fatalf("UpdateContact: %v", err)
	}
	mustEqual(t, "UpdateContact result", want, got)
	read, err := s.GetContactByPhone(f.ctx, f.ws, c.Mode, c.Phone)
	if err != nil {
		t.Fatalf("GetContactByPhone: %v", err)
	}
	mustEqual(t, "updated contact read back", want, read)

	// An opt-in later on: the opt-out time moves, the profile stays.
	later := at.Add(time.Minute)
	want2 := cloneContact(want)
	want2.SetOptOut(false, later, later)
	got, err = s.UpdateContact(f.ctx, f.ws, c.ID, func(c *domain.Contact) error {
		c.SetOptOut(false, later, later)
		return nil
	})
	if err != nil {
		t.Fatalf("UpdateContact: %v", err)
	}
	mustEqual(t, "contact after opting in", want2, got)
	read, err = s.GetContact(f.ctx, f.ws, c.ID)
	if err != nil {
		t.Fatalf("GetContact: %v", err)
	}
	mustEqual(t, "contact after opting in, read back", want2, read)
}

func testContactUpdateError(t *testing.T, s Store) {
	f := newFixture(t, s)
	c := f.contact()
	boom := errors.New("boom")
	_, err := s.UpdateContact(f.ctx, f.ws, c.ID, func(c *domain.Contact) error {
		c.Attributes["city"] = "changed"
		c.Tags[0] = "changed"
		c.OptedOut = true
		c.Touch(Now())
		return boom
	})
	mustBe(t, "UpdateContact with a failing fn", err, boom)
	got, err := s.GetContact(f.ctx, f.ws, c.ID)
	if err != nil {
		t.Fatalf("GetContact: %v", err)
	}
	mustEqual(t, "contact after a failed update", c, got)
}

// byPhone orders contacts by phone number, as FindContactsByPhone returns
// them.
func byPhone(a, b domain.Contact) int { return cmp.Compare(a.Phone.String(), b.Phone.String()) }

// FindContactsByPhone returns the workspace's contacts with the numbers
// asked for, each once, in phone number order, whatever the order of the
// numbers or of the contacts' creation: unknown numbers, numbers asked for
// twice and other workspaces' contacts add nothing.
func testContactFindByPhone(t *testing.T, s Store) {
	f := newFixture(t, s)
	ps := []domain.PhoneNumber{RandomPhone(), RandomPhone(), RandomPhone()}
	slices.SortFunc(ps, func(a, b domain.PhoneNumber) int { return cmp.Compare(a.String(), b.String()) })
	p1, p2, p3 := ps[0], ps[1], ps[2]
	create := func(ws domain.WorkspaceID, phone domain.PhoneNumber) domain.Contact {
		t.Helper()
		c := newContactWithPhone(t, ws, phone)
		if err := s.CreateContact(f.ctx, c); err != nil {
			t.Fatalf("CreateContact: %v", err)
		}
		return cloneContact(c)
	}
	c2, c3, c1 := create(f.ws, p2), create(f.ws, p3), create(f.ws, p1) // created out of phone order
	f.contact()                                                        // not asked for
	other := f.otherWorkspace()
	create(other, p1) // the same number in another workspace
	foreign := create(other, RandomPhone())

	got, err := s.FindContactsByPhone(f.ctx, f.ws, domain.ModeTest, []domain.PhoneNumber{p3, RandomPhone(), p1, foreign.Phone, p2, p3})
	if err != nil {
		t.Fatalf("FindContactsByPhone: %v", err)
	}
	mustEqual(t, "contacts found by phone", []domain.Contact{c1, c2, c3}, got)

	got, err = s.FindContactsByPhone(f.ctx, other, domain.ModeTest, []domain.PhoneNumber{p2, foreign.Phone})
	if err != nil {
		t.Fatalf("FindContactsByPhone: %v", err)
	}
	mustEqual(t, "the other workspace's contacts found by phone", []domain.Contact{foreign}, got)

	for _, phones := range [][]domain.PhoneNumber{nil, {}, {RandomPhone(), RandomPhone()}} {
		got, err := s.FindContactsByPhone(f.ctx, f.ws, domain.ModeTest, phones)
		if err != nil || len(got) != 0 {
			t.Fatalf("FindContactsByPhone of %d unknown numbers = %d contacts, %v; want none", len(phones), len(got), err)
		}
	}
}

// mustReadBack checks that each contact is stored as given, by id and by
// phone number.
func mustReadBack(t *testing.T, s Store, what string, cs ...domain.Contact) {
	t.Helper()
	for _, c := range cs {
		got, err := s.GetContact(t.Context(), c.Workspace, c.ID)
		if err != nil {
			t.Fatalf("GetContact of the %s: %v", what, err)
		}
		mustEqual(t, what+" by id", c, got)
		got, err = s.GetContactByPhone(t.Context(), c.Workspace, c.Mode, c.Phone)
		if err != nil {
			t.Fatalf("GetContactByPhone of the %s: %v", what, err)
		}
		mustEqual(t, what+" by phone", c, got)
	}
}

// SaveContacts creates the call's new contacts and replaces its stored ones
// in one call. Each reads back as saved, by id and by phone number; a number
// a replaced contact gave up is free again, a number another workspace uses
// is no obstacle, and contacts outside the call are left alone.
func testContactSave(t *testing.T, s Store) {
	f := newFixture(t, s)
	kept, moved, bystander := f.contact(), f.contact(), f.contact()
	at := Now().Add(time.Second)
	name := "Ravi Rao"
	if err := kept.ApplySync(domain.ContactSync{Name: &name, Attributes: map[string]string{"city": ""},
		Tags: []string{"new"}}, at); err != nil {
		t.Fatal(err)
	}
	kept.RecordInbound("447700900123", "Ravi", at, at)
	kept.Touch(at)
	oldPhone := moved.Phone
	moved.Phone = RandomPhone()
	moved.SetOptOut(true, at, at)
	fresh := NewContact(t, f.ws)
	fresh.Touch(at)
	elsewhere := NewContact(t, f.otherWorkspace())
	if err := s.CreateContact(f.ctx, elsewhere); err != nil {
		t.Fatalf("CreateContact: %v", err)
	}
	sameNumber := newContactWithPhone(t, f.ws, elsewhere.Phone)

	saved := []domain.Contact{fresh, kept, moved, sameNumber}
	var call []domain.Contact
	for _, c := range saved {
		call = append(call, cloneContact(c))
	}
	if err := s.SaveContacts(f.ctx, call...); err != nil {
		t.Fatalf("SaveContacts: %v", err)
	}
	mustReadBack(t, s, "saved contact", saved...)
	mustReadBack(t, s, "contact outside the call", bystander, elsewhere)
	_, err := s.GetContactByPhone(f.ctx, f.ws, domain.ModeTest, oldPhone)
	mustBe(t, "GetContactByPhone of the number given up", err, domain.ErrContactNotFound)
	if err := s.CreateContact(f.ctx, newContactWithPhone(t, f.ws, oldPhone)); err != nil {
		t.Fatalf("CreateContact with the number given up: %v", err)
	}
	if err := s.SaveContacts(f.ctx); err != nil {
		t.Fatalf("SaveContacts of no contacts: %v", err)
	}
}

// mustBeUnsaved checks that a refused SaveContacts stored nothing: the
// stored contacts read back as they were, by id and by phone number, and
// the call's other ids and numbers are unknown in the call's workspaces.
func mustBeUnsaved(t *testing.T, s Store, what string, stored, call []domain.Contact) {
	t.Helper()
	mustReadBack(t, s, "stored contact after "+what, stored...)
	for _, c := range call {
		if !slices.ContainsFunc(stored, func(o domain.Contact) bool { return o.Workspace == c.Workspace && o.ID == c.ID }) {
			_, err := s.GetContact(t.Context(), c.Workspace, c.ID)
			mustBe(t, "GetContact of a contact of "+what, err, domain.ErrContactNotFound)
		}
		if !slices.ContainsFunc(stored, func(o domain.Contact) bool {
			return o.Workspace == c.Workspace && o.Mode == c.Mode && o.Phone == c.Phone
		}) {
			_, err := s.GetContactByPhone(t.Context(), c.Workspace, c.Mode, c.Phone)
			mustBe(t, "GetContactByPhone of a number of "+what, err, domain.ErrContactNotFound)
		}
	}
}

// A phone number another contact of the workspace holds, or that two
// contacts of the call carry, makes SaveContacts a conflict that stores
// nothing: the call's new contacts stay unknown and its replaced ones
// unchanged, whatever their place in the call.
func testContactSavePhoneConflict(t *testing.T, s Store) {
	f := newFixture(t, s)
	holder := f.contact()
	shared := RandomPhone()
	for _, tc := range []struct {
		name  string
		clash func() (stored, call []domain.Contact)
	}{
		{"a new contact with a held number", func() ([]domain.Contact, []domain.Contact) {
			return nil, []domain.Contact{newContactWithPhone(t, f.ws, holder.Phone)}
		}},
		{"a stored contact moved to a held number", func() ([]domain.Contact, []domain.Contact) {
			c := f.contact()
			moved := cloneContact(c)
			moved.Phone = holder.Phone
			return []domain.Contact{c}, []domain.Contact{moved}
		}},
		{"two contacts of the call with one number", func() ([]domain.Contact, []domain.Contact) {
			return nil, []domain.Contact{newContactWithPhone(t, f.ws, shared), newContactWithPhone(t, f.ws, shared)}
		}},
	} {
		replaced := f.contact()
		changed := cloneContact(replaced)
		changed.Phone = RandomPhone()
		changed.Touch(Now().Add(time.Second))
		stored, clash := tc.clash()
		stored = append(stored, holder, replaced)
		for _, call := range [][]domain.Contact{
			append([]domain.Contact{NewContact(t, f.ws), changed}, clash...),
			append(slices.Clone(clash), NewContact(t, f.ws), changed),
		} {
			mustBe(t, "SaveContacts with "+tc.name, s.SaveContacts(f.ctx, call...), domain.ErrConflict)
			mustBeUnsaved(t, s, "a call with "+tc.name, stored, call)
		}
	}
}

// An id another workspace holds makes SaveContacts a conflict that stores
// nothing: the other workspace's contact stays as it was, and the caller's
// workspace gains nothing.
func testContactSaveOtherWorkspace(t *testing.T, s Store) {
	f := newFixture(t, s)
	theirs := NewContact(t, f.otherWorkspace())
	if err := s.CreateContact(f.ctx, theirs); err != nil {
		t.Fatalf("CreateContact: %v", err)
	}
	mine := f.contact()
	changed := cloneContact(mine)
	changed.OptedOut = true
	taken := cloneContact(theirs)
	taken.Workspace = f.ws
	taken.Phone = RandomPhone()
	taken.OptedOut = true
	call := []domain.Contact{NewContact(t, f.ws), changed, taken}
	mustBe(t, "SaveContacts with another workspace's id", s.SaveContacts(f.ctx, call...), domain.ErrConflict)
	mustBeUnsaved(t, s, "a call with another workspace's id", []domain.Contact{theirs, mine}, call)
}

// Values written and read are the caller's own: changing them later does
// not change what the store holds.
func testContactCopies(t *testing.T, s Store) {
	f := newFixture(t, s)
	c := NewContact(t, f.ws)
	c.Touch(Now())
	c.SetOptOut(true, Now(), Now())
	want := cloneContact(c)
	if err := s.CreateContact(f.ctx, c); err != nil {
		t.Fatalf("CreateContact: %v", err)
	}
	c.Attributes["city"] = "changed"
	c.Tags[0] = "changed"
	*c.LastMessageAt = c.LastMessageAt.Add(time.Hour)
	*c.OptOutChangedAt = c.OptOutChangedAt.Add(time.Hour)
	got, err := s.GetContact(f.ctx, f.ws, c.ID)
	if err != nil {
		t.Fatalf("GetContact: %v", err)
	}
	mustEqual(t, "contact after changing the written value", want, got)
	got.Attributes["city"] = "changed"
	got.Tags[0] = "changed"
	*got.LastMessageAt = got.LastMessageAt.Add(time.Hour)
	*got.OptOutChangedAt = got.OptOutChangedAt.Add(time.Hour)
	again, err := s.GetContact(f.ctx, f.ws, c.ID)
	if err != nil {
		t.Fatalf("GetContact: %v", err)
	}
	mustEqual(t, "contact after changing a read value", want, again)
}

// ListContactsByPhone finds the number's contacts in every workspace, the
// most recently active first, those without a last message last, and ties
// by id; contacts with another number are not listed.
func testContactListByPhone(t *testing.T, s Store) {
	f := newFixture(t, s)
	phone, base := RandomPhone(), Now()
	create := func(ws domain.WorkspaceID, last *time.Time) domain.Contact {
		t.Helper()
		c := newContactWithPhone(t, ws, phone)
		if last != nil {
			c.RecordInbound("", "", *last, *last)
		}
		if err := s.CreateContact(f.ctx, c); err != nil {
			t.Fatalf("CreateContact: %v", err)
		}
		return cloneContact(c)
	}
	at := func(d time.Duration) *time.Time { t := base.Add(d); return &t }
	older := []domain.Contact{create(f.ws, at(time.Minute)), create(f.otherWorkspace(), at(time.Minute))}
	latest := create(f.otherWorkspace(), at(time.Hour))
	never := []domain.Contact{create(f.otherWorkspace(), nil), create(f.otherWorkspace(), nil)}
	f.contact() // another number in the same workspace
	byID := func(a, b domain.Contact) int { return cmp.Compare(a.ID, b.ID) }
	slices.SortFunc(older, byID)
	slices.SortFunc(never, byID)
	want := append(append([]domain.Contact{latest}, older...), never...)

	got, err := s.ListContactsByPhone(f.ctx, domain.ModeTest, phone)
	if err != nil {
		t.Fatalf("ListContactsByPhone: %v", err)
	}
	mustEqual(t, "contacts with the number", want, got)

	got, err = s.ListContactsByPhone(f.ctx, domain.ModeTest, RandomPhone())
	if err != nil || len(got) != 0 {
		t.Fatalf("ListContactsByPhone of an unknown number = %d contacts, %v; want none", len(got), err)
	}
}

// newestContactsFirst orders contacts as ListContacts returns them: ids
// descending.
func newestContactsFirst(cs ...domain.Contact) []domain.Contact {
	out := slices.Clone(cs)
	slices.SortFunc(out, func(a, b domain.Contact) int { return cmp.Compare(b.ID, a.ID) })
	return out
}

// testContactList pins the contacts' pagination: newest first (identifiers
// descending), pages of exactly Limit contacts but the last, every contact
// once and complete, an empty cursor exactly on the last page, and a default
// page size when the page asks for none. Another workspace's contacts are
// never listed.
func testContactList(t *testing.T, s Store) {
	f := newFixture(t, s)
	full := NewContact(t, f.ws)
	full.RecordInbound("447700900123", "Asha 🌸", Now().Add(-time.Minute), Now())
	full.SetOptOut(true, Now().Add(-time.Second), Now())
	full.Touch(Now().Add(time.Second))
	if err := s.CreateContact(f.ctx, full); err != nil {
		t.Fatalf("CreateContact: %v", err)
	}
	cs := []domain.Contact{cloneContact(full)}
	other := newFixture(t, s)
	for i := range 6 {
		if i == 3 {
			other.contact() // another workspace's contact, between the pages, is never listed
		}
		cs = append(cs, f.contact())
	}
	changed, err := s.UpdateContact(f.ctx, f.ws, cs[3].ID, func(c *domain.Contact) error {
		name := "Ravi Rao"
		return c.ApplySync(domain.ContactSync{Name: &name, Tags: []string{"new"}}, Now().Add(time.Minute))
	})
	if err != nil {
		t.Fatalf("UpdateContact: %v", err)
	}
	cs[3] = changed
	want := newestContactsFirst(cs...)
	for _, limit := range []int{1, 2, 3, 7, 10} {
		got := collectPages(t, len(cs), limit, func(p ports.Page) ([]domain.Contact, string, error) {
			return s.ListContacts(f.ctx, f.ws, ports.ContactFilter{}, p)
		})
		mustEqual(t, "contacts listed in pages", want, got)
	}
	got, cursor, err := s.ListContacts(f.ctx, f.ws, ports.ContactFilter{}, ports.Page{})
	if err != nil || cursor != "" {
		t.Fatalf("ListContacts with no limit: cursor %q, %v; want one page", cursor, err)
	}
	mustEqual(t, "contacts listed with the default limit", want, got)
}

// Another workspace lists none of the workspace's contacts, whatever the
// cursor.
func testContactListOtherWorkspace(t *testing.T, s Store) {
	f := newFixture(t, s)
	first, second := f.contact(), f.contact()
	other := f.otherWorkspace()
	for _, cursor := range []string{"", string(max(first.ID, second.ID))} {
		got, next, err := s.ListContacts(f.ctx, other, ports.ContactFilter{}, ports.Page{Cursor: cursor, Limit: 10})
		if err != nil {
			t.Fatalf("ListContacts of another workspace: %v", err)
		}
		if len(got) != 0 || next != "" {
			t.Fatalf("ListContacts of another workspace = %d contacts, cursor %q; want none", len(got), next)
		}
	}
}

// A phone prefix keeps the numbers that start with it, compared as written:
// "%" and "_" match only themselves, a prefix without the "+" matches no
// E.164 number, and the prefix works with paging. Another workspace's
// matching numbers are never listed.
func testContactListPhonePrefix(t *testing.T, s Store) {
	f := newFixture(t, s)
	create := func(ws domain.WorkspaceID, phone string) domain.Contact {
		t.Helper()
		c := newContactWithPhone(t, ws, domain.MustPhoneNumber(phone))
		if err := s.CreateContact(f.ctx, c); err != nil {
			t.Fatalf("CreateContact: %v", err)
		}
		return cloneContact(c)
	}
	de1 := create(f.ws, "+4915112345678")
	uk := create(f.ws, "+447700900123")
	de2 := create(f.ws, "+4915298765432")
	create(f.otherWorkspace(), "+4915111111111") // between pages, never listed
	de3 := create(f.ws, "+4915100000001")
	us := create(f.ws, "+14155550100")
	all := []domain.Contact{de1, uk, de2, de3, us}

	for _, tc := range []struct {
		prefix string
		want   []domain.Contact
	}{
		{"", all},
		{"+", all},
		{"+49", []domain.Contact{de1, de2, de3}},
		{"+4915", []domain.Contact{de1, de2, de3}},
		{"+49151", []domain.Contact{de1, de3}},
		{"+4915112345678", []domain.Contact{de1}},
		{"+41", nil},
		{"+49151123456789", nil}, // longer than every number
		{"4915", nil},            // the "+" is part of the number
		{"%", nil},
		{"_", nil},
		{"+%", nil},
		{"+49_5", nil},
		{"+4915_", nil},
		{"+4915%", nil},
		{`+49\`, nil},
	} {
		want := newestContactsFirst(tc.want...)
		got, cursor, err := s.ListContacts(f.ctx, f.ws, ports.ContactFilter{PhonePrefix: tc.prefix}, ports.Page{Limit: 10})
		if err != nil {
			t.Fatalf("ListContacts with prefix %q: %v", tc.prefix, err)
		}
		if cursor != "" {
			t.Fatalf("ListContacts with prefix %q: cursor %q on the only page", tc.prefix, cursor)
		}
		mustEqual(t, fmt.Sprintf("contacts with prefix %q", tc.prefix), want, got)
		for _, limit := range []int{1, 2} {
			if len(want) == 0 {
				break
			}
			got := collectPages(t, len(want), limit, func(p ports.Page) ([]domain.Contact, string, error) {
				return s.ListContacts(f.ctx, f.ws, ports.ContactFilter{PhonePrefix: tc.prefix}, p)
			})
			mustEqual(t, fmt.Sprintf("contacts with prefix %q in pages", tc.prefix), want, got)
		}
	}
}
