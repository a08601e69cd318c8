package porttest

import (
	"context"
	"crypto/rand"
	"errors"
	"math/big"
	"slices"
	"testing"
	"time"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// Numbers and Meta apps belong to the server, not to a workspace: cases are
// isolated by random Meta ids, and listings are checked for what a case
// wrote, never for being exactly that.
var numberTests = []storeTest{
	{"RoundTrip", testNumberRoundTrip},
	{"NotFound", testNumberNotFound},
	{"MetaIDUnique", testNumberMetaIDUnique},
	{"Update", testNumberUpdate},
	{"UpdateRefused", testNumberUpdateRefused},
	{"Delete", testNumberDelete},
	{"SealedSecretsAsGiven", testNumberSealedSecrets},
	{"AppRoundTrip", testAppRoundTrip},
	{"AppReplaced", testAppReplaced},
	{"AppDelete", testAppDelete},
	{"RollbackLeavesNoNumber", testNumberRollback},
	{"CampaignNumber", testCampaignNumber},
	{"MessageNumber", testMessageNumber},
	{"ContactLastNumber", testContactLastNumber},
}

// NewMetaID returns a random numeric Meta id (a phone number, account or
// app id) that no other call returns.
func NewMetaID() string {
	n, err := rand.Int(rand.Reader, big.NewInt(1e15))
	if err != nil {
		panic(err)
	}
	return "1" + big.NewInt(0).Add(n, big.NewInt(1e15)).String()
}

// NewSealed returns sealed bytes as a SecretSealer would make them; the
// store keeps them as given.
func NewSealed(keyID string) domain.SealedSecret {
	b := make([]byte, 44)
	_, _ = rand.Read(b)
	return domain.SealedSecret{KeyID: keyID, Data: b}
}

// NewNumber returns an active number offered to the given workspaces (to
// every workspace when none is given), not yet stored.
func NewNumber(t testing.TB, ws ...domain.WorkspaceID) domain.BusinessNumber {
	t.Helper()
	spec := domain.NumberSpec{MetaID: NewMetaID(), DisplayNumber: "+44 7700 900123", VerifiedName: "Acme Ltd",
		WABAID: NewMetaID(), AppID: NewMetaID(), MPS: 80, AllWorkspaces: len(ws) == 0, Workspaces: ws}
	n, err := domain.NewBusinessNumber(domain.BusinessNumberID(NewID(domain.PrefixBusinessNumber)), spec,
		NewSealed("k1"), "wxyz", Now())
	if err != nil {
		t.Fatalf("NewBusinessNumber: %v", err)
	}
	return n
}

func (f *fixture) number(ws ...domain.WorkspaceID) domain.BusinessNumber {
	f.t.Helper()
	n := NewNumber(f.t, ws...)
	if err := f.s.CreateNumber(f.ctx, n); err != nil {
		f.t.Fatalf("CreateNumber: %v", err)
	}
	return n
}

func testNumberRoundTrip(t *testing.T, s Store) {
	f := newFixture(t, s)
	every := f.number()
	some := NewNumber(t, f.ws, f.otherWorkspace())
	checked := Now().Add(-time.Minute)
	some.Quality, some.Tier, some.HealthCheckedAt = domain.QualityYellow, "TIER_10K", checked
	if err := s.CreateNumber(f.ctx, some); err != nil {
		t.Fatalf("CreateNumber: %v", err)
	}
	for _, n := range []domain.BusinessNumber{every, some} {
		got, err := s.GetNumber(f.ctx, n.ID)
		if err != nil {
			t.Fatalf("GetNumber: %v", err)
		}
		mustEqual(t, "number by id", n, got)
		got, err = s.GetNumberByMetaID(f.ctx, n.MetaID)
		if err != nil {
			t.Fatalf("GetNumberByMetaID: %v", err)
		}
		mustEqual(t, "number by Meta id", n, got)
	}
	all, err := s.ListNumbers(f.ctx)
	if err != nil {
		t.Fatalf("ListNumbers: %v", err)
	}
	var mine []domain.BusinessNumber
	for _, n := range all {
		if n.ID == every.ID || n.ID == some.ID {
			mine = append(mine, n)
		}
	}
	want := []domain.BusinessNumber{every, some}
	if every.ID > some.ID {
		want = []domain.BusinessNumber{some, every}
	}
	mustEqual(t, "listed numbers", want, mine)
	if !slices.IsSortedFunc(all, func(a, b domain.BusinessNumber) int { return compareIDs(a.ID, b.ID) }) {
		t.Error("ListNumbers is not oldest first")
	}
}

func compareIDs[T ~string](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func testNumberNotFound(t *testing.T, s Store) {
	f := newFixture(t, s)
	f.number()
	_, err := s.GetNumber(f.ctx, domain.BusinessNumberID(NewID(domain.PrefixBusinessNumber)))
	mustBe(t, "GetNumber of an unknown id", err, domain.ErrPhoneNumberNotFound)
	_, err = s.GetNumberByMetaID(f.ctx, NewMetaID())
	mustBe(t, "GetNumberByMetaID of an unknown id", err, domain.ErrPhoneNumberNotFound)
	_, err = s.GetNumberByMetaID(f.ctx, "")
	mustBe(t, "GetNumberByMetaID of no id", err, domain.ErrPhoneNumberNotFound)
	_, err = s.UpdateNumber(f.ctx, domain.BusinessNumberID(NewID(domain.PrefixBusinessNumber)),
		func(*domain.BusinessNumber) error { return nil })
	mustBe(t, "UpdateNumber of an unknown id", err, domain.ErrPhoneNumberNotFound)
	err = s.DeleteNumber(f.ctx, domain.BusinessNumberID(NewID(domain.PrefixBusinessNumber)))
	mustBe(t, "DeleteNumber of an unknown id", err, domain.ErrPhoneNumberNotFound)
}

// Meta's phone number id names one number: a second number with it, new or
// updated, is a conflict and nothing of it is stored.
func testNumberMetaIDUnique(t *testing.T, s Store) {
	f := newFixture(t, s)
	n := f.number()
	dup := NewNumber(t)
	dup.MetaID = n.MetaID
	mustBe(t, "CreateNumber with a taken Meta id", s.CreateNumber(f.ctx, dup), domain.ErrConflict)
	_, err := s.GetNumber(f.ctx, dup.ID)
	mustBe(t, "GetNumber of the refused number", err, domain.ErrPhoneNumberNotFound)
	again := NewNumber(t)
	again.ID = n.ID
	mustBe(t, "CreateNumber with a taken id", s.CreateNumber(f.ctx, again), domain.ErrConflict)

	other := f.number()
	_, err = s.UpdateNumber(f.ctx, other.ID, func(o *domain.BusinessNumber) error { o.MetaID = n.MetaID; return nil })
	mustBe(t, "UpdateNumber to a taken Meta id", err, domain.ErrConflict)
	got, err := s.GetNumber(f.ctx, other.ID)
	if err != nil {
		t.Fatalf("GetNumber: %v", err)
	}
	mustEqual(t, "number after a refused update", other, got)
}

// An update stores what fn leaves, apart from the id and creation time.
func testNumberUpdate(t *testing.T, s Store) {
	f := newFixture(t, s)
	n := f.number()
	later := n.CreatedAt.Add(time.Hour)
	token := NewSealed("k2")
	updated, err := s.UpdateNumber(f.ctx, n.ID, func(u *domain.BusinessNumber) error {
		u.ID = domain.BusinessNumberID(NewID(domain.PrefixBusinessNumber))
		u.CreatedAt = later
		u.Apply(domain.NumberSpec{MetaID: NewMetaID(), DisplayNumber: "+1 631-555-0100", VerifiedName: "Acme US",
			WABAID: NewMetaID(), MPS: 0, Workspaces: []domain.WorkspaceID{f.ws}})
		u.AccessToken, u.TokenHint = token, "abcd"
		u.Status, u.Quality, u.Tier, u.HealthCheckedAt = domain.NumberDisabled, domain.QualityRed, "TIER_250", later
		u.UpdatedAt = later
		return nil
	})
	if err != nil {
		t.Fatalf("UpdateNumber: %v", err)
	}
	if updated.ID != n.ID || !updated.CreatedAt.Equal(n.CreatedAt) {
		t.Fatalf("UpdateNumber changed the id or creation time: %s %s", updated.ID, updated.CreatedAt)
	}
	if updated.AllWorkspaces || !slices.Equal(updated.Workspaces, []domain.WorkspaceID{f.ws}) || updated.AppID != "" {
		t.Fatalf("UpdateNumber answered %+v", updated)
	}
	got, err := s.GetNumber(f.ctx, n.ID)
	if err != nil {
		t.Fatalf("GetNumber: %v", err)
	}
	mustEqual(t, "number after the update", updated, got)
	got, err = s.GetNumberByMetaID(f.ctx, updated.MetaID)
	if err != nil {
		t.Fatalf("GetNumberByMetaID of the new Meta id: %v", err)
	}
	mustEqual(t, "number by its new Meta id", updated, got)
	_, err = s.GetNumberByMetaID(f.ctx, n.MetaID)
	mustBe(t, "GetNumberByMetaID of the old Meta id", err, domain.ErrPhoneNumberNotFound)
}

// fn's error is returned and nothing is stored.
func testNumberUpdateRefused(t *testing.T, s Store) {
	f := newFixture(t, s)
	n := f.number()
	refused := errors.New("refused")
	_, err := s.UpdateNumber(f.ctx, n.ID, func(u *domain.BusinessNumber) error {
		u.Status = domain.NumberDisabled
		return refused
	})
	mustBe(t, "UpdateNumber whose fn fails", err, refused)
	got, err := s.GetNumber(f.ctx, n.ID)
	if err != nil {
		t.Fatalf("GetNumber: %v", err)
	}
	mustEqual(t, "number after a refused update", n, got)
}

func testNumberDelete(t *testing.T, s Store) {
	f := newFixture(t, s)
	gone, kept := f.number(), f.number()
	if err := s.DeleteNumber(f.ctx, gone.ID); err != nil {
		t.Fatalf("DeleteNumber: %v", err)
	}
	_, err := s.GetNumber(f.ctx, gone.ID)
	mustBe(t, "GetNumber of a deleted number", err, domain.ErrPhoneNumberNotFound)
	_, err = s.GetNumberByMetaID(f.ctx, gone.MetaID)
	mustBe(t, "GetNumberByMetaID of a deleted number", err, domain.ErrPhoneNumberNotFound)
	got, err := s.GetNumber(f.ctx, kept.ID)
	if err != nil {
		t.Fatalf("GetNumber of the other number: %v", err)
	}
	mustEqual(t, "the other number", kept, got)
	// Its Meta id is free again.
	again := NewNumber(t)
	again.MetaID = gone.MetaID
	if err := s.CreateNumber(f.ctx, again); err != nil {
		t.Fatalf("CreateNumber with a deleted number's Meta id: %v", err)
	}
}

// Sealed secrets are kept byte for byte with their key id, and a number
// or app without one reads back without one.
func testNumberSealedSecrets(t *testing.T, s Store) {
	f := newFixture(t, s)
	n := NewNumber(t)
	n.AccessToken, n.TokenHint = domain.SealedSecret{}, ""
	if err := s.CreateNumber(f.ctx, n); err != nil {
		t.Fatalf("CreateNumber without a token: %v", err)
	}
	got, err := s.GetNumber(f.ctx, n.ID)
	if err != nil {
		t.Fatalf("GetNumber: %v", err)
	}
	if !got.AccessToken.IsZero() {
		t.Fatalf("a number stored without a token reads back with %v", got.AccessToken)
	}
	sealed := domain.SealedSecret{KeyID: "key-2026_a", Data: []byte{0, 1, 2, 0xff, ':', 0}}
	got, err = s.UpdateNumber(f.ctx, n.ID, func(u *domain.BusinessNumber) error { u.AccessToken = sealed; return nil })
	if err != nil {
		t.Fatalf("UpdateNumber: %v", err)
	}
	mustEqual(t, "sealed token as answered", sealed, got.AccessToken)
	got, err = s.GetNumber(f.ctx, n.ID)
	if err != nil {
		t.Fatalf("GetNumber: %v", err)
	}
	mustEqual(t, "sealed token as stored", sealed, got.AccessToken)
}

// NewApp returns a Meta app with a sealed secret, not yet stored.
func NewApp() domain.MetaApp {
	now := Now()
	return domain.MetaApp{ID: NewMetaID(), Secret: NewSealed("k1"), SecretHint: "s3c4", CreatedAt: now, UpdatedAt: now}
}

func testAppRoundTrip(t *testing.T, s Store) {
	f := newFixture(t, s)
	a, b := NewApp(), NewApp()
	for _, app := range []domain.MetaApp{a, b} {
		if err := s.PutApp(f.ctx, app); err != nil {
			t.Fatalf("PutApp: %v", err)
		}
		got, err := s.GetApp(f.ctx, app.ID)
		if err != nil {
			t.Fatalf("GetApp: %v", err)
		}
		mustEqual(t, "app", app, got)
	}
	all, err := s.ListApps(f.ctx)
	if err != nil {
		t.Fatalf("ListApps: %v", err)
	}
	found := 0
	for _, app := range all {
		if app.ID == a.ID || app.ID == b.ID {
			found++
		}
	}
	if found != 2 {
		t.Fatalf("ListApps has %d of the 2 apps stored", found)
	}
	_, err = s.GetApp(f.ctx, NewMetaID())
	mustBe(t, "GetApp of an unknown id", err, ports.ErrAppNotFound)
}

// Putting an app again replaces its secret and keeps its creation time.
func testAppReplaced(t *testing.T, s Store) {
	f := newFixture(t, s)
	a := NewApp()
	if err := s.PutApp(f.ctx, a); err != nil {
		t.Fatalf("PutApp: %v", err)
	}
	b := a
	b.Secret, b.SecretHint = NewSealed("k2"), "zz99"
	b.CreatedAt, b.UpdatedAt = a.CreatedAt.Add(time.Hour), a.CreatedAt.Add(time.Hour)
	if err := s.PutApp(f.ctx, b); err != nil {
		t.Fatalf("PutApp again: %v", err)
	}
	got, err := s.GetApp(f.ctx, a.ID)
	if err != nil {
		t.Fatalf("GetApp: %v", err)
	}
	b.CreatedAt = a.CreatedAt
	mustEqual(t, "replaced app", b, got)
}

func testAppDelete(t *testing.T, s Store) {
	f := newFixture(t, s)
	a := NewApp()
	if err := s.PutApp(f.ctx, a); err != nil {
		t.Fatalf("PutApp: %v", err)
	}
	if err := s.DeleteApp(f.ctx, a.ID); err != nil {
		t.Fatalf("DeleteApp: %v", err)
	}
	_, err := s.GetApp(f.ctx, a.ID)
	mustBe(t, "GetApp of a deleted app", err, ports.ErrAppNotFound)
	if err := s.DeleteApp(f.ctx, a.ID); err != nil {
		t.Fatalf("DeleteApp again: %v", err)
	}
}

// A number created inside a transaction that fails is not stored.
func testNumberRollback(t *testing.T, s Store) {
	f := newFixture(t, s)
	n := NewNumber(t)
	failed := errors.New("rolled back")
	err := s.WithinTx(f.ctx, func(ctx context.Context, r ports.Repos) error {
		if err := r.Numbers.CreateNumber(ctx, n); err != nil {
			return err
		}
		return failed
	})
	mustBe(t, "WithinTx", err, failed)
	_, err = s.GetNumber(f.ctx, n.ID)
	mustBe(t, "GetNumber of a number rolled back", err, domain.ErrPhoneNumberNotFound)
}

// A campaign keeps the number it sends from, through updates.
func testCampaignNumber(t *testing.T, s Store) {
	f := newFixture(t, s)
	n, other := f.number(f.ws), f.number(f.ws)
	c := NewCampaign(t, f.ws)
	c.Number = n.ID
	if err := s.CreateCampaign(f.ctx, c); err != nil {
		t.Fatalf("CreateCampaign: %v", err)
	}
	got, err := s.GetCampaign(f.ctx, f.ws, c.ID)
	if err != nil {
		t.Fatalf("GetCampaign: %v", err)
	}
	mustEqual(t, "campaign with a number", c, got)
	updated, err := s.UpdateCampaign(f.ctx, f.ws, c.ID, func(c *domain.Campaign) error { c.Number = other.ID; return nil })
	if err != nil {
		t.Fatalf("UpdateCampaign: %v", err)
	}
	got, err = s.GetCampaign(f.ctx, f.ws, c.ID)
	if err != nil {
		t.Fatalf("GetCampaign: %v", err)
	}
	mustEqual(t, "campaign moved to another number", updated, got)
	if got.Number != other.ID {
		t.Fatalf("campaign number = %q, want %q", got.Number, other.ID)
	}
}

// A message keeps the number it leaves from, and so does the queue's claim.
func testMessageNumber(t *testing.T, s Store) {
	f := newFixture(t, s)
	n := f.number(f.ws)
	c := f.campaign()
	m := NewMessage(t, c, f.contact())
	m.Number = n.ID
	if err := s.CreateMessages(f.ctx, m); err != nil {
		t.Fatalf("CreateMessages: %v", err)
	}
	got, err := s.GetMessage(f.ctx, f.ws, m.ID)
	if err != nil {
		t.Fatalf("GetMessage: %v", err)
	}
	mustEqual(t, "message with a number", m, got)
	got, err = s.UpdateMessage(f.ctx, f.ws, m.ID, func(m *domain.Message) error {
		m.Advance(domain.StatusSending, Now(), nil)
		return nil
	})
	if err != nil {
		t.Fatalf("UpdateMessage: %v", err)
	}
	if got.Number != n.ID {
		t.Fatalf("updated message number = %q, want %q", got.Number, n.ID)
	}
}

// A contact keeps the number they last wrote to.
func testContactLastNumber(t *testing.T, s Store) {
	f := newFixture(t, s)
	n := f.number(f.ws)
	ct := f.contact()
	updated, err := s.UpdateContact(f.ctx, f.ws, ct.ID, func(c *domain.Contact) error { c.LastNumber = n.ID; return nil })
	if err != nil {
		t.Fatalf("UpdateContact: %v", err)
	}
	got, err := s.GetContact(f.ctx, f.ws, ct.ID)
	if err != nil {
		t.Fatalf("GetContact: %v", err)
	}
	mustEqual(t, "contact with its last number", updated, got)
	if got.LastNumber != n.ID {
		t.Fatalf("contact last number = %q, want %q", got.LastNumber, n.ID)
	}
	saved := got
	saved.LastNumber = ""
	if err := s.SaveContacts(f.ctx, saved); err != nil {
		t.Fatalf("SaveContacts: %v", err)
	}
	got, err = s.GetContact(f.ctx, f.ws, ct.ID)
	if err != nil {
		t.Fatalf("GetContact: %v", err)
	}
	mustEqual(t, "contact saved without a last number", saved, got)
}
