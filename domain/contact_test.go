package domain_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/heraldhq/herald/domain"
)

func ptr[T any](v T) *T { return &v }

var cmpContact = cmp.AllowUnexported(domain.PhoneNumber{}, domain.KeyMode{})

// syncedContact is a contact with a name, an email, two attributes and two
// tags, last updated at t0.
func syncedContact(t *testing.T) domain.Contact {
	t.Helper()
	c := domain.NewContact("ctc_x", "cnv_x", "wsp_x", domain.ModeTest, domain.MustPhoneNumber("+14155552671"), t0)
	err := c.ApplySync(domain.ContactSync{Name: ptr("Ana"), Email: ptr("ana@example.com"),
		Attributes: map[string]string{"plan": "pro", "city": "Lisbon"}, Tags: []string{"vip", "beta"}}, t0)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestNewContact(t *testing.T) {
	t.Parallel()
	c := domain.NewContact("ctc_x", "cnv_x", "wsp_x", domain.ModeTest, domain.MustPhoneNumber("+14155552671"), t0)
	want := domain.Contact{ID: "ctc_x", ConversationID: "cnv_x", Workspace: "wsp_x", Mode: domain.ModeTest, Phone: domain.MustPhoneNumber("+14155552671"),
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
		{"opting out", domain.ContactSync{OptedOut: ptr(true)}, func(c *domain.Contact) { c.OptedOut, c.OptOutChangedAt = true, &later }},
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
		// PostgreSQL refuses NUL in text: no engine stores it.
		{"NUL in the name", "name", domain.ContactSync{Name: ptr("Bo\x00b")}},
		{"NUL in the email", "email", domain.ContactSync{Email: ptr("bo\x00@example.com")}},
		{"NUL in an attribute name", "attributes", domain.ContactSync{Attributes: map[string]string{"ci\x00ty": "Pune"}}},
		{"NUL in an attribute value", "attributes", domain.ContactSync{Attributes: map[string]string{"city": "Pu\x00ne"}}},
		{"NUL alone as an attribute value", "attributes", domain.ContactSync{Attributes: map[string]string{"city": "\x00"}}},
		{"NUL in a tag", "tags", domain.ContactSync{Tags: []string{"ok", "v\x00ip"}}},
		{"invalid UTF-8 in the name", "name", domain.ContactSync{Name: ptr("Bo\xffb")}},
		{"invalid UTF-8 in a tag", "tags", domain.ContactSync{Tags: []string{"\xc3"}}},
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
	c := domain.NewContact("ctc_x", "cnv_x", "wsp_x", domain.ModeTest, domain.MustPhoneNumber("+14155552671"), t0)
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

func TestSetOptOut(t *testing.T) {
	t.Parallel()
	t1, t2, now := t0.Add(time.Hour), t0.Add(2*time.Hour), t0.Add(3*time.Hour)
	// contact is a synced contact whose opt-out was last set to out at
	// changed (never, when changed is nil).
	contact := func(t *testing.T, out bool, changed *time.Time) domain.Contact {
		c := syncedContact(t)
		c.OptedOut, c.OptOutChangedAt = out, changed
		return c
	}
	cases := []struct {
		name    string
		out     bool // the contact's state before
		changed *time.Time
		setOut  bool // the change
		at      time.Time
		want    bool                    // what SetOptOut reports
		apply   func(c *domain.Contact) // what changes besides UpdatedAt; nil: nothing changes at all
	}{
		{"a first STOP opts out", false, nil, true, t1, true,
			func(c *domain.Contact) { c.OptedOut, c.OptOutChangedAt = true, &t1 }},
		{"a newer START opts back in", true, &t1, false, t2, true,
			func(c *domain.Contact) { c.OptedOut, c.OptOutChangedAt = false, &t2 }},
		{"a newer STOP opts out again", false, &t1, true, t2, true,
			func(c *domain.Contact) { c.OptedOut, c.OptOutChangedAt = true, &t2 }},
		{"an older START is stale", true, &t2, false, t1, false, nil},
		{"an older STOP is stale", false, &t2, true, t1, false, nil},
		{"an older STOP while opted out is stale", true, &t2, true, t1, false, nil},
		{"the same STOP again", true, &t1, true, t1, false, nil},
		{"the same START again", false, &t1, false, t1, false, nil},
		{"a newer STOP while opted out moves the change time", true, &t1, true, t2, true,
			func(c *domain.Contact) { c.OptOutChangedAt = &t2 }},
		{"a START from a contact never opted out records its time", false, nil, false, t1, true,
			func(c *domain.Contact) { c.OptOutChangedAt = &t1 }},
		{"the time is kept in UTC, to the microsecond", false, nil, true,
			time.Date(2026, 11, 22, 12, 0, 0, 123456789, time.FixedZone("CET", 3600)), true,
			func(c *domain.Contact) {
				c.OptedOut, c.OptOutChangedAt = true, ptr(time.Date(2026, 11, 22, 11, 0, 0, 123456000, time.UTC))
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := contact(t, c.out, c.changed)
			want := contact(t, c.out, c.changed)
			if c.apply != nil {
				c.apply(&want)
				want.UpdatedAt = now
			}
			if changed := got.SetOptOut(c.setOut, c.at, now); changed != c.want {
				t.Errorf("SetOptOut reported %v, want %v", changed, c.want)
			}
			if diff := cmp.Diff(want, got, cmpContact); diff != "" {
				t.Errorf("after SetOptOut (-want +got):\n%s", diff)
			}
			if c.apply != nil && got.OptOutChangedAt.Location() != time.UTC {
				t.Errorf("opt-out changed at %v, want UTC", got.OptOutChangedAt)
			}
		})
	}
}

// TestSetOptOutEveryOrdering: Meta delivers a contact's messages in any
// order, and again. Whatever the order, the latest message decides.
func TestSetOptOutEveryOrdering(t *testing.T) {
	t.Parallel()
	type change struct {
		out bool
		at  time.Time
	}
	t1, t2, t3 := t0.Add(time.Minute), t0.Add(2*time.Minute), t0.Add(3*time.Minute)
	cases := []struct {
		name    string
		changes []change
		wantOut bool
		wantAt  time.Time
	}{
		{"STOP then START", []change{{true, t1}, {false, t2}}, false, t2},
		{"START then STOP then START", []change{{false, t1}, {true, t2}, {false, t3}}, false, t3},
		{"STOP then START then STOP", []change{{true, t1}, {false, t2}, {true, t3}}, true, t3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			for _, p := range permutations(c.changes) {
				got := syncedContact(t)
				for _, ch := range append(p, p...) { // every change delivered twice
					got.SetOptOut(ch.out, ch.at, t0.Add(time.Hour))
				}
				if got.OptedOut != c.wantOut || got.OptOutChangedAt == nil || !got.OptOutChangedAt.Equal(c.wantAt) {
					t.Errorf("order %v: opted out %v at %v, want %v at %v", p, got.OptedOut, got.OptOutChangedAt, c.wantOut, c.wantAt)
				}
				if err := got.CanReceive(); (err != nil) != c.wantOut {
					t.Errorf("order %v: CanReceive = %v with opted out %v", p, err, c.wantOut)
				}
			}
		})
	}
}

// TestSyncedOptOutOutranksOlderMessages: a sync records when it set the
// opt-out, so a START written before it and delivered after changes nothing,
// while a START written after it opts the contact back in.
func TestSyncedOptOutOutranksOlderMessages(t *testing.T) {
	t.Parallel()
	synced := t0.Add(time.Hour)
	c := syncedContact(t)
	if err := c.ApplySync(domain.ContactSync{OptedOut: ptr(true)}, synced); err != nil {
		t.Fatal(err)
	}
	if c.OptOutChangedAt == nil || !c.OptOutChangedAt.Equal(synced) {
		t.Fatalf("opt-out changed at %v after a sync at %v", c.OptOutChangedAt, synced)
	}
	before := c
	if c.SetOptOut(false, synced.Add(-time.Minute), synced.Add(time.Minute)) {
		t.Error("a START written before the sync reported a change")
	}
	if diff := cmp.Diff(before, c, cmpContact); diff != "" {
		t.Errorf("a START written before the sync changed the contact (-want +got):\n%s", diff)
	}
	if !errors.Is(c.CanReceive(), domain.ErrContactOptedOut) {
		t.Error("a START written before the sync opted the contact back in")
	}
	if !c.SetOptOut(false, synced.Add(time.Second), synced.Add(time.Minute)) || c.OptedOut {
		t.Errorf("a START written after the sync: opted out %v, want false", c.OptedOut)
	}
}

func TestRecordInbound(t *testing.T) {
	t.Parallel()
	t1, t2, now := t0.Add(time.Hour), t0.Add(2*time.Hour), t0.Add(3*time.Hour)
	// known has written before: at t1, as Ana on WhatsApp.
	known := func(t *testing.T) domain.Contact {
		c := syncedContact(t)
		c.WaID, c.ProfileName, c.LastMessageAt, c.LastInboundAt = "14155552671", "Ana WA", &t1, &t1
		return c
	}
	cases := []struct {
		name          string
		base          func(t *testing.T) domain.Contact
		waID, profile string
		at            time.Time
		apply         func(c *domain.Contact) // what changes besides UpdatedAt
	}{
		{"a first message records everything", syncedContact, "14155552671", "Ana WA", t1,
			func(c *domain.Contact) { c.WaID, c.ProfileName, c.LastMessageAt = "14155552671", "Ana WA", &t1 }},
		{"a newer message moves the last message time", known, "14155552671", "Ana WA", t2,
			func(c *domain.Contact) { c.LastMessageAt = &t2 }},
		{"an older message keeps the last message time", known, "14155552671", "Ana WA", t0,
			func(c *domain.Contact) {}},
		{"a new profile name replaces the old one, trimmed", known, "14155552671", "  Ana Maria \n", t2,
			func(c *domain.Contact) { c.ProfileName, c.LastMessageAt = "Ana Maria", &t2 }},
		{"an empty WhatsApp id and a blank name keep what is known", known, "", "   ", t2,
			func(c *domain.Contact) { c.LastMessageAt = &t2 }},
		{"a changed WhatsApp id replaces the old one", known, "5511999990000", "", t2,
			func(c *domain.Contact) { c.WaID, c.LastMessageAt = "5511999990000", &t2 }},
		{"a long name is cut to 256 characters, multi-byte ones whole", known, "", strings.Repeat("é😀", 200), t1,
			func(c *domain.Contact) { c.ProfileName = strings.Repeat("é😀", 128) }},
		{"a name of 256 characters is kept", known, "", strings.Repeat("😀", 256), t1,
			func(c *domain.Contact) { c.ProfileName = strings.Repeat("😀", 256) }},
		{"the time is kept in UTC, to the microsecond", syncedContact, "14155552671", "",
			time.Date(2026, 11, 22, 12, 0, 0, 123456789, time.FixedZone("CET", 3600)),
			func(c *domain.Contact) {
				c.WaID, c.LastMessageAt = "14155552671", ptr(time.Date(2026, 11, 22, 11, 0, 0, 123456000, time.UTC))
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got, want := c.base(t), c.base(t)
			c.apply(&want)
			want.UpdatedAt = now
			want.LastInboundAt = want.LastMessageAt // these contacts had only inbound messages
			got.RecordInbound(c.waID, c.profile, c.at, now)
			if diff := cmp.Diff(want, got, cmpContact); diff != "" {
				t.Fatalf("after RecordInbound (-want +got):\n%s", diff)
			}
			if !utf8.ValidString(got.ProfileName) {
				t.Fatalf("profile name %q is not valid UTF-8", got.ProfileName)
			}
			if got.LastMessageAt.Location() != time.UTC {
				t.Fatalf("last message at %v, want UTC", got.LastMessageAt)
			}
		})
	}
}

func TestTouchNeverMovesBack(t *testing.T) {
	t.Parallel()
	t1, t2 := t0.Add(time.Hour), t0.Add(2*time.Hour)
	cases := []struct {
		name  string
		last  *time.Time // LastMessageAt before
		touch time.Time
		want  time.Time
	}{
		{"a first message", nil, t1, t1},
		{"a later message", &t1, t2, t2},
		{"an earlier time keeps the latest", &t2, t1, t2},
		{"the same time", &t1, t1, t1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := syncedContact(t)
			got.LastMessageAt = c.last
			want := syncedContact(t)
			want.LastMessageAt, want.UpdatedAt = &c.want, c.touch
			got.Touch(c.touch)
			if diff := cmp.Diff(want, got, cmpContact); diff != "" {
				t.Fatalf("after Touch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSyncRepeatingTheValueDoesNotOutrankALateStop: a CRM that always sends
// optedOut:false must not cancel a STOP that Meta delivers late.
func TestSyncRepeatingTheValueDoesNotOutrankALateStop(t *testing.T) {
	t.Parallel()
	c := domain.NewContact("ctc_x", "cnv_x", "wsp_x", domain.ModeTest, domain.MustPhoneNumber("+14155552671"), t0)
	if err := c.ApplySync(domain.ContactSync{OptedOut: ptr(false)}, t0.Add(2*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if c.OptOutChangedAt != nil {
		t.Fatalf("a sync that changed nothing recorded an opt-out change at %v", c.OptOutChangedAt)
	}
	if !c.SetOptOut(true, t0.Add(time.Minute), t0.Add(3*time.Minute)) || !c.OptedOut {
		t.Errorf("a STOP written before the sync but delivered after it was ignored")
	}
}

// TestStopAndStartInTheSameSecond leave the contact opted out, whichever
// arrives last.
func TestStopAndStartInTheSameSecond(t *testing.T) {
	t.Parallel()
	for _, order := range [][]bool{{true, false}, {false, true}} {
		c := domain.NewContact("ctc_x", "cnv_x", "wsp_x", domain.ModeTest, domain.MustPhoneNumber("+14155552671"), t0)
		for _, out := range order {
			c.SetOptOut(out, t0, t0)
		}
		if !c.OptedOut {
			t.Errorf("order %v: opted in, want opted out", order)
		}
	}
}
