package domain_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/heraldhq/herald/domain"
)

func ptr[T any](v T) *T { return &v }

var cmpContact = cmp.AllowUnexported(domain.PhoneNumber{})

// syncedContact is a contact with a name, an email, two attributes and two
// tags, last updated at t0.
func syncedContact(t *testing.T) domain.Contact {
	t.Helper()
	c := domain.NewContact("ctc_x", "cnv_x", "wsp_x", domain.MustPhoneNumber("+14155552671"), t0)
	err := c.ApplySync(domain.ContactSync{Name: ptr("Ana"), Email: ptr("ana@example.com"),
		Attributes: map[string]string{"plan": "pro", "city": "Lisbon"}, Tags: []string{"vip", "beta"}}, t0)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestNewContact(t *testing.T) {
	t.Parallel()
	c := domain.NewContact("ctc_x", "cnv_x", "wsp_x", domain.MustPhoneNumber("+14155552671"), t0)
	want := domain.Contact{ID: "ctc_x", ConversationID: "cnv_x", Workspace: "wsp_x", Phone: domain.MustPhoneNumber("+14155552671"),
		Attributes: map[string]string{}, Tags: []string{}, CreatedAt: t0, UpdatedAt: t0}
	if diff := cmp.Diff(want, c, cmpContact); diff != "" {
		t.Fatalf("new contact (-want +got):\n%s", diff)
	}
	if err := c.CanReceive(); err != nil {
		t.Fatalf("a new contact cannot receive: %v", err)
	}
}

func TestApplySync(t *testing.T) {
	t.Parallel()
	later := t0.Add(time.Hour)
	base := func(t *testing.T) domain.Contact { return syncedContact(t) }
	cases := []struct {
		name string
		sync domain.ContactSync
		want func(c *domain.Contact) // what changes besides UpdatedAt
	}{
		{"nothing given changes nothing", domain.ContactSync{}, func(c *domain.Contact) {}},
		{"name is trimmed", domain.ContactSync{Name: ptr("  Ana Maria ")}, func(c *domain.Contact) { c.Name = "Ana Maria" }},
		{"empty name clears it", domain.ContactSync{Name: ptr("")}, func(c *domain.Contact) { c.Name = "" }},
		{"empty email clears it", domain.ContactSync{Email: ptr("")}, func(c *domain.Contact) { c.Email = "" }},
		{"attributes merge key by key", domain.ContactSync{Attributes: map[string]string{"lang": "pt", "plan": "team"}},
			func(c *domain.Contact) {
				c.Attributes = map[string]string{"plan": "team", "city": "Lisbon", "lang": "pt"}
			}},
		{"an empty value deletes the key", domain.ContactSync{Attributes: map[string]string{"city": "", "missing": ""}},
			func(c *domain.Contact) { c.Attributes = map[string]string{"plan": "pro"} }},
		{"tags replace, deduplicated, trimmed and sorted", domain.ContactSync{Tags: []string{"zeta", " alpha ", "zeta", "alpha", "mid"}},
			func(c *domain.Contact) { c.Tags = []string{"alpha", "mid", "zeta"} }},
		{"an empty tag list clears the tags", domain.ContactSync{Tags: []string{}},
			func(c *domain.Contact) { c.Tags = []string{} }},
		{"opting out", domain.ContactSync{OptedOut: ptr(true)}, func(c *domain.Contact) { c.OptedOut = true }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := base(t)
			want := base(t)
			c.want(&want)
			want.UpdatedAt = later
			if err := got.ApplySync(c.sync, later); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got, cmpContact); diff != "" {
				t.Fatalf("after sync (-want +got):\n%s", diff)
			}
		})
	}
}

func TestApplySyncRefuses(t *testing.T) {
	t.Parallel()
	many := func(n int, prefix string) map[string]string {
		m := map[string]string{}
		for i := range n {
			m[fmt.Sprint(prefix, i)] = "v"
		}
		return m
	}
	tags := func(n int) []string {
		var s []string
		for i := range n {
			s = append(s, fmt.Sprint("t", i))
		}
		return s
	}
	cases := []struct {
		name, param string
		sync        domain.ContactSync
	}{
		{"invalid email", "email", domain.ContactSync{Name: ptr("Bo"), Email: ptr("not an email"), Tags: []string{"x"}}},
		{"email with a display name", "email", domain.ContactSync{Email: ptr("Bo <bo@example.com>")}},
		{"email with spaces around", "email", domain.ContactSync{Email: ptr(" bo@example.com ")}},
		{"name of 257 characters", "name", domain.ContactSync{Name: ptr(strings.Repeat("é", 257))}},
		{"empty attribute name", "attributes", domain.ContactSync{Attributes: map[string]string{"": "x"}}},
		{"attribute name of 65 bytes", "attributes", domain.ContactSync{Attributes: map[string]string{strings.Repeat("k", 65): "x"}}},
		{"attribute value of 1025 characters", "attributes", domain.ContactSync{Attributes: map[string]string{"k": strings.Repeat("é", 1025)}}},
		{"49 new attributes on top of 2", "attributes", domain.ContactSync{Attributes: many(49, "k")}},
		{"empty tag", "tags", domain.ContactSync{Tags: []string{"ok", "  "}}},
		{"tag of 65 characters", "tags", domain.ContactSync{Tags: []string{strings.Repeat("é", 65)}}},
		{"51 tags", "tags", domain.ContactSync{Tags: tags(51)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := syncedContact(t)
			err := got.ApplySync(c.sync, t0.Add(time.Hour))
			var de *domain.Error
			if !errors.Is(err, domain.ErrInvalidParameter) || !errors.As(err, &de) || de.Param != c.param {
				t.Fatalf("err %v, want invalid_parameter (%s)", err, c.param)
			}
			if diff := cmp.Diff(syncedContact(t), got, cmpContact); diff != "" {
				t.Fatalf("a refused sync changed the contact (-want +got):\n%s", diff)
			}
		})
	}
}

func TestApplySyncLimits(t *testing.T) {
	t.Parallel()
	c := domain.NewContact("ctc_x", "cnv_x", "wsp_x", domain.MustPhoneNumber("+14155552671"), t0)
	attrs := map[string]string{}
	for i := range 50 {
		attrs[fmt.Sprint("k", i)] = strings.Repeat("é", 1024)
	}
	attrs[strings.Repeat("k", 64)] = "" // deleting a key that is not there does not count
	var tags []string
	for i := range 50 {
		tags = append(tags, fmt.Sprint("t", i))
	}
	tags[0] = strings.Repeat("é", 64)
	if err := c.ApplySync(domain.ContactSync{Name: ptr(strings.Repeat("é", 256)), Attributes: attrs, Tags: tags}, t0); err != nil {
		t.Fatalf("everything at its limit is refused: %v", err)
	}
	if len(c.Attributes) != 50 || len(c.Tags) != 50 {
		t.Fatalf("%d attributes and %d tags, want 50 and 50", len(c.Attributes), len(c.Tags))
	}
	// Replacing one attribute by another keeps the count at 50.
	if err := c.ApplySync(domain.ContactSync{Attributes: map[string]string{"k0": "", "new": "v"}}, t0); err != nil {
		t.Fatalf("delete one, add one at the limit: %v", err)
	}
	if err := c.ApplySync(domain.ContactSync{Attributes: map[string]string{"another": "v"}}, t0); !errors.Is(err, domain.ErrInvalidParameter) {
		t.Fatalf("a 51st attribute: %v, want invalid_parameter", err)
	}
}

func TestCanReceive(t *testing.T) {
	t.Parallel()
	c := syncedContact(t)
	if err := c.CanReceive(); err != nil {
		t.Fatalf("a contact who did not opt out cannot receive: %v", err)
	}
	if err := c.ApplySync(domain.ContactSync{OptedOut: ptr(true)}, t0); err != nil {
		t.Fatal(err)
	}
	err := c.CanReceive()
	var de *domain.Error
	if !errors.Is(err, domain.ErrContactOptedOut) || !errors.As(err, &de) || de.Param != "phoneNumber" {
		t.Fatalf("an opted-out contact: %v, want contact_opted_out on phoneNumber", err)
	}
	if err := c.ApplySync(domain.ContactSync{OptedOut: ptr(false)}, t0); err != nil {
		t.Fatal(err)
	}
	if err := c.CanReceive(); err != nil {
		t.Fatalf("a contact who opted in again cannot receive: %v", err)
	}
}

func TestTouch(t *testing.T) {
	t.Parallel()
	c := syncedContact(t)
	c.Touch(t0.Add(time.Minute))
	if c.LastMessageAt == nil || !c.LastMessageAt.Equal(t0.Add(time.Minute)) {
		t.Fatalf("last message at %v, want %v", c.LastMessageAt, t0.Add(time.Minute))
	}
}
