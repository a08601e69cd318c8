package porttest

import (
	"crypto/rand"
	"math/big"
	"testing"
	"time"

	"github.com/heraldhq/herald/domain"
)

// A WhatsApp user's identities: a number in any form Meta writes it, a
// wa_id, a business-scoped user id (decision 0018).
var identityTests = []storeTest{
	{"RoundTrip", testIdentityRoundTrip},
	{"AnyForm", testIdentityAnyForm},
	{"FormsUnique", testIdentityFormsUnique},
	{"UserIDUnique", testIdentityUserIDUnique},
	{"WithoutNumber", testIdentityWithoutNumber},
	{"ListOfUser", testIdentityListOfUser},
}

// randomDigits returns n random decimal digits.
func randomDigits(n int) string {
	b := make([]byte, n)
	for i := range b {
		d, err := rand.Int(rand.Reader, big.NewInt(10))
		if err != nil {
			panic(err)
		}
		b[i] = byte('0' + d.Int64())
	}
	return string(b)
}

// RandomBrazilianMobile returns a random São Paulo mobile number as people
// type it, with its ninth digit, and the wa_id Meta reports for it when
// the account predates the ninth digit: 12 digits, without it.
func RandomBrazilianMobile() (domain.PhoneNumber, string) {
	rest := "9" + randomDigits(7)
	return domain.MustPhoneNumber("+55119" + rest), "5511" + rest
}

// RandomUserID returns a random business-scoped user id.
func RandomUserID() string { return "BR." + randomDigits(20) }

func testIdentityRoundTrip(t *testing.T, s Store) {
	f := newFixture(t, s)
	c := NewContact(t, f.ws)
	c.RecordUser(domain.WhatsAppUser{WaID: "447700900123", UserID: RandomUserID(), ParentUserID: "BR.ENT.1" + randomDigits(12),
		Username: "asha.rao", ProfileName: "Asha"}, Now())
	if err := s.CreateContact(f.ctx, c); err != nil {
		t.Fatalf("CreateContact: %v", err)
	}
	mustReadBack(t, s, "contact with every identity", c)
	u, at := domain.WhatsAppUser{UserID: RandomUserID(), Username: "asha"}, Now().Add(time.Second)
	changed := cloneContact(c)
	changed.RecordUser(u, at)
	if _, err := s.UpdateContact(f.ctx, f.ws, c.ID, func(c *domain.Contact) error {
		c.RecordUser(u, at)
		return nil
	}); err != nil {
		t.Fatalf("UpdateContact: %v", err)
	}
	mustReadBack(t, s, "contact with a new user id", changed)
}

// A number is found in every form Meta writes it: Brazil with and without
// the ninth digit, Argentina with and without the 9, and Mexico's 521
// read as the number people type.
func testIdentityAnyForm(t *testing.T, s Store) {
	f := newFixture(t, s)
	br, brMeta := RandomBrazilianMobile()
	ar := randomDigits(6)
	arTyped, arMeta := domain.MustPhoneNumber("+541123"+ar), domain.MustPhoneNumber("+5491123"+ar)
	mx := randomDigits(8)
	mxMeta, err := domain.ParseWhatsAppNumber("+52155" + mx)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name          string
		stored, other domain.PhoneNumber
	}{
		{"Brazil", br, domain.MustPhoneNumber("+" + brMeta)},
		{"Argentina", arTyped, arMeta},
		{"Mexico", domain.MustPhoneNumber("+5255" + mx), mxMeta},
	} {
		c := newContactWithPhone(t, f.ws, tc.stored)
		if err := s.CreateContact(f.ctx, c); err != nil {
			t.Fatalf("%s: CreateContact: %v", tc.name, err)
		}
		for _, p := range []domain.PhoneNumber{tc.stored, tc.other} {
			got, err := s.GetContactByPhone(f.ctx, f.ws, c.Mode, p)
			if err != nil {
				t.Fatalf("%s: GetContactByPhone(%s): %v", tc.name, p, err)
			}
			mustEqual(t, tc.name+" contact by "+p.String(), c, got)
			list, err := s.ListContactsByPhone(f.ctx, c.Mode, p)
			if err != nil {
				t.Fatalf("ListContactsByPhone: %v", err)
			}
			mustEqual(t, tc.name+" contacts listed by "+p.String(), []domain.Contact{c}, list)
		}
		found, err := s.FindContactsByPhone(f.ctx, f.ws, c.Mode, []domain.PhoneNumber{tc.other, tc.stored})
		if err != nil {
			t.Fatalf("FindContactsByPhone: %v", err)
		}
		mustEqual(t, tc.name+" contact found by both forms", []domain.Contact{c}, found)
	}
}

// The two forms of a number are one number: a second contact for the
// other form is a conflict in the workspace and mode, by create, save or
// update, and no obstacle in another workspace or mode.
func testIdentityFormsUnique(t *testing.T, s Store) {
	f := newFixture(t, s)
	br, brMeta := RandomBrazilianMobile()
	other := domain.MustPhoneNumber("+" + brMeta)
	holder := newContactWithPhone(t, f.ws, br)
	if err := s.CreateContact(f.ctx, holder); err != nil {
		t.Fatalf("CreateContact: %v", err)
	}
	mustBe(t, "CreateContact with the other form", s.CreateContact(f.ctx, newContactWithPhone(t, f.ws, other)), domain.ErrConflict)
	mustBe(t, "SaveContacts with the other form", s.SaveContacts(f.ctx, newContactWithPhone(t, f.ws, other)), domain.ErrConflict)
	moved := f.contact()
	_, err := s.UpdateContact(f.ctx, f.ws, moved.ID, func(c *domain.Contact) error {
		c.Phone = other
		return nil
	})
	mustBe(t, "UpdateContact to the other form", err, domain.ErrConflict)
	mustReadBack(t, s, "contacts after the refused writes", holder, moved)

	elsewhere := newContactWithPhone(t, f.otherWorkspace(), other)
	if err := s.CreateContact(f.ctx, elsewhere); err != nil {
		t.Fatalf("CreateContact with the other form in another workspace: %v", err)
	}
	live := newContactWithPhone(t, f.ws, other)
	live.Mode = domain.ModeLive
	if err := s.CreateContact(f.ctx, live); err != nil {
		t.Fatalf("CreateContact with the other form in the other mode: %v", err)
	}
	// A contact may take the other form of its own number.
	_, err = s.UpdateContact(f.ctx, f.ws, holder.ID, func(c *domain.Contact) error {
		c.Phone = other
		return nil
	})
	if err != nil {
		t.Fatalf("UpdateContact to the other form of its own number: %v", err)
	}
}

// A business-scoped user id is one contact's in a workspace and mode.
func testIdentityUserIDUnique(t *testing.T, s Store) {
	f := newFixture(t, s)
	id := RandomUserID()
	holder := NewContact(t, f.ws)
	holder.UserID = id
	if err := s.CreateContact(f.ctx, holder); err != nil {
		t.Fatalf("CreateContact: %v", err)
	}
	dup := NewContact(t, f.ws)
	dup.UserID = id
	mustBe(t, "CreateContact with a held user id", s.CreateContact(f.ctx, dup), domain.ErrConflict)
	mustBe(t, "SaveContacts with a held user id", s.SaveContacts(f.ctx, dup), domain.ErrConflict)
	other := f.contact()
	_, err := s.UpdateContact(f.ctx, f.ws, other.ID, func(c *domain.Contact) error {
		c.UserID = id
		return nil
	})
	mustBe(t, "UpdateContact to a held user id", err, domain.ErrConflict)
	mustReadBack(t, s, "contacts after the refused writes", holder, other)
	elsewhere := NewContact(t, f.otherWorkspace())
	elsewhere.UserID = id
	if err := s.CreateContact(f.ctx, elsewhere); err != nil {
		t.Fatalf("CreateContact with the user id in another workspace: %v", err)
	}
}

// A contact may have no number: known by a user id alone, or by a wa_id
// Herald cannot address. Any number of such contacts live side by side;
// one known by a wa_id keys on it, and is found by any form of it.
func testIdentityWithoutNumber(t *testing.T, s Store) {
	f := newFixture(t, s)
	bare := func(u domain.WhatsAppUser) domain.Contact {
		t.Helper()
		c := domain.NewContact(domain.ContactID(NewID(domain.PrefixContact)),
			domain.ConversationID(NewID(domain.PrefixConversation)), f.ws, domain.ModeLive, domain.PhoneNumber{}, Now())
		c.RecordUser(u, Now())
		if err := s.CreateContact(f.ctx, c); err != nil {
			t.Fatalf("CreateContact of a contact without a number: %v", err)
		}
		got, err := s.GetContact(f.ctx, f.ws, c.ID)
		if err != nil {
			t.Fatalf("GetContact: %v", err)
		}
		mustEqual(t, "contact without a number", c, got)
		return c
	}
	first := bare(domain.WhatsAppUser{UserID: RandomUserID(), Username: "ana.silva"})
	second := bare(domain.WhatsAppUser{UserID: RandomUserID()})
	if first.Phone.String() != "" || second.Phone.String() != "" {
		t.Fatal("a contact without a number got one")
	}
	odd := "99" + randomDigits(11) // no country code +99
	kept := bare(domain.WhatsAppUser{WaID: odd, ProfileName: "Odd"})
	dup := domain.NewContact(domain.ContactID(NewID(domain.PrefixContact)),
		domain.ConversationID(NewID(domain.PrefixConversation)), f.ws, domain.ModeLive, domain.PhoneNumber{}, Now())
	dup.WaID = odd
	mustBe(t, "CreateContact with a held wa_id and no number", s.CreateContact(f.ctx, dup), domain.ErrConflict)
	got, err := s.ListContactsOfUser(f.ctx, domain.ModeLive, "", []string{odd})
	if err != nil {
		t.Fatal(err)
	}
	mustEqual(t, "the contact kept under its wa_id", []domain.Contact{kept}, got)
}

// ListContactsOfUser finds, in every workspace, the contacts with the user
// id, the wa_id, or the number in any form of a wa_id, of one mode, the
// most recently active first; empty values find nothing.
func testIdentityListOfUser(t *testing.T, s Store) {
	f := newFixture(t, s)
	br, brMeta := RandomBrazilianMobile()
	userID, base := RandomUserID(), Now()
	create := func(ws domain.WorkspaceID, mode domain.KeyMode, phone domain.PhoneNumber, u domain.WhatsAppUser, last time.Duration) domain.Contact {
		t.Helper()
		c := newContactWithPhone(t, ws, phone)
		c.Mode = mode
		c.RecordUser(u, base)
		if last != 0 {
			c.RecordInbound("", "", base.Add(last), base)
		}
		if err := s.CreateContact(f.ctx, c); err != nil {
			t.Fatalf("CreateContact: %v", err)
		}
		return cloneContact(c)
	}
	newNumber := "1650555" + randomDigits(4)
	byNumber := create(f.ws, domain.ModeLive, br, domain.WhatsAppUser{}, time.Minute)
	byWaID := create(f.otherWorkspace(), domain.ModeLive, RandomPhone(), domain.WhatsAppUser{WaID: newNumber}, time.Hour)
	byUserID := create(f.otherWorkspace(), domain.ModeLive, RandomPhone(), domain.WhatsAppUser{UserID: userID}, 0)
	create(f.otherWorkspace(), domain.ModeTest, domain.MustPhoneNumber("+"+brMeta), domain.WhatsAppUser{}, time.Hour) // test mode
	f.contact()                                                                                                       // someone else

	got, err := s.ListContactsOfUser(f.ctx, domain.ModeLive, userID, []string{brMeta, newNumber, ""})
	if err != nil {
		t.Fatalf("ListContactsOfUser: %v", err)
	}
	mustEqual(t, "the user's contacts", []domain.Contact{byWaID, byNumber, byUserID}, got)
	for _, q := range []struct {
		userID string
		waIDs  []string
		want   []domain.Contact
	}{
		{userID, nil, []domain.Contact{byUserID}},
		{"", []string{brMeta}, []domain.Contact{byNumber}},
		{"", []string{br.String()[1:]}, []domain.Contact{byNumber}},
		{"", []string{newNumber}, []domain.Contact{byWaID}},
		{"", []string{""}, nil},
		{"", nil, nil},
		{RandomUserID(), []string{"1650555" + randomDigits(4)}, nil},
	} {
		got, err := s.ListContactsOfUser(f.ctx, domain.ModeLive, q.userID, q.waIDs)
		if err != nil {
			t.Fatalf("ListContactsOfUser(%q, %q): %v", q.userID, q.waIDs, err)
		}
		if q.want == nil {
			q.want = []domain.Contact{}
		}
		mustEqual(t, "contacts of "+q.userID+" "+joinIDs(q.waIDs), q.want, got)
	}
}

func joinIDs(ids []string) string {
	out := ""
	for _, id := range ids {
		out += id + ","
	}
	return out
}
