package porttest

import (
	"testing"
	"time"

	"github.com/heraldhq/herald/domain"
)

var operatorTests = []storeTest{
	{"RoundTrip", testOperatorRoundTrip},
	{"NotFound", testOperatorNotFound},
	{"EmailUnique", testOperatorEmailUnique},
	{"SessionRoundTrip", testSessionRoundTrip},
	{"SessionNotFound", testSessionNotFound},
	{"DeleteSession", testSessionDelete},
	{"DeleteExpiredSessions", testSessionDeleteExpired},
}

// Operators are found by email address alone, whichever workspace they
// belong to.
func testOperatorRoundTrip(t *testing.T, s Store) {
	f := newFixture(t, s)
	mine := NewOperator(t, f.ws)
	theirs := NewOperator(t, f.otherWorkspace())
	for _, o := range []domain.Operator{mine, theirs} {
		if err := s.CreateOperator(f.ctx, o); err != nil {
			t.Fatalf("CreateOperator: %v", err)
		}
	}
	for _, o := range []domain.Operator{mine, theirs} {
		got, err := s.GetOperatorByEmail(f.ctx, o.Email)
		if err != nil {
			t.Fatalf("GetOperatorByEmail: %v", err)
		}
		mustEqual(t, "operator by email", o, got)
	}
}

func testOperatorNotFound(t *testing.T, s Store) {
	f := newFixture(t, s)
	o := f.operator()
	_, err := s.GetOperatorByEmail(f.ctx, NewEmail())
	mustBe(t, "GetOperatorByEmail of an unknown address", err, domain.ErrOperatorNotFound)
	_, err = s.GetOperatorByEmail(f.ctx, "")
	mustBe(t, "GetOperatorByEmail of no address", err, domain.ErrOperatorNotFound)
	// Addresses are stored normalised and found as given: the caller
	// normalises (domain.ParseEmail).
	_, err = s.GetOperatorByEmail(f.ctx, "x"+o.Email)
	mustBe(t, "GetOperatorByEmail of a longer address", err, domain.ErrOperatorNotFound)
}

// An email address names one operator across all workspaces: a second
// operator with it, in the same workspace or another, is a conflict and is
// not stored.
func testOperatorEmailUnique(t *testing.T, s Store) {
	f := newFixture(t, s)
	o := f.operator()
	for _, ws := range []domain.WorkspaceID{f.ws, f.otherWorkspace()} {
		dup := NewOperator(t, ws)
		dup.Email = o.Email
		mustBe(t, "CreateOperator with a taken email address", s.CreateOperator(f.ctx, dup), domain.ErrConflict)
		got, err := s.GetOperatorByEmail(f.ctx, o.Email)
		if err != nil {
			t.Fatalf("GetOperatorByEmail: %v", err)
		}
		mustEqual(t, "operator after a conflicting create", o, got)
		// The refused operator's id is free: it was not stored.
		dup.Email = NewEmail()
		if err := s.CreateOperator(f.ctx, dup); err != nil {
			t.Fatalf("CreateOperator of the refused operator with another address: %v", err)
		}
	}
}

// A session reads back as stored, by its token's hash, and so does one
// that has ended: telling them apart is the caller's business.
func testSessionRoundTrip(t *testing.T, s Store) {
	f := newFixture(t, s)
	o := f.operator()
	now := Now()
	live := NewSession(t, o, now)
	ended := NewSession(t, o, now.Add(-2*domain.SessionLifetime))
	for _, sn := range []domain.Session{live, ended} {
		if err := s.CreateSession(f.ctx, sn); err != nil {
			t.Fatalf("CreateSession: %v", err)
		}
		got, err := s.GetSession(f.ctx, sn.TokenHash)
		if err != nil {
			t.Fatalf("GetSession: %v", err)
		}
		mustEqual(t, "session by token hash", sn, got)
	}
	if !ended.Expired(now) || live.Expired(now) {
		t.Fatal("the fixture's sessions do not cover an ended and a live one")
	}
}

func testSessionNotFound(t *testing.T, s Store) {
	f := newFixture(t, s)
	f.session(f.operator(), Now())
	_, err := s.GetSession(f.ctx, NewSession(t, NewOperator(t, f.ws), Now()).TokenHash)
	mustBe(t, "GetSession of an unknown token", err, domain.ErrSessionNotFound)
	_, err = s.GetSession(f.ctx, "")
	mustBe(t, "GetSession of no token", err, domain.ErrSessionNotFound)
}

// DeleteSession ends one sign-in and leaves the operator's others alone;
// ending an unknown or already ended one is not an error.
func testSessionDelete(t *testing.T, s Store) {
	f := newFixture(t, s)
	o := f.operator()
	gone, kept := f.session(o, Now()), f.session(o, Now())
	if err := s.DeleteSession(f.ctx, gone.TokenHash); err != nil {
		t.Fatalf("DeleteSession: %v", err)
	}
	_, err := s.GetSession(f.ctx, gone.TokenHash)
	mustBe(t, "GetSession of a deleted session", err, domain.ErrSessionNotFound)
	got, err := s.GetSession(f.ctx, kept.TokenHash)
	if err != nil {
		t.Fatalf("GetSession of the other session: %v", err)
	}
	mustEqual(t, "the operator's other session", kept, got)
	if err := s.DeleteSession(f.ctx, gone.TokenHash); err != nil {
		t.Fatalf("DeleteSession again: %v", err)
	}
	if err := s.DeleteSession(f.ctx, NewSession(t, o, Now()).TokenHash); err != nil {
		t.Fatalf("DeleteSession of an unknown token: %v", err)
	}
}

// DeleteExpiredSessions removes the sessions that ended before the time,
// and only those, and says how many went. Its sessions end decades ago, so
// no other case's sessions are removed or counted.
func testSessionDeleteExpired(t *testing.T, s Store) {
	f := newFixture(t, s)
	o := f.operator()
	long := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	ended := func(at time.Time) domain.Session { return f.session(o, at.Add(-domain.SessionLifetime)) }
	old, older := ended(long.Add(-time.Hour)), ended(long.Add(-time.Microsecond))
	atLimit, newer, live := ended(long), ended(long.Add(time.Hour)), f.session(o, Now())
	n, err := s.DeleteExpiredSessions(f.ctx, long)
	if err != nil {
		t.Fatalf("DeleteExpiredSessions: %v", err)
	}
	if n != 2 {
		t.Fatalf("DeleteExpiredSessions removed %d sessions, want 2", n)
	}
	for _, sn := range []domain.Session{old, older} {
		_, err := s.GetSession(f.ctx, sn.TokenHash)
		mustBe(t, "GetSession of a session that ended before the time", err, domain.ErrSessionNotFound)
	}
	for _, sn := range []domain.Session{atLimit, newer, live} {
		got, err := s.GetSession(f.ctx, sn.TokenHash)
		if err != nil {
			t.Fatalf("GetSession of a session that ended at or after the time: %v", err)
		}
		mustEqual(t, "session kept", sn, got)
	}
	n, err = s.DeleteExpiredSessions(f.ctx, long)
	if err != nil || n != 0 {
		t.Fatalf("DeleteExpiredSessions again = %d, %v; want 0", n, err)
	}
}
