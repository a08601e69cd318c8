package porttest

import (
	"cmp"
	"context"
	"crypto/rand"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/heraldhq/herald/domain"
)

// endpointTests run in parallel, each in its own workspace: they never
// claim, sequence or purge, which look across workspaces.
var endpointTests = []storeTest{
	{"RoundTrip", testEndpointRoundTrip},
	{"Conflict", testEndpointConflict},
	{"NotFoundAcrossWorkspaceAndMode", testEndpointNotFound},
	{"SecretsNewestFirst", testEndpointSecretsNewestFirst},
	{"Update", testEndpointUpdate},
	{"UpdateError", testEndpointUpdateError},
	{"DisableAndEnable", testEndpointDisableAndEnable},
	{"Delete", testEndpointDelete},
}

// endpoint stores an endpoint of the fixture's workspace, and deletes it
// (with its deliveries and attempts) when the test ends, so that the
// delivery cases, which claim across workspaces, leave nothing due behind.
func (f *fixture) endpoint(mode domain.KeyMode, events domain.EventSubscription) domain.WebhookEndpoint {
	f.t.Helper()
	e := NewEndpoint(f.t, f.ws, mode, events)
	f.createEndpoint(e)
	return cloneEndpoint(e)
}

func (f *fixture) createEndpoint(e domain.WebhookEndpoint) {
	f.t.Helper()
	if err := f.s.CreateEndpoint(f.ctx, cloneEndpoint(e)); err != nil {
		f.t.Fatalf("CreateEndpoint: %v", err)
	}
	f.t.Cleanup(func() {
		err := f.s.DeleteEndpoint(context.Background(), e.Workspace, e.Mode, e.ID)
		if err != nil && !errors.Is(err, domain.ErrWebhookEndpointNotFound) {
			f.t.Errorf("DeleteEndpoint in cleanup: %v", err)
		}
	})
}

// disabledEndpoint stores an endpoint that someone disabled.
func (f *fixture) disabledEndpoint(mode domain.KeyMode, events domain.EventSubscription) domain.WebhookEndpoint {
	f.t.Helper()
	e := NewEndpoint(f.t, f.ws, mode, events)
	e.Disable(Now())
	f.createEndpoint(e)
	return cloneEndpoint(e)
}

func (f *fixture) getEndpoint(id domain.WebhookEndpointID) domain.WebhookEndpoint {
	f.t.Helper()
	e, err := f.s.GetEndpoint(f.ctx, f.ws, domain.KeyMode{}, id)
	if err != nil {
		f.t.Fatalf("GetEndpoint: %v", err)
	}
	return e
}

func (f *fixture) updateEndpoint(e domain.WebhookEndpoint, fn func(*domain.WebhookEndpoint)) domain.WebhookEndpoint {
	f.t.Helper()
	got, err := f.s.UpdateEndpoint(f.ctx, e.Workspace, e.Mode, e.ID, func(e *domain.WebhookEndpoint) error {
		fn(e)
		return nil
	})
	if err != nil {
		f.t.Fatalf("UpdateEndpoint: %v", err)
	}
	return got
}

// An endpoint reads back as written, by id and in its workspace's list,
// oldest first, with its subscription (a list, or every type) and its
// secrets, one of them rotated out and expiring.
func testEndpointRoundTrip(t *testing.T, s Store) {
	f := newFixture(t, s)
	e := NewEndpoint(t, f.ws, domain.ModeLive, Subscribe(t, "message.read", "message.delivered", "contact.opted_out"))
	key, err := domain.NewWebhookSecretKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Rotate(key, e.CreatedAt.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	e.Disable(e.CreatedAt.Add(2 * time.Minute))
	failing := e.CreatedAt.Add(90 * time.Second)
	e.FailingSince = &failing
	f.createEndpoint(e)
	mustEqual(t, "endpoint read back", e, f.getEndpoint(e.ID))
	all := f.endpoint(domain.ModeLive, domain.AllEvents())

	list, err := s.ListEndpoints(f.ctx, f.ws, domain.ModeLive)
	if err != nil {
		t.Fatalf("ListEndpoints: %v", err)
	}
	want := []domain.WebhookEndpoint{e, all}
	slices.SortFunc(want, func(a, b domain.WebhookEndpoint) int { return cmp.Compare(a.ID, b.ID) }) // oldest first
	mustEqual(t, "endpoints listed", want, list)
	if got := f.getEndpoint(all.ID); !got.Events.All() || len(got.Events.Types()) != 0 {
		t.Fatalf("an endpoint subscribed to every type reads back as %v", got.Events.Names())
	}
}

// A second endpoint with a stored id is a conflict, and changes nothing.
func testEndpointConflict(t *testing.T, s Store) {
	f := newFixture(t, s)
	e := f.endpoint(domain.ModeLive, domain.AllEvents())
	again := NewEndpoint(t, f.ws, domain.ModeLive, Subscribe(t, "message.sent"))
	again.ID = e.ID
	mustBe(t, "CreateEndpoint with a stored id", s.CreateEndpoint(f.ctx, again), domain.ErrConflict)
	mustEqual(t, "endpoint after the conflict", e, f.getEndpoint(e.ID))
}

// Another workspace's endpoint, or another mode's, is not found, for every
// method that names one; the zero mode finds every mode's.
func testEndpointNotFound(t *testing.T, s Store) {
	f := newFixture(t, s)
	e := f.endpoint(domain.ModeTest, domain.AllEvents())
	other := f.otherWorkspace()
	for _, c := range []struct {
		what string
		ws   domain.WorkspaceID
		mode domain.KeyMode
	}{
		{"another workspace", other, domain.ModeTest},
		{"another workspace, any mode", other, domain.KeyMode{}},
		{"another mode", f.ws, domain.ModeLive},
	} {
		_, err := s.GetEndpoint(f.ctx, c.ws, c.mode, e.ID)
		mustBe(t, "GetEndpoint of "+c.what, err, domain.ErrWebhookEndpointNotFound)
		_, err = s.UpdateEndpoint(f.ctx, c.ws, c.mode, e.ID, func(e *domain.WebhookEndpoint) error {
			t.Errorf("UpdateEndpoint of %s ran its function", c.what)
			return nil
		})
		mustBe(t, "UpdateEndpoint of "+c.what, err, domain.ErrWebhookEndpointNotFound)
		mustBe(t, "DeleteEndpoint of "+c.what, s.DeleteEndpoint(f.ctx, c.ws, c.mode, e.ID), domain.ErrWebhookEndpointNotFound)
		_, err = s.ListEndpointAttempts(f.ctx, c.ws, c.mode, e.ID, 10)
		mustBe(t, "ListEndpointAttempts of "+c.what, err, domain.ErrWebhookEndpointNotFound)
		_, err = s.Recover(f.ctx, c.ws, c.mode, e.ID, Now(), Now())
		mustBe(t, "Recover of "+c.what, err, domain.ErrWebhookEndpointNotFound)
		list, err := s.ListEndpoints(f.ctx, c.ws, c.mode)
		if err != nil || len(list) != 0 {
			t.Errorf("ListEndpoints of %s = %d endpoints, %v; want none", c.what, len(list), err)
		}
	}
	_, err := s.GetEndpoint(f.ctx, f.ws, domain.ModeTest, "whe_01m80000000000000000000000")
	mustBe(t, "GetEndpoint of an unknown id", err, domain.ErrWebhookEndpointNotFound)
	mustEqual(t, "GetEndpoint with the zero mode", e, f.getEndpoint(e.ID))
	list, err := s.ListEndpoints(f.ctx, f.ws, domain.KeyMode{})
	if err != nil {
		t.Fatalf("ListEndpoints with the zero mode: %v", err)
	}
	mustEqual(t, "ListEndpoints with the zero mode", []domain.WebhookEndpoint{e}, list)
}

// Secrets are kept newest first, whatever order they are given in.
func testEndpointSecretsNewestFirst(t *testing.T, s Store) {
	f := newFixture(t, s)
	e := NewEndpoint(t, f.ws, domain.ModeLive, domain.AllEvents())
	older := e.Secrets[0]
	older.CreatedAt = older.CreatedAt.Add(-time.Hour)
	expires := older.CreatedAt.Add(25 * time.Hour)
	older.ExpiresAt = &expires
	newer := domain.EndpointSecret{Key: append([]byte("0123456789abcdef"), older.Key[:16]...), CreatedAt: e.CreatedAt}
	e.Secrets = []domain.EndpointSecret{older, newer}
	f.createEndpoint(e)
	got := f.getEndpoint(e.ID)
	mustEqual(t, "secrets read back", []domain.EndpointSecret{newer, older}, got.Secrets)
}

// Every field fn changes is stored, subscription and secrets replaced;
// the id, workspace, mode and creation time are kept whatever fn does.
func testEndpointUpdate(t *testing.T, s Store) {
	f := newFixture(t, s)
	e := f.endpoint(domain.ModeLive, Subscribe(t, "message.sent"))
	at := e.CreatedAt.Add(time.Hour)
	key, err := domain.NewWebhookSecretKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	want := cloneEndpoint(e)
	url, desc, events := "https://other.example.com/hooks", "all of it", domain.AllEvents()
	if err := want.Change(domain.EndpointChange{URL: &url, Description: &desc, Events: &events}, domain.WebhookPolicy{}, at); err != nil {
		t.Fatal(err)
	}
	if err := want.Rotate(key, at); err != nil {
		t.Fatal(err)
	}
	want.RecordAttempt(500, at, 0)
	got := f.updateEndpoint(e, func(c *domain.WebhookEndpoint) {
		*c = cloneEndpoint(want)
		c.ID, c.Workspace, c.Mode, c.CreatedAt = "whe_other", "wsp_other", domain.ModeTest, at
	})
	mustEqual(t, "UpdateEndpoint's result", want, got)
	mustEqual(t, "endpoint read back", want, f.getEndpoint(e.ID))

	// And back to a list: the '*' row goes.
	back := f.updateEndpoint(e, func(c *domain.WebhookEndpoint) { c.Events = Subscribe(t, "message.failed") })
	if names := f.getEndpoint(e.ID).Events.Names(); len(names) != 1 || names[0] != "message.failed" || back.Events.All() {
		t.Fatalf("subscription after the second update: %v", names)
	}
}

// An update whose function fails stores nothing.
func testEndpointUpdateError(t *testing.T, s Store) {
	f := newFixture(t, s)
	e := f.endpoint(domain.ModeLive, domain.AllEvents())
	boom := errors.New("boom")
	_, err := s.UpdateEndpoint(f.ctx, f.ws, domain.ModeLive, e.ID, func(c *domain.WebhookEndpoint) error {
		c.URL = "https://changed.example.com"
		c.Disable(Now())
		c.Secrets = nil
		return boom
	})
	mustBe(t, "UpdateEndpoint with a failing function", err, boom)
	mustEqual(t, "endpoint after the failed update", e, f.getEndpoint(e.ID))
}

// Disabling an endpoint takes the due times of its pending deliveries
// away; enabling it makes them due when it was enabled. Another endpoint's
// deliveries of the same event are not touched.
func testEndpointDisableAndEnable(t *testing.T, s Store) {
	f := newFixture(t, s)
	e := f.endpoint(domain.ModeLive, domain.AllEvents())
	other := f.endpoint(domain.ModeLive, domain.AllEvents())
	ev := f.appendEvent(NewEvent(t, f.ws, domain.ModeLive, domain.EventContactOptedOut, "", Now()))
	disabled := f.updateEndpoint(e, func(c *domain.WebhookEndpoint) { c.Disable(Now()) })
	if disabled.Status != domain.EndpointDisabled || disabled.DisabledReason != domain.DisabledManually {
		t.Fatalf("disabled endpoint: %v, %v", disabled.Status, disabled.DisabledReason)
	}
	f.mustDeliveries(ev, pendingAt(e.ID, nil, ev.OccurredAt), pendingAt(other.ID, &ev.OccurredAt, ev.OccurredAt))

	enabledAt := Now().Add(time.Minute)
	enabled := f.updateEndpoint(e, func(c *domain.WebhookEndpoint) { c.Enable(enabledAt) })
	f.mustDeliveries(ev, pendingAt(e.ID, &enabled.UpdatedAt, ev.OccurredAt), pendingAt(other.ID, &ev.OccurredAt, ev.OccurredAt))
	if !enabled.UpdatedAt.Equal(enabledAt) {
		t.Fatalf("enabled at %v, want %v", enabled.UpdatedAt, enabledAt)
	}
}

// Deleting an endpoint removes it and its deliveries; the events stay, and
// so do the other endpoints' deliveries of them.
func testEndpointDelete(t *testing.T, s Store) {
	f := newFixture(t, s)
	e := f.endpoint(domain.ModeLive, domain.AllEvents())
	kept := f.endpoint(domain.ModeLive, domain.AllEvents())
	ev := f.appendEvent(NewEvent(t, f.ws, domain.ModeLive, domain.EventContactOptedIn, "", Now()))
	if err := s.DeleteEndpoint(f.ctx, f.ws, domain.ModeLive, e.ID); err != nil {
		t.Fatalf("DeleteEndpoint: %v", err)
	}
	_, err := s.GetEndpoint(f.ctx, f.ws, domain.ModeLive, e.ID)
	mustBe(t, "GetEndpoint after DeleteEndpoint", err, domain.ErrWebhookEndpointNotFound)
	mustBe(t, "DeleteEndpoint again", s.DeleteEndpoint(f.ctx, f.ws, domain.ModeLive, e.ID), domain.ErrWebhookEndpointNotFound)
	mustEqual(t, "event after DeleteEndpoint", ev, f.getOutboxEvent(ev.ID))
	f.mustDeliveries(ev, pendingAt(kept.ID, &ev.OccurredAt, ev.OccurredAt))
}
