package porttest

import (
	"errors"
	"testing"
	"time"

	"github.com/heraldhq/herald/domain"
)

var keyTests = []storeTest{
	{"RoundTrip", testKeyRoundTrip},
	{"NotFound", testKeyNotFound},
	{"OtherWorkspace", testKeyOtherWorkspace},
	{"IdentifierUnique", testKeyIdentifierUnique},
	{"Revoke", testKeyRevoke},
	{"UpdateError", testKeyUpdateError},
	{"List", testKeyList},
	{"Touch", testKeyTouch},
}

// keyIn reads key id as ListKeys shows it in workspace ws, or returns
// domain.ErrKeyNotFound: keys are read back through the ports' own reads.
func keyIn(t *testing.T, s Store, ws domain.WorkspaceID, id domain.KeyID) (domain.APIKey, error) {
	t.Helper()
	keys, err := s.ListKeys(t.Context(), ws)
	if err != nil {
		return domain.APIKey{}, err
	}
	for _, k := range keys {
		if k.ID == id {
			return k, nil
		}
	}
	return domain.APIKey{}, domain.NotFound(domain.ErrKeyNotFound)
}

func testKeyRoundTrip(t *testing.T, s Store) {
	f := newFixture(t, s)
	k := NewKey(t, f.ws, domain.ModeTest)
	exp := Now().Add(30 * 24 * time.Hour)
	k.ExpiresAt = &exp
	if err := s.CreateKey(f.ctx, k); err != nil {
		t.Fatalf("CreateKey: %v", err)
	}
	got, err := keyIn(t, s, f.ws, k.ID)
	if err != nil {
		t.Fatalf("ListKeys: %v", err)
	}
	mustEqual(t, "key listed", k, got)
	got, err = s.GetKeyByIdentifier(f.ctx, k.Identifier)
	if err != nil {
		t.Fatalf("GetKeyByIdentifier: %v", err)
	}
	mustEqual(t, "key by identifier", k, got)
}

func testKeyNotFound(t *testing.T, s Store) {
	f := newFixture(t, s)
	_, err := s.GetKeyByIdentifier(f.ctx, NewKey(t, f.ws, domain.ModeLive).Identifier)
	mustBe(t, "GetKeyByIdentifier of an unknown identifier", err, domain.ErrKeyNotFound)
	called := false
	_, err = s.UpdateKey(f.ctx, f.ws, domain.KeyID(NewID(domain.PrefixKey)), func(*domain.APIKey) error {
		called = true
		return nil
	})
	mustBe(t, "UpdateKey of an unknown id", err, domain.ErrKeyNotFound)
	if called {
		t.Fatal("UpdateKey called fn for an unknown key")
	}
}

func testKeyOtherWorkspace(t *testing.T, s Store) {
	f := newFixture(t, s)
	k := f.key()
	other := f.otherWorkspace()
	called := false
	_, err := s.UpdateKey(f.ctx, other, k.ID, func(k *domain.APIKey) error {
		called = true
		k.Revoke(Now())
		return nil
	})
	mustBe(t, "UpdateKey from another workspace", err, domain.ErrKeyNotFound)
	if called {
		t.Fatal("UpdateKey called fn for another workspace's key")
	}
	keys, err := s.ListKeys(f.ctx, other)
	if err != nil {
		t.Fatalf("ListKeys: %v", err)
	}
	if len(keys) != 0 {
		t.Fatalf("ListKeys of another workspace = %d keys, want none", len(keys))
	}
	got, err := keyIn(t, s, f.ws, k.ID)
	if err != nil {
		t.Fatalf("ListKeys: %v", err)
	}
	mustEqual(t, "key after a foreign update", k, got)
}

// Identifiers are unique across workspaces, since authentication looks keys
// up by identifier alone.
func testKeyIdentifierUnique(t *testing.T, s Store) {
	f := newFixture(t, s)
	k := f.key()
	dup := NewKey(t, f.otherWorkspace(), domain.ModeLive)
	dup.Identifier = k.Identifier
	err := s.CreateKey(f.ctx, dup)
	mustBe(t, "CreateKey with a taken identifier", err, domain.ErrConflict)
	got, err := s.GetKeyByIdentifier(f.ctx, k.Identifier)
	if err != nil {
		t.Fatalf("GetKeyByIdentifier: %v", err)
	}
	mustEqual(t, "key after a conflicting create", k, got)
}

func testKeyRevoke(t *testing.T, s Store) {
	f := newFixture(t, s)
	k := f.key()
	at := Now()
	got, err := s.UpdateKey(f.ctx, f.ws, k.ID, func(k *domain.APIKey) error {
		k.Revoke(at)
		return nil
	})
	if err != nil {
		t.Fatalf("UpdateKey: %v", err)
	}
	want := k
	want.RevokedAt = &at
	mustEqual(t, "UpdateKey result", want, got)
	read, err := s.GetKeyByIdentifier(f.ctx, k.Identifier)
	if err != nil {
		t.Fatalf("GetKeyByIdentifier: %v", err)
	}
	mustEqual(t, "revoked key read back", want, read)
}

func testKeyUpdateError(t *testing.T, s Store) {
	f := newFixture(t, s)
	k := f.key()
	boom := errors.New("boom")
	_, err := s.UpdateKey(f.ctx, f.ws, k.ID, func(k *domain.APIKey) error {
		k.Revoke(Now())
		k.Name = "changed"
		return boom
	})
	mustBe(t, "UpdateKey with a failing fn", err, boom)
	got, err := keyIn(t, s, f.ws, k.ID)
	if err != nil {
		t.Fatalf("ListKeys: %v", err)
	}
	mustEqual(t, "key after a failed update", k, got)
}

func testKeyList(t *testing.T, s Store) {
	f := newFixture(t, s)
	var want []domain.APIKey
	for range 4 {
		want = append(want, f.key())
	}
	other := newFixture(t, s)
	other.key()
	got, err := s.ListKeys(f.ctx, f.ws)
	if err != nil {
		t.Fatalf("ListKeys: %v", err)
	}
	byID := map[domain.KeyID]domain.APIKey{}
	var ids []domain.KeyID
	for _, k := range want {
		byID[k.ID] = k
		ids = append(ids, k.ID)
	}
	want = want[:0]
	for _, id := range sortedDesc(ids) {
		want = append(want, byID[id])
	}
	mustEqual(t, "ListKeys, newest first", want, got)
}

// TouchKeys moves last use only forward and skips unknown ids.
func testKeyTouch(t *testing.T, s Store) {
	f := newFixture(t, s)
	k1, k2 := f.key(), f.key()
	t1 := Now().Add(time.Minute)
	t0, t2 := t1.Add(-time.Second), t1.Add(time.Second)
	check := func(step string, k domain.APIKey, want time.Time) {
		t.Helper()
		got, err := keyIn(t, s, f.ws, k.ID)
		if err != nil {
			t.Fatalf("%s: ListKeys: %v", step, err)
		}
		exp := k
		exp.LastUsedAt = &want
		mustEqual(t, step, exp, got)
	}
	unknown := domain.KeyID(NewID(domain.PrefixKey))
	if err := s.TouchKeys(f.ctx, map[domain.KeyID]time.Time{k1.ID: t1, k2.ID: t2, unknown: t2}); err != nil {
		t.Fatalf("TouchKeys: %v", err)
	}
	check("first touch", k1, t1)
	check("first touch", k2, t2)
	if err := s.TouchKeys(f.ctx, map[domain.KeyID]time.Time{k1.ID: t0, k2.ID: t1}); err != nil {
		t.Fatalf("TouchKeys: %v", err)
	}
	check("touch with earlier times", k1, t1)
	check("touch with earlier times", k2, t2)
	if err := s.TouchKeys(f.ctx, map[domain.KeyID]time.Time{k1.ID: t2}); err != nil {
		t.Fatalf("TouchKeys: %v", err)
	}
	check("touch with a later time", k1, t2)
	check("key left out of the batch", k2, t2)
	_, err := keyIn(t, s, f.ws, unknown)
	mustBe(t, "an unknown id that was touched", err, domain.ErrKeyNotFound)
}
