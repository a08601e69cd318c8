package porttest

import (
	"cmp"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/heraldhq/herald/domain"
)

var contactTests = []storeTest{
	{"RoundTrip", testContactRoundTrip},
	{"NotFound", testContactNotFound},
	{"OtherWorkspace", testContactOtherWorkspace},
	{"PhoneUnique", testContactPhoneUnique},
	{"Update", testContactUpdate},
	{"UpdateError", testContactUpdateError},
	{"UpdateByPhone", testContactUpdateByPhone},
	{"Copies", testContactCopies},
	{"ListByPhone", testContactListByPhone},
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
		domain.ConversationID(NewID(domain.PrefixConversation)), f.ws, RandomPhone(), Now())
	for _, c := range []domain.Contact{full, bare} {
		if err := s.CreateContact(f.ctx, c); err != nil {
			t.Fatalf("CreateContact: %v", err)
		}
		got, err := s.GetContact(f.ctx, f.ws, c.ID)
		if err != nil {
			t.Fatalf("GetContact: %v", err)
		}
		mustEqual(t, "contact by id", c, got)
		got, err = s.GetContactByPhone(f.ctx, f.ws, c.Phone)
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
	_, err = s.GetContactByPhone(f.ctx, f.ws, RandomPhone())
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
	_, err = s.GetContactByPhone(f.ctx, other, c.Phone)
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
	got, err := s.GetContactByPhone(f.ctx, f.ws, c.Phone)
	if err != nil {
		t.Fatalf("GetContactByPhone: %v", err)
	}
	mustEqual(t, "contact after a conflicting create", c, got)

	elsewhere := newContactWithPhone(t, f.otherWorkspace(), c.Phone)
	if err := s.CreateContact(f.ctx, elsewhere); err != nil {
		t.Fatalf("CreateContact with the same phone in another workspace: %v", err)
	}
	got, err = s.GetContactByPhone(f.ctx, elsewhere.Workspace, c.Phone)
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
	read, err := s.GetContactByPhone(f.ctx, f.ws, c.Phone)
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

// UpdateContactByPhone finds the contact by the workspace and phone number:
// it updates that contact only, and like UpdateContact stores nothing when
// fn fails and never calls fn for a missing or foreign contact.
func testContactUpdateByPhone(t *testing.T, s Store) {
	f := newFixture(t, s)
	c, bystander := f.contact(), f.contact()
	at := Now().Add(time.Second)
	want := cloneContact(c)
	want.Touch(at)
	got, err := s.UpdateContactByPhone(f.ctx, f.ws, c.Phone, func(c *domain.Contact) error { c.Touch(at); return nil })
	if err != nil {
		t.Fatalf("UpdateContactByPhone: %v", err)
	}
	mustEqual(t, "UpdateContactByPhone result", want, got)
	read, err := s.GetContact(f.ctx, f.ws, c.ID)
	if err != nil {
		t.Fatalf("GetContact: %v", err)
	}
	mustEqual(t, "contact updated by phone, read back", want, read)
	read, err = s.GetContact(f.ctx, f.ws, bystander.ID)
	if err != nil {
		t.Fatalf("GetContact: %v", err)
	}
	mustEqual(t, "another contact of the workspace", bystander, read)

	boom := errors.New("boom")
	_, err = s.UpdateContactByPhone(f.ctx, f.ws, c.Phone, func(c *domain.Contact) error {
		c.OptedOut = true
		return boom
	})
	mustBe(t, "UpdateContactByPhone with a failing fn", err, boom)
	if read, _ := s.GetContact(f.ctx, f.ws, c.ID); read.OptedOut {
		t.Fatal("a failed UpdateContactByPhone was stored")
	}

	called := false
	never := func(*domain.Contact) error { called = true; return nil }
	_, err = s.UpdateContactByPhone(f.ctx, f.ws, RandomPhone(), never)
	mustBe(t, "UpdateContactByPhone of an unknown phone", err, domain.ErrContactNotFound)
	_, err = s.UpdateContactByPhone(f.ctx, f.otherWorkspace(), c.Phone, never)
	mustBe(t, "UpdateContactByPhone from another workspace", err, domain.ErrContactNotFound)
	if called {
		t.Fatal("UpdateContactByPhone called fn for a missing or foreign contact")
	}
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

	got, err := s.ListContactsByPhone(f.ctx, phone)
	if err != nil {
		t.Fatalf("ListContactsByPhone: %v", err)
	}
	mustEqual(t, "contacts with the number", want, got)

	got, err = s.ListContactsByPhone(f.ctx, RandomPhone())
	if err != nil || len(got) != 0 {
		t.Fatalf("ListContactsByPhone of an unknown number = %d contacts, %v; want none", len(got), err)
	}
}
