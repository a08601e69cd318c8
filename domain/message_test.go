package domain_test

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/heraldhq/herald/domain"
)

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// at is t0 plus n seconds.
func at(n int) time.Time { return t0.Add(time.Duration(n) * time.Second) }

var cmpStatus = cmp.AllowUnexported(domain.MessageStatus{})

// sending is a message claimed by a dispatcher: queued at 0 s, sending at 1 s.
func sending() domain.Message {
	return domain.Message{
		Status:    domain.StatusSending,
		History:   []domain.StatusChange{{Status: domain.StatusQueued, At: at(0)}, {Status: domain.StatusSending, At: at(1)}},
		CreatedAt: at(0), UpdatedAt: at(1),
	}
}

func history(changes ...any) []domain.StatusChange {
	var h []domain.StatusChange
	for i := 0; i < len(changes); i += 2 {
		h = append(h, domain.StatusChange{Status: changes[i].(domain.MessageStatus), At: at(changes[i+1].(int))})
	}
	return h
}

type event struct {
	status  domain.MessageStatus
	at      int
	failure *domain.Failure
}

func TestAdvance(t *testing.T) {
	t.Parallel()
	undeliverable := &domain.Failure{Code: 131026, Title: "Message undeliverable"}
	var (
		queued, sendingS, sent = domain.StatusQueued, domain.StatusSending, domain.StatusSent
		delivered, read        = domain.StatusDelivered, domain.StatusRead
		failed                 = domain.StatusFailed
	)
	cases := []struct {
		name        string
		events      []event
		changed     []bool // what each Advance reports
		status      domain.MessageStatus
		failure     *domain.Failure
		history     []domain.StatusChange
		lastUpdated int
	}{
		{
			name:    "forward one step at a time",
			events:  []event{{sent, 2, nil}, {delivered, 3, nil}, {read, 4, nil}},
			changed: []bool{true, true, true},
			status:  read, history: history(queued, 0, sendingS, 1, sent, 2, delivered, 3, read, 4), lastUpdated: 4,
		},
		{
			name:    "forward skipping a step",
			events:  []event{{delivered, 3, nil}},
			changed: []bool{true},
			status:  delivered, history: history(queued, 0, sendingS, 1, delivered, 3), lastUpdated: 3,
		},
		{
			name:    "a late event is kept in the history but does not move the status back",
			events:  []event{{sent, 2, nil}, {read, 4, nil}, {delivered, 3, nil}},
			changed: []bool{true, true, true},
			status:  read, history: history(queued, 0, sendingS, 1, sent, 2, delivered, 3, read, 4), lastUpdated: 4,
		},
		{
			name:    "a duplicate event changes nothing, whatever its time",
			events:  []event{{sent, 2, nil}, {sent, 2, nil}, {sent, 9, nil}, {sendingS, 5, nil}, {queued, 6, nil}},
			changed: []bool{true, false, false, false, false},
			status:  sent, history: history(queued, 0, sendingS, 1, sent, 2), lastUpdated: 2,
		},
		{
			name:    "failed after sent sets the failure",
			events:  []event{{sent, 2, nil}, {failed, 3, undeliverable}},
			changed: []bool{true, true},
			status:  failed, failure: undeliverable, history: history(queued, 0, sendingS, 1, sent, 2, failed, 3), lastUpdated: 3,
		},
		{
			name:    "failed while sending",
			events:  []event{{failed, 2, undeliverable}},
			changed: []bool{true},
			status:  failed, failure: undeliverable, history: history(queued, 0, sendingS, 1, failed, 2), lastUpdated: 2,
		},
		{
			name:    "failed after read is recorded but changes neither status nor failure",
			events:  []event{{read, 4, nil}, {failed, 5, undeliverable}},
			changed: []bool{true, true},
			status:  read, history: history(queued, 0, sendingS, 1, read, 4, failed, 5), lastUpdated: 5,
		},
		{
			name:    "read after failed is recorded but does not change the status",
			events:  []event{{failed, 2, undeliverable}, {read, 4, nil}},
			changed: []bool{true, true},
			status:  failed, failure: undeliverable, history: history(queued, 0, sendingS, 1, failed, 2, read, 4), lastUpdated: 4,
		},
		{
			name:    "a second failure keeps the first",
			events:  []event{{failed, 2, undeliverable}, {failed, 3, &domain.Failure{Code: 131000, Title: "Something went wrong"}}},
			changed: []bool{true, false},
			status:  failed, failure: undeliverable, history: history(queued, 0, sendingS, 1, failed, 2), lastUpdated: 2,
		},
		{
			name:    "failed without a reason",
			events:  []event{{failed, 2, nil}},
			changed: []bool{true},
			status:  failed, history: history(queued, 0, sendingS, 1, failed, 2), lastUpdated: 2,
		},
		{
			name:    "a zero status is ignored",
			events:  []event{{domain.MessageStatus{}, 2, nil}},
			changed: []bool{false},
			status:  sendingS, history: history(queued, 0, sendingS, 1), lastUpdated: 1,
		},
		{
			name:    "an event stamped before the last update keeps UpdatedAt",
			events:  []event{{read, 4, nil}, {sent, 2, nil}},
			changed: []bool{true, true},
			status:  read, history: history(queued, 0, sendingS, 1, sent, 2, read, 4), lastUpdated: 4,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			m := sending()
			var changed []bool
			for _, e := range c.events {
				changed = append(changed, m.Advance(e.status, at(e.at), e.failure))
			}
			if diff := cmp.Diff(c.changed, changed); diff != "" {
				t.Errorf("Advance reported (-want +got):\n%s", diff)
			}
			if m.Status != c.status {
				t.Errorf("status %s, want %s", m.Status, c.status)
			}
			if diff := cmp.Diff(c.failure, m.Failure); diff != "" {
				t.Errorf("failure (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(c.history, m.History, cmpStatus); diff != "" {
				t.Errorf("history (-want +got):\n%s", diff)
			}
			if !m.UpdatedAt.Equal(at(c.lastUpdated)) {
				t.Errorf("updated at %v, want %v", m.UpdatedAt, at(c.lastUpdated))
			}
		})
	}
}

// TestAdvanceCopiesTheFailure: the message keeps its own copy, so the
// caller's value can be reused.
func TestAdvanceCopiesTheFailure(t *testing.T) {
	t.Parallel()
	m := sending()
	f := &domain.Failure{Code: 131026, Title: "Message undeliverable"}
	m.Advance(domain.StatusFailed, at(2), f)
	f.Code = 1
	if m.Failure.Code != 131026 {
		t.Fatalf("the stored failure follows the caller's changes: %+v", m.Failure)
	}
}

func TestAdvanceStoresUTCMicroseconds(t *testing.T) {
	t.Parallel()
	m := sending()
	local := time.Date(2026, 11, 22, 11, 0, 5, 123456789, time.FixedZone("CET", 3600))
	m.Advance(domain.StatusSent, local, nil)
	got := m.History[len(m.History)-1].At
	if want := time.Date(2026, 11, 22, 10, 0, 5, 123456000, time.UTC); !got.Equal(want) || got.Location() != time.UTC || got.Nanosecond() != want.Nanosecond() {
		t.Fatalf("recorded %v, want %v", got, want)
	}
}

// TestAdvanceEveryOrdering applies sent, delivered and read in every order
// (each twice): the message always ends read, with all three in its history
// ordered by time.
func TestAdvanceEveryOrdering(t *testing.T) {
	t.Parallel()
	times := map[domain.MessageStatus]int{domain.StatusSent: 2, domain.StatusDelivered: 3, domain.StatusRead: 4}
	want := history(domain.StatusQueued, 0, domain.StatusSending, 1, domain.StatusSent, 2, domain.StatusDelivered, 3, domain.StatusRead, 4)
	for _, p := range permutations([]domain.MessageStatus{domain.StatusSent, domain.StatusDelivered, domain.StatusRead}) {
		m := sending()
		for _, s := range p {
			if !m.Advance(s, at(times[s]), nil) {
				t.Errorf("order %v: %s was not recorded", p, s)
			}
			if m.Advance(s, at(times[s]), nil) {
				t.Errorf("order %v: a repeated %s changed the message", p, s)
			}
		}
		if m.Status != domain.StatusRead {
			t.Errorf("order %v: status %s, want read", p, m.Status)
		}
		if diff := cmp.Diff(want, m.History, cmpStatus); diff != "" {
			t.Errorf("order %v: history (-want +got):\n%s", p, diff)
		}
	}
}

// TestAdvanceTiesFollowTheLifecycle: events with the same time are listed
// in lifecycle order, failed last.
func TestAdvanceTiesFollowTheLifecycle(t *testing.T) {
	t.Parallel()
	m := sending()
	m.Advance(domain.StatusFailed, at(2), nil)
	m.Advance(domain.StatusRead, at(2), nil)
	m.Advance(domain.StatusSent, at(2), nil)
	m.Advance(domain.StatusDelivered, at(2), nil)
	want := history(domain.StatusQueued, 0, domain.StatusSending, 1, domain.StatusSent, 2, domain.StatusDelivered, 2,
		domain.StatusRead, 2, domain.StatusFailed, 2)
	if diff := cmp.Diff(want, m.History, cmpStatus); diff != "" {
		t.Fatalf("history (-want +got):\n%s", diff)
	}
}

func permutations[T any](s []T) [][]T {
	if len(s) <= 1 {
		return [][]T{append([]T(nil), s...)}
	}
	var out [][]T
	for i := range s {
		rest := append(append([]T(nil), s[:i]...), s[i+1:]...)
		for _, p := range permutations(rest) {
			out = append(out, append([]T{s[i]}, p...))
		}
	}
	return out
}

func TestParseMessageStatus(t *testing.T) {
	t.Parallel()
	want := []string{"queued", "sending", "sent", "delivered", "read", "failed"}
	var got []string
	for _, s := range domain.MessageStatuses() {
		got = append(got, s.String())
		if p, err := domain.ParseMessageStatus(s.String()); err != nil || p != s {
			t.Errorf("ParseMessageStatus(%q) = %v, %v", s, p, err)
		}
		if terminal := s == domain.StatusRead || s == domain.StatusFailed; s.IsTerminal() != terminal {
			t.Errorf("%s.IsTerminal() = %v", s, !terminal)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("statuses in lifecycle order (-want +got):\n%s", diff)
	}
	if _, err := domain.ParseMessageStatus("accepted"); !errors.Is(err, domain.ErrInvalidParameter) {
		t.Errorf("ParseMessageStatus(accepted): %v, want invalid_parameter", err)
	}
}

func TestNewMessageAndOutboundEntry(t *testing.T) {
	t.Parallel()
	c := activeCampaign(t, domain.HeaderImage)
	contact := domain.NewContact("ctc_x", "cnv_x", "wsp_x", domain.ModeLive, domain.MustPhoneNumber("+14155552671"), t0)
	p := domain.Principal{Workspace: "wsp_x", Key: "key_x", Mode: domain.ModeLive}
	prep, err := c.Prepare([]string{"Ana"}, "https://cdn.example.com/a.png", domain.MediaPolicy{})
	if err != nil {
		t.Fatal(err)
	}
	now := t0.Add(90 * time.Second)
	m := domain.NewMessage("msg_x", c, contact, p, prep, now)
	want := domain.Message{
		ID: "msg_x", Kind: domain.MessageKindTemplate, Workspace: "wsp_x", CampaignID: "cmp_x", ContactID: "ctc_x", KeyID: "key_x", Mode: domain.ModeLive,
		Phone: contact.Phone, TemplateName: "promo", Language: "en", HeaderFormat: domain.HeaderImage,
		Variables: []string{"Ana"}, MediaHeaderURL: "https://cdn.example.com/a.png", RenderedBody: "Hi Ana",
		Values: prep.Values, // every slot with its value: Prepare's tests check them
		Status: domain.StatusQueued, History: []domain.StatusChange{{Status: domain.StatusQueued, At: now}},
		CreatedAt: now, UpdatedAt: now,
	}
	if len(m.Values) != 2 || m.Values[0].Value != "Ana" || m.Values[1].Value != "https://cdn.example.com/a.png" {
		t.Fatalf("the message's slot values: %+v", m.Values)
	}
	opts := cmp.Options{cmpStatus, cmp.AllowUnexported(domain.KeyMode{}, domain.PhoneNumber{}, domain.HeaderFormat{}, domain.SlotKind{}, domain.ButtonKind{})}
	if diff := cmp.Diff(want, m, opts); diff != "" {
		t.Fatalf("new message (-want +got):\n%s", diff)
	}
	e := domain.OutboundEntry("ent_x", m, contact)
	wantEntry := domain.Entry{ID: "ent_x", Workspace: "wsp_x", ContactID: "ctc_x", ConversationID: "cnv_x",
		Direction: domain.Outbound, Kind: domain.KindTemplate, MessageID: "msg_x", Status: domain.StatusQueued, Mode: domain.ModeLive,
		Body: "Hi Ana", CreatedAt: now}
	if diff := cmp.Diff(wantEntry, e, cmpStatus, cmp.AllowUnexported(domain.Direction{}, domain.KeyMode{})); diff != "" {
		t.Fatalf("outbound entry (-want +got):\n%s", diff)
	}
}

func TestRecordPricing(t *testing.T) {
	t.Parallel()
	regular := &domain.Pricing{Model: "PMP", Type: "regular", Category: "marketing", Billable: true}
	free := &domain.Pricing{Model: "PMP", Type: "free_customer_service", Category: "service"}
	cases := []struct {
		name    string
		records []*domain.Pricing
		changed []bool
		want    *domain.Pricing
	}{
		{"the first pricing is kept", []*domain.Pricing{regular}, []bool{true}, regular},
		{"a later pricing changes nothing", []*domain.Pricing{regular, free}, []bool{true, false}, regular},
		{"the same pricing again changes nothing", []*domain.Pricing{regular, regular}, []bool{true, false}, regular},
		{"nil is no pricing", []*domain.Pricing{nil}, []bool{false}, nil},
		{"nil does not clear a pricing", []*domain.Pricing{free, nil}, []bool{true, false}, free},
		{"a pricing after nil is kept", []*domain.Pricing{nil, free}, []bool{false, true}, free},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			m := sending()
			var changed []bool
			for _, p := range c.records {
				changed = append(changed, m.RecordPricing(p))
			}
			if diff := cmp.Diff(c.changed, changed); diff != "" {
				t.Errorf("RecordPricing reported (-want +got):\n%s", diff)
			}
			want := sending()
			want.Pricing = c.want
			opts := cmp.Options{cmpStatus, cmp.AllowUnexported(domain.KeyMode{}, domain.PhoneNumber{}, domain.HeaderFormat{})}
			if diff := cmp.Diff(want, m, opts); diff != "" {
				t.Errorf("message (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRecordPricingCopies: the message keeps its own copy, so the caller's
// value can be reused.
func TestRecordPricingCopies(t *testing.T) {
	t.Parallel()
	m := sending()
	p := &domain.Pricing{Model: "PMP", Type: "regular", Category: "utility", Billable: true}
	m.RecordPricing(p)
	p.Category, p.Billable = "marketing", false
	want := &domain.Pricing{Model: "PMP", Type: "regular", Category: "utility", Billable: true}
	if diff := cmp.Diff(want, m.Pricing); diff != "" {
		t.Fatalf("the stored pricing follows the caller's changes (-want +got):\n%s", diff)
	}
}

func TestReachedAt(t *testing.T) {
	t.Parallel()
	var (
		queued, sendingS, sent = domain.StatusQueued, domain.StatusSending, domain.StatusSent
		delivered, read        = domain.StatusDelivered, domain.StatusRead
		failed                 = domain.StatusFailed
	)
	never := -1
	cases := []struct {
		name    string
		history []domain.StatusChange
		want    map[domain.MessageStatus]int // seconds after t0, or never
	}{
		{
			name:    "just queued",
			history: history(queued, 0),
			want:    map[domain.MessageStatus]int{queued: 0, sendingS: never, sent: never, delivered: never, read: never, failed: never},
		},
		{
			name:    "every step",
			history: history(queued, 0, sendingS, 1, sent, 2, delivered, 3, read, 4),
			want:    map[domain.MessageStatus]int{queued: 0, sendingS: 1, sent: 2, delivered: 3, read: 4, failed: never},
		},
		{
			name:    "read without delivered was delivered when read",
			history: history(queued, 0, sendingS, 1, sent, 2, read, 4),
			want:    map[domain.MessageStatus]int{queued: 0, sendingS: 1, sent: 2, delivered: 4, read: 4, failed: never},
		},
		{
			name:    "read alone was sent and delivered when read",
			history: history(queued, 0, sendingS, 1, read, 4),
			want:    map[domain.MessageStatus]int{queued: 0, sendingS: 1, sent: 4, delivered: 4, read: 4, failed: never},
		},
		{
			name:    "delivered without sent",
			history: history(queued, 0, sendingS, 1, delivered, 3),
			want:    map[domain.MessageStatus]int{queued: 0, sendingS: 1, sent: 3, delivered: 3, read: never, failed: never},
		},
		{
			name:    "read recorded before delivered: the earliest time counts",
			history: history(queued, 0, sendingS, 1, sent, 2, read, 3, delivered, 5),
			want:    map[domain.MessageStatus]int{queued: 0, sendingS: 1, sent: 2, delivered: 3, read: 3, failed: never},
		},
		{
			name:    "failed after sent",
			history: history(queued, 0, sendingS, 1, sent, 2, failed, 3),
			want:    map[domain.MessageStatus]int{queued: 0, sendingS: 1, sent: 2, delivered: never, read: never, failed: 3},
		},
		{
			name:    "failed while sending was never sent",
			history: history(queued, 0, sendingS, 1, failed, 2),
			want:    map[domain.MessageStatus]int{queued: 0, sendingS: 1, sent: never, delivered: never, read: never, failed: 2},
		},
		{
			name:    "failed after read counts only its own event",
			history: history(queued, 0, sendingS, 1, read, 4, failed, 5),
			want:    map[domain.MessageStatus]int{queued: 0, sendingS: 1, sent: 4, delivered: 4, read: 4, failed: 5},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			m := domain.Message{Status: c.history[len(c.history)-1].Status, History: c.history, CreatedAt: at(0)}
			got := map[domain.MessageStatus]int{}
			for _, s := range domain.MessageStatuses() {
				when, ok := m.ReachedAt(s)
				switch {
				case !ok && !when.IsZero():
					t.Errorf("%s: not reached, but at %v", s, when)
				case !ok:
					got[s] = never
				default:
					got[s] = int(when.Sub(t0) / time.Second)
				}
			}
			if diff := cmp.Diff(c.want, got, cmpStatus); diff != "" {
				t.Errorf("seconds after t0 each status was reached, -1 for never (-want +got):\n%s", diff)
			}
		})
	}
	if _, ok := sending().ReachedAt(domain.MessageStatus{}); ok {
		t.Error("the zero status was reached")
	}
}

// TestNewMessageReachedQueued: a new message is queued when created.
func TestNewMessageReachedQueued(t *testing.T) {
	t.Parallel()
	c := activeCampaign(t, domain.HeaderNone)
	contact := domain.NewContact("ctc_x", "cnv_x", "wsp_x", domain.ModeTest, domain.MustPhoneNumber("+14155552671"), t0)
	prep, err := c.Prepare([]string{"Ana"}, "", domain.MediaPolicy{})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 22, 11, 0, 5, 123456789, time.FixedZone("CET", 3600))
	m := domain.NewMessage("msg_x", c, contact, domain.Principal{Workspace: "wsp_x", Key: "key_x", Mode: domain.ModeLive}, prep, now)
	got, ok := m.ReachedAt(domain.StatusQueued)
	if want := time.Date(2026, 11, 22, 10, 0, 5, 123456000, time.UTC); !ok || !got.Equal(want) {
		t.Errorf("queued at %v (%v), want %v", got, ok, want)
	}
	if got, ok := m.ReachedAt(domain.StatusSent); ok {
		t.Errorf("a new message was sent at %v", got)
	}
}

// TestAdvanceEveryOrderingRedelivered applies sent, delivered and read in
// every order, then Meta's redelivery of the whole batch in the same order:
// the message ends read, each status once in its history, and reached each
// status at its own event's time.
func TestAdvanceEveryOrderingRedelivered(t *testing.T) {
	t.Parallel()
	times := map[domain.MessageStatus]int{domain.StatusSent: 2, domain.StatusDelivered: 3, domain.StatusRead: 4}
	want := history(domain.StatusQueued, 0, domain.StatusSending, 1, domain.StatusSent, 2, domain.StatusDelivered, 3, domain.StatusRead, 4)
	for _, p := range permutations([]domain.MessageStatus{domain.StatusSent, domain.StatusDelivered, domain.StatusRead}) {
		m := sending()
		var changed []bool
		for _, s := range append(p, p...) {
			changed = append(changed, m.Advance(s, at(times[s]), nil))
		}
		if diff := cmp.Diff([]bool{true, true, true, false, false, false}, changed); diff != "" {
			t.Errorf("order %v: Advance reported (-want +got):\n%s", p, diff)
		}
		if m.Status != domain.StatusRead || !m.UpdatedAt.Equal(at(4)) {
			t.Errorf("order %v: status %s updated at %v, want read at %v", p, m.Status, m.UpdatedAt, at(4))
		}
		if diff := cmp.Diff(want, m.History, cmpStatus); diff != "" {
			t.Errorf("order %v: history (-want +got):\n%s", p, diff)
		}
		for s, n := range times {
			if got, ok := m.ReachedAt(s); !ok || !got.Equal(at(n)) {
				t.Errorf("order %v: reached %s at %v (%v), want %v", p, s, got, ok, at(n))
			}
		}
	}
}

// TestAdvanceFailedAfterSentKeepsFailure: in any order, a message sent then
// failed ends failed with Meta's reason, whatever comes after.
func TestAdvanceFailedAfterSentKeepsFailure(t *testing.T) {
	t.Parallel()
	undeliverable := &domain.Failure{Code: 131026, Title: "Message undeliverable"}
	events := []event{{domain.StatusSent, 2, nil}, {domain.StatusFailed, 3, undeliverable}}
	for _, p := range permutations(events) {
		m := sending()
		for _, e := range append(p, p...) {
			m.Advance(e.status, at(e.at), e.failure)
		}
		if m.Status != domain.StatusFailed {
			t.Errorf("order %v: status %s, want failed", p, m.Status)
		}
		if diff := cmp.Diff(undeliverable, m.Failure); diff != "" {
			t.Errorf("order %v: failure (-want +got):\n%s", p, diff)
		}
		want := history(domain.StatusQueued, 0, domain.StatusSending, 1, domain.StatusSent, 2, domain.StatusFailed, 3)
		if diff := cmp.Diff(want, m.History, cmpStatus); diff != "" {
			t.Errorf("order %v: history (-want +got):\n%s", p, diff)
		}
	}
}

func TestReportedByProvider(t *testing.T) {
	t.Parallel()
	want := map[domain.MessageStatus]bool{domain.StatusQueued: false, domain.StatusSending: false, domain.StatusSent: true,
		domain.StatusDelivered: true, domain.StatusRead: true, domain.StatusFailed: true}
	for _, s := range domain.MessageStatuses() {
		if got := s.ReportedByProvider(); got != want[s] {
			t.Errorf("%v.ReportedByProvider() = %v, want %v", s, got, want[s])
		}
	}
}
