package domain_test

import (
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/heraldhq/herald/domain"
)

func TestNewWebhookEvent(t *testing.T) {
	t.Parallel()
	body := []byte(`{"object":"whatsapp_business_account","entry":[]}`)
	received := time.Date(2026, 11, 22, 11, 0, 5, 123456789, time.FixedZone("CET", 3600))
	got := domain.NewWebhookEvent("whk_x", body, "5f2b", received)
	want := domain.WebhookEvent{ID: "whk_x", Body: body, SHA256: "5f2b",
		ReceivedAt: time.Date(2026, 11, 22, 10, 0, 5, 123456000, time.UTC)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("new event (-want +got):\n%s", diff)
	}
	if got.ReceivedAt.Location() != time.UTC {
		t.Fatalf("received at %v, want UTC", got.ReceivedAt)
	}
}

func TestWebhookEventOutcomes(t *testing.T) {
	t.Parallel()
	applied := time.Date(2026, 11, 22, 11, 0, 5, 123456789, time.FixedZone("CET", 3600))
	appliedUTC := time.Date(2026, 11, 22, 10, 0, 5, 123456000, time.UTC)
	// fresh is an event just stored; failedOnce has failed once.
	fresh := func() domain.WebhookEvent { return domain.NewWebhookEvent("whk_x", []byte("{}"), "44136fa3", t0) }
	failedOnce := func() domain.WebhookEvent {
		e := fresh()
		e.Attempts, e.LastError = 1, "unavailable: the database is unavailable"
		return e
	}
	cases := []struct {
		name   string
		base   func() domain.WebhookEvent
		record func(e *domain.WebhookEvent)
		apply  func(e *domain.WebhookEvent) // what changes
	}{
		{"applied at once", fresh, func(e *domain.WebhookEvent) { e.Applied(applied) },
			func(e *domain.WebhookEvent) { e.AppliedAt, e.Attempts = &appliedUTC, 1 }},
		{"applied after a failure clears the error", failedOnce, func(e *domain.WebhookEvent) { e.Applied(applied) },
			func(e *domain.WebhookEvent) { e.AppliedAt, e.Attempts, e.LastError = &appliedUTC, 2, "" }},
		{"a failure keeps the reason", fresh, func(e *domain.WebhookEvent) { e.Failed("conflict: the contact changed") },
			func(e *domain.WebhookEvent) { e.Attempts, e.LastError = 1, "conflict: the contact changed" }},
		{"a second failure keeps the latest reason", failedOnce, func(e *domain.WebhookEvent) { e.Failed("timeout") },
			func(e *domain.WebhookEvent) { e.Attempts, e.LastError = 2, "timeout" }},
		{"a reason of 1000 characters is kept whole", fresh, func(e *domain.WebhookEvent) { e.Failed(strings.Repeat("é", 1000)) },
			func(e *domain.WebhookEvent) { e.Attempts, e.LastError = 1, strings.Repeat("é", 1000) }},
		{"a longer reason is cut to 1000 characters, multi-byte ones whole", fresh,
			func(e *domain.WebhookEvent) { e.Failed("x" + strings.Repeat("😀", 1500)) },
			func(e *domain.WebhookEvent) { e.Attempts, e.LastError = 1, "x"+strings.Repeat("😀", 999) }},
		{"NUL and invalid UTF-8 in a reason become U+FFFD", fresh, func(e *domain.WebhookEvent) { e.Failed("bad \x00 and \xff") },
			func(e *domain.WebhookEvent) { e.Attempts, e.LastError = 1, "bad \uFFFD and \uFFFD" }},
		{"applied, failed, applied again", fresh,
			func(e *domain.WebhookEvent) { e.Applied(t0); e.Failed("boom"); e.Applied(applied) },
			func(e *domain.WebhookEvent) { e.AppliedAt, e.Attempts = &appliedUTC, 3 }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got, want := c.base(), c.base()
			c.record(&got)
			c.apply(&want)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("event (-want +got):\n%s", diff)
			}
			if !utf8.ValidString(got.LastError) {
				t.Fatalf("last error %q is not valid UTF-8", got.LastError)
			}
			if got.AppliedAt != nil && got.AppliedAt.Location() != time.UTC {
				t.Fatalf("applied at %v, want UTC", got.AppliedAt)
			}
		})
	}
}

func TestParseWebhookEventID(t *testing.T) {
	t.Parallel()
	good := domain.NewID(domain.PrefixWebhookEvent, t0, [10]byte{9, 8, 7})
	if got, err := domain.ParseWebhookEventID(good); err != nil || string(got) != good {
		t.Fatalf("ParseWebhookEventID(%q) = %q, %v", good, got, err)
	}
	if !strings.HasPrefix(good, "whk_") {
		t.Fatalf("a webhook event id is %q, want whk_…", good)
	}
	body := good[4:]
	// An id as it was shown before webhook events took whk_ is the same
	// event's.
	if got, err := domain.ParseWebhookEventID("evt_" + body); err != nil || string(got) != good {
		t.Fatalf("ParseWebhookEventID(evt_%s) = %q, %v; want %q", body, got, err, good)
	}
	for _, bad := range []string{
		"",
		"whk",
		"whk_",
		"evt_",
		domain.NewID(domain.PrefixMessage, t0, [10]byte{9, 8, 7}), // another entity's id
		"WHK_" + body,
		"whk-" + body,
		good[:29],
		good + "0",
		"whk_" + strings.ToUpper(body),
		"whk_" + body[:25] + "u",
		"whk_8" + body[1:],
		"evt_8" + body[1:],
		" " + good,
	} {
		got, err := domain.ParseWebhookEventID(bad)
		if !errors.Is(err, domain.ErrWebhookEventNotFound) {
			t.Errorf("%q: %v, want webhook_event_not_found", bad, err)
		}
		var de *domain.Error
		if errors.As(err, &de) && de.Detail != "no webhook event with this id" {
			t.Errorf("%q: detail %q", bad, de.Detail)
		}
		if got != "" {
			t.Errorf("%q: parsed as %q with an error", bad, got)
		}
	}
}
