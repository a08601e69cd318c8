package domain_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/heraldhq/herald/domain"
)

func TestEventTypes(t *testing.T) {
	t.Parallel()
	want := []string{"message.sent", "message.delivered", "message.read", "message.failed", "message.received",
		"contact.opted_out", "contact.opted_in", "template.status_changed", "campaign.status_changed", "phone_number.quality_changed",
		"webhook.test"}
	var got []string
	for _, et := range domain.EventTypes() {
		got = append(got, et.String())
		parsed, err := domain.ParseEventType(et.String())
		if err != nil || parsed != et || parsed.IsZero() {
			t.Errorf("ParseEventType(%q) = %v, %v", et, parsed, err)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("EventTypes (-want +got):\n%s", diff)
	}
	if !(domain.EventType{}).IsZero() || (domain.EventType{}).String() != "" {
		t.Error("the zero event type is not zero")
	}
	for _, et := range domain.EventTypes() {
		if got, want := et.IsMessage(), strings.HasPrefix(et.String(), "message."); got != want {
			t.Errorf("%s.IsMessage() = %v", et, got)
		}
	}
}

func TestParseEventTypeRefusesUnknownNames(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "message", "Message.Sent", "message.sent ", "message.*", "*", "message.bounced"} {
		_, err := domain.ParseEventType(s)
		var de *domain.Error
		if !errors.As(err, &de) || de.Code != domain.CodeInvalidEventType || !strings.Contains(de.Detail, `unknown event type "`+s+`"`) {
			t.Errorf("ParseEventType(%q) = %v, want invalid_event_type naming it", s, err)
		}
	}
	_, err := domain.ParseEventType(strings.Repeat("x", 300) + "\x00")
	if de := (*domain.Error)(nil); !errors.As(err, &de) || strings.Contains(de.Detail, "\x00") || len(de.Detail) > 400 {
		t.Errorf("a long name with a NUL is quoted as sent: %v", err)
	}
}

func TestEventTypeForStatus(t *testing.T) {
	t.Parallel()
	want := map[domain.MessageStatus]string{
		domain.StatusSent: "message.sent", domain.StatusDelivered: "message.delivered",
		domain.StatusRead: "message.read", domain.StatusFailed: "message.failed",
	}
	for _, s := range domain.MessageStatuses() {
		et, ok := domain.EventTypeForStatus(s)
		if w, has := want[s]; ok != has || et.String() != w {
			t.Errorf("EventTypeForStatus(%s) = %v, %v; want %q, %v", s, et, ok, w, has)
		}
	}
}

func TestParseEventTypes(t *testing.T) {
	t.Parallel()
	got, err := domain.ParseEventTypes("types", []string{"message.read", "message.sent", "message.read"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]domain.EventType{domain.EventMessageRead, domain.EventMessageSent}, got, cmp.Comparer(func(a, b domain.EventType) bool { return a == b })); diff != "" {
		t.Errorf("duplicates collapse, order kept (-want +got):\n%s", diff)
	}
	if got, err := domain.ParseEventTypes("types", nil); got != nil || err != nil {
		t.Errorf("no names = %v, %v; want nil, nil", got, err)
	}
	_, err = domain.ParseEventTypes("types", []string{"message.sent", "nope", "other"})
	var de *domain.Error
	if !errors.As(err, &de) || de.Code != domain.CodeInvalidEventType || de.Param != "types" || !strings.Contains(de.Detail, `"nope"`) {
		t.Errorf("an unknown name: %v, want invalid_event_type on types naming nope", err)
	}
}

func TestParseEventSubscription(t *testing.T) {
	t.Parallel()
	everyType := []domain.EventType{}
	for _, et := range domain.EventTypes() {
		if et != domain.EventWebhookTest {
			everyType = append(everyType, et)
		}
	}
	cases := []struct {
		name    string
		in      []string
		names   []string           // Names() of the result
		matches []domain.EventType // exactly these types match
		detail  string             // an invalid_event_type on events saying this
	}{
		{name: "every type", in: []string{"*"}, names: []string{"*"}, matches: everyType},
		{name: "every type, twice", in: []string{"*", "*"}, names: []string{"*"}, matches: everyType},
		{name: "a list", in: []string{"message.delivered", "message.failed"}, names: []string{"message.delivered", "message.failed"},
			matches: []domain.EventType{domain.EventMessageDelivered, domain.EventMessageFailed}},
		{name: "duplicates collapse", in: []string{"contact.opted_out", "message.read", "contact.opted_out"},
			names: []string{"message.read", "contact.opted_out"}, matches: []domain.EventType{domain.EventMessageRead, domain.EventContactOptedOut}},
		{name: "the documentation's order", in: []string{"campaign.status_changed", "message.sent", "message.received"},
			names:   []string{"message.sent", "message.received", "campaign.status_changed"},
			matches: []domain.EventType{domain.EventMessageSent, domain.EventMessageReceived, domain.EventCampaignStatusChanged}},
		{name: "empty", in: []string{}, detail: `give at least one event type, or ["*"] for every type`},
		{name: "nil", in: nil, detail: `give at least one event type, or ["*"] for every type`},
		{name: "unknown", in: []string{"message.sent", "message.opened"}, detail: `unknown event type "message.opened"`},
		{name: "star and names", in: []string{"*", "message.sent"}, detail: `"*" already subscribes to every type`},
		{name: "webhook.test", in: []string{"webhook.test"}, detail: "webhook.test cannot be subscribed to"},
		{name: "empty name", in: []string{""}, detail: `unknown event type ""`},
	}
	for _, c := range cases {
		sub, err := domain.ParseEventSubscription(c.in)
		if c.detail != "" {
			var de *domain.Error
			if !errors.As(err, &de) || de.Code != domain.CodeInvalidEventType || de.Param != "events" || !strings.Contains(de.Detail, c.detail) {
				t.Errorf("%s: ParseEventSubscription(%q) = %v, want invalid_event_type on events saying %q", c.name, c.in, err, c.detail)
			}
			continue
		}
		if err != nil || sub.IsZero() {
			t.Errorf("%s: ParseEventSubscription(%q): %v", c.name, c.in, err)
			continue
		}
		if diff := cmp.Diff(c.names, sub.Names()); diff != "" {
			t.Errorf("%s: Names (-want +got):\n%s", c.name, diff)
		}
		var matched []domain.EventType
		for _, et := range domain.EventTypes() {
			if sub.Matches(et) {
				matched = append(matched, et)
			}
		}
		if diff := cmp.Diff(c.matches, matched, cmp.Comparer(func(a, b domain.EventType) bool { return a == b })); diff != "" {
			t.Errorf("%s: matching types (-want +got):\n%s", c.name, diff)
		}
		if sub.Matches(domain.EventType{}) {
			t.Errorf("%s: the zero type matches", c.name)
		}
		if again, err := domain.ParseEventSubscription(sub.Names()); err != nil || !cmp.Equal(again, sub) {
			t.Errorf("%s: Names does not parse back: %v, %v", c.name, again.Names(), err)
		}
	}
	if !domain.AllEvents().All() || domain.AllEvents().Types() != nil {
		t.Error("AllEvents is not every type")
	}
	a, _ := domain.ParseEventSubscription([]string{"message.read", "message.sent"})
	b, _ := domain.ParseEventSubscription([]string{"message.sent", "message.read", "message.sent"})
	c, _ := domain.ParseEventSubscription([]string{"message.sent"})
	if !cmp.Equal(a, b) || cmp.Equal(a, c) || cmp.Equal(a, domain.AllEvents()) || !cmp.Equal(domain.AllEvents(), domain.AllEvents()) {
		t.Error("Equal does not compare the types subscribed to")
	}
	if !(domain.EventSubscription{}).IsZero() || (domain.EventSubscription{}).Matches(domain.EventMessageSent) {
		t.Error("the zero subscription is not empty")
	}
}

func TestNewEvent(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 22, 11, 0, 0, 123456789, time.FixedZone("CET", 3600))
	e, err := domain.NewEvent("evt_1", "wsp_1", domain.ModeTest, domain.EventMessageDelivered, "msg_1",
		[]byte(` {"id": "msg_1", "body": "Tom & Jerry <3"} `), at)
	if err != nil {
		t.Fatal(err)
	}
	want := domain.Event{ID: "evt_1", Workspace: "wsp_1", Mode: domain.ModeTest, Type: domain.EventMessageDelivered,
		Subject: "msg_1", OccurredAt: time.Date(2026, 11, 22, 10, 0, 0, 123456000, time.UTC),
		Body: []byte(`{"type":"message.delivered","timestamp":"2026-11-22T10:00:00.123456Z","data":{"id":"msg_1","body":"Tom & Jerry <3"}}`)}
	if diff := cmp.Diff(want, e, cmp.AllowUnexported(domain.EventType{}, domain.KeyMode{})); diff != "" {
		t.Fatalf("NewEvent (-want +got):\n%s\nbody %s", diff, e.Body)
	}
	var body struct {
		Type, Timestamp string
		Data            map[string]any
	}
	if err := json.Unmarshal(e.Body, &body); err != nil || body.Type != "message.delivered" || body.Data["body"] != "Tom & Jerry <3" {
		t.Fatalf("the body does not read back: %+v, %v", body, err)
	}
	if _, err := time.Parse(time.RFC3339, body.Timestamp); err != nil {
		t.Fatalf("timestamp %q is not RFC 3339: %v", body.Timestamp, err)
	}

	// Events of other types need no subject.
	if _, err := domain.NewEvent("evt_2", "wsp_1", domain.ModeLive, domain.EventTemplateStatusChanged, "", []byte(`{}`), at); err != nil {
		t.Errorf("a template event without subject: %v", err)
	}
	for name, c := range map[string]struct {
		mode    domain.KeyMode
		typ     domain.EventType
		subject string
		data    string
	}{
		"no type":                   {domain.ModeLive, domain.EventType{}, "", `{}`},
		"no mode":                   {domain.KeyMode{}, domain.EventContactOptedIn, "", `{}`},
		"message event, no subject": {domain.ModeLive, domain.EventMessageRead, "", `{}`},
		"data not JSON":             {domain.ModeLive, domain.EventContactOptedIn, "", `{"a":`},
		"data an array":             {domain.ModeLive, domain.EventContactOptedIn, "", `[1]`},
		"data a string":             {domain.ModeLive, domain.EventContactOptedIn, "", `"x"`},
		"data empty":                {domain.ModeLive, domain.EventContactOptedIn, "", ``},
		"data two objects":          {domain.ModeLive, domain.EventContactOptedIn, "", `{}{}`},
	} {
		if _, err := domain.NewEvent("evt_3", "wsp_1", c.mode, c.typ, c.subject, []byte(c.data), at); err == nil {
			t.Errorf("%s: NewEvent accepted it", name)
		}
	}
}

func TestEventIDs(t *testing.T) {
	t.Parallel()
	id := domain.NewID(domain.PrefixEvent, t0, [10]byte{1})
	if !strings.HasPrefix(id, "evt_") {
		t.Fatalf("event id %q", id)
	}
	if got, err := domain.ParseEventID(id); err != nil || string(got) != id {
		t.Fatalf("ParseEventID(%q) = %q, %v", id, got, err)
	}
	ep := domain.NewID(domain.PrefixWebhookEndpoint, t0, [10]byte{1})
	if !strings.HasPrefix(ep, "whe_") {
		t.Fatalf("endpoint id %q", ep)
	}
	if got, err := domain.ParseWebhookEndpointID(ep); err != nil || string(got) != ep {
		t.Fatalf("ParseWebhookEndpointID(%q) = %q, %v", ep, got, err)
	}
	for _, bad := range []string{"", "evt_", ep, strings.Replace(id, "evt_", "msg_", 1), id + "0"} {
		if _, err := domain.ParseEventID(bad); !errors.Is(err, domain.ErrEventNotFound) {
			t.Errorf("ParseEventID(%q) = %v, want event_not_found", bad, err)
		}
	}
	for _, bad := range []string{"", "whe_", id, ep[:len(ep)-1]} {
		if _, err := domain.ParseWebhookEndpointID(bad); !errors.Is(err, domain.ErrWebhookEndpointNotFound) {
			t.Errorf("ParseWebhookEndpointID(%q) = %v, want webhook_endpoint_not_found", bad, err)
		}
	}
}

func TestDeliveryState(t *testing.T) {
	t.Parallel()
	for _, s := range []domain.DeliveryState{domain.DeliveryPending, domain.DeliverySucceeded, domain.DeliveryGivenUp} {
		if got, err := domain.ParseDeliveryState(s.String()); err != nil || got != s || s.IsZero() {
			t.Errorf("ParseDeliveryState(%q) = %v, %v", s, got, err)
		}
	}
	if _, err := domain.ParseDeliveryState("failed"); err == nil {
		t.Error("an unknown state parses")
	}
}

func TestSuccessfulWebhookStatus(t *testing.T) {
	t.Parallel()
	for status, want := range map[int]bool{0: false, 100: false, 199: false, 200: true, 202: true, 204: true, 299: true,
		300: false, 301: false, 302: false, 304: false, 307: false, 400: false, 410: false, 429: false, 500: false, 503: false} {
		if got := domain.SuccessfulWebhookStatus(status); got != want {
			t.Errorf("SuccessfulWebhookStatus(%d) = %v", status, got)
		}
		if got := (domain.DeliveryAttempt{Status: status}).Succeeded(); got != want {
			t.Errorf("an attempt answered %d succeeded = %v", status, got)
		}
	}
}
