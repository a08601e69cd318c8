package porttest

import (
	"cmp"
	"slices"
	"testing"
	"time"

	"github.com/heraldhq/herald/domain"
)

// The statistics reader (ports.MessageStatsReader); its cases are listed
// with the messages' (messageTests).

// CountMessagesByStatus counts by current status, for one campaign of one
// workspace. Statuses without messages may be absent or zero.
func testMessageCountByStatus(t *testing.T, s Store) {
	f := newFixture(t, s)
	c, other, ct := f.campaign(), f.campaign(), f.contact()
	plan := []domain.MessageStatus{
		domain.StatusQueued, domain.StatusQueued, domain.StatusQueued,
		domain.StatusSent, domain.StatusSent, domain.StatusRead, domain.StatusFailed,
	}
	want := map[domain.MessageStatus]int{}
	for _, st := range plan {
		m := f.message(c, ct)
		if st != domain.StatusQueued {
			f.advance(m.ID, st, m.CreatedAt.Add(time.Millisecond), nil)
		}
		want[st]++
	}
	f.message(other, ct)
	m := f.message(other, ct)
	f.advance(m.ID, domain.StatusDelivered, m.CreatedAt.Add(time.Millisecond), nil)

	got, err := s.CountMessagesByStatus(f.ctx, f.ws, c.ID, domain.KeyMode{})
	if err != nil {
		t.Fatalf("CountMessagesByStatus: %v", err)
	}
	mustEqual(t, "counts", want, nonZero(got))

	got, err = s.CountMessagesByStatus(f.ctx, f.otherWorkspace(), c.ID, domain.KeyMode{})
	if err != nil {
		t.Fatalf("CountMessagesByStatus from another workspace: %v", err)
	}
	mustEqual(t, "counts from another workspace", map[domain.MessageStatus]int{}, nonZero(got))
}

// CountFailuresByCode counts one campaign's failed messages per code, with
// 0 for failures without one, and Herald's own code apart; other statuses
// and campaigns are not counted.
func testMessageCountFailuresByCode(t *testing.T, s Store) {
	f := newFixture(t, s)
	c, other, ct := f.campaign(), f.campaign(), f.contact()
	optedOut := &domain.Failure{Title: domain.OptedOutTitle, HeraldCode: domain.CodeContactOptedOut}
	for _, failure := range []*domain.Failure{{Code: 131026, Title: "t"}, {Code: 131026, Title: "t"},
		{Code: 131049, Title: "t"}, nil, optedOut, optedOut} {
		m := f.message(c, ct)
		f.advance(m.ID, domain.StatusFailed, m.CreatedAt.Add(time.Millisecond), failure)
	}
	sent := f.message(c, ct)
	f.advance(sent.ID, domain.StatusSent, sent.CreatedAt.Add(time.Millisecond), nil)
	elsewhere := f.message(other, ct)
	f.advance(elsewhere.ID, domain.StatusFailed, elsewhere.CreatedAt.Add(time.Millisecond), &domain.Failure{Code: 132001})

	got, err := s.CountFailuresByCode(f.ctx, f.ws, c.ID, domain.KeyMode{})
	if err != nil {
		t.Fatalf("CountFailuresByCode: %v", err)
	}
	mustEqual(t, "failures by code", map[domain.FailureKey]int{{Code: 131026}: 2, {Code: 131049}: 1, {}: 1,
		{HeraldCode: domain.CodeContactOptedOut}: 2}, got)
	got, err = s.CountFailuresByCode(f.ctx, f.otherWorkspace(), c.ID, domain.KeyMode{})
	if err != nil || len(got) != 0 {
		t.Fatalf("failures seen from another workspace: %v %v", got, err)
	}
}

func nonZero(m map[domain.MessageStatus]int) map[domain.MessageStatus]int {
	out := map[domain.MessageStatus]int{}
	for k, v := range m {
		if v != 0 {
			out[k] = v
		}
	}
	return out
}

// timelineStep is one status a timeline message reaches, minutes after h0.
type timelineStep struct {
	status  domain.MessageStatus
	minutes int
}

// testMessageCountStatusTimeline advances messages through statuses at
// chosen times across three hours and counts them per hour and per day.
// Reaching a status counts once, at its first time, and implies the ones
// before it (a read without a delivered event counts as delivered then);
// sending is not counted; the window holds whole intervals, from the one
// holding from to the one holding to.
func testMessageCountStatusTimeline(t *testing.T, s Store) {
	f := newFixture(t, s)
	c, ct := f.campaign(), f.contact()
	h0 := time.Date(2024, 3, 4, 10, 0, 0, 0, time.UTC)
	minute := func(n int) time.Time { return h0.Add(time.Duration(n) * time.Minute) }
	// newTimed is a queued message of campaign c created at minute created.
	newTimed := func(c domain.Campaign, ct domain.Contact, created int) domain.Message {
		m := NewMessage(t, c, ct)
		m.CreatedAt, m.UpdatedAt, m.History[0].At = minute(created), minute(created), minute(created)
		return m
	}
	failure := &domain.Failure{Code: 131026, Title: "Message undeliverable"}
	plan := []struct {
		created int
		steps   []timelineStep
	}{
		{5, []timelineStep{{domain.StatusSent, 10}, {domain.StatusDelivered, 20}, {domain.StatusRead, 65}}},
		{6, []timelineStep{{domain.StatusSent, 50}, {domain.StatusRead, 70}}}, // delivered when read
		{7, []timelineStep{{domain.StatusSending, 8}, {domain.StatusFailed, 30}}},
		{-1, []timelineStep{{domain.StatusSent, 1}}}, // accepted the hour before
		{61, []timelineStep{{domain.StatusSent, 62}, {domain.StatusDelivered, 105}}},
		{2, []timelineStep{{domain.StatusDelivered, 40}, {domain.StatusSent, 15}}}, // sent reported late
		{63, []timelineStep{{domain.StatusRead, 121}}},                             // read the hour after
	}
	for _, p := range plan {
		m := newTimed(c, ct, p.created)
		if err := s.CreateMessages(f.ctx, m); err != nil {
			t.Fatalf("CreateMessages: %v", err)
		}
		for _, st := range p.steps {
			var fl *domain.Failure
			if st.status == domain.StatusFailed {
				fl = failure
			}
			f.advance(m.ID, st.status, minute(st.minutes), fl)
		}
	}
	// One message written already advanced: CreateMessages derives the
	// timeline too.
	created := newTimed(c, ct, 9)
	created.Advance(domain.StatusSent, minute(11), nil)
	created.Advance(domain.StatusFailed, minute(12), failure)
	if err := s.CreateMessages(f.ctx, created); err != nil {
		t.Fatalf("CreateMessages: %v", err)
	}
	// Another campaign's message, and one of another workspace that names
	// this campaign: neither is counted.
	elsewhere := newTimed(f.campaign(), ct, 5)
	elsewhere.Advance(domain.StatusSent, minute(10), nil)
	other := f.otherWorkspace()
	otherContact := NewContact(t, other)
	if err := s.CreateContact(f.ctx, otherContact); err != nil {
		t.Fatalf("CreateContact: %v", err)
	}
	foreign := newTimed(c, otherContact, 5)
	foreign.Workspace = other
	foreign.Advance(domain.StatusSent, minute(10), nil)
	for _, m := range []domain.Message{elsewhere, foreign} {
		if err := s.CreateMessages(f.ctx, m); err != nil {
			t.Fatalf("CreateMessages: %v", err)
		}
	}

	hour0 := map[domain.MessageStatus]int{domain.StatusQueued: 5, domain.StatusSent: 5, domain.StatusDelivered: 2, domain.StatusFailed: 2}
	hour1 := map[domain.MessageStatus]int{domain.StatusQueued: 2, domain.StatusSent: 1, domain.StatusDelivered: 2, domain.StatusRead: 2}
	hour2 := map[domain.MessageStatus]int{domain.StatusSent: 1, domain.StatusDelivered: 1, domain.StatusRead: 1}
	day := map[domain.MessageStatus]int{domain.StatusQueued: 8, domain.StatusSent: 7, domain.StatusDelivered: 5,
		domain.StatusRead: 3, domain.StatusFailed: 2}
	for _, tc := range []struct {
		name     string
		ws       domain.WorkspaceID
		from, to time.Time
		interval time.Duration
		want     []domain.StatusCount
	}{
		{"hours 0 and 1", f.ws, minute(3), minute(90), domain.IntervalHour,
			append(statusCounts(h0, hour0), statusCounts(minute(60), hour1)...)},
		{"hours 1 and 2", f.ws, minute(70), minute(125), domain.IntervalHour,
			append(statusCounts(minute(60), hour1), statusCounts(minute(120), hour2)...)},
		{"hour 1 alone", f.ws, minute(60), minute(119), domain.IntervalHour, statusCounts(minute(60), hour1)},
		{"the day", f.ws, minute(3), minute(4), domain.IntervalDay,
			statusCounts(time.Date(2024, 3, 4, 0, 0, 0, 0, time.UTC), day)},
		{"the day before", f.ws, minute(-24 * 60), minute(-23 * 60), domain.IntervalDay, nil},
		{"another workspace", other, minute(0), minute(180), domain.IntervalHour,
			statusCounts(h0, map[domain.MessageStatus]int{domain.StatusQueued: 1, domain.StatusSent: 1})},
	} {
		got, err := s.CountStatusTimeline(f.ctx, tc.ws, c.ID, domain.KeyMode{}, tc.from, tc.to, tc.interval)
		if err != nil {
			t.Fatalf("%s: CountStatusTimeline: %v", tc.name, err)
		}
		sortStatusCounts(got)
		mustEqual(t, tc.name, tc.want, got)
	}
}

// statusCounts lays out the non-zero counts of one interval in timeline
// order.
func statusCounts(start time.Time, counts map[domain.MessageStatus]int) []domain.StatusCount {
	var out []domain.StatusCount
	for _, st := range domain.TimelineStatuses() {
		if n := counts[st]; n != 0 {
			out = append(out, domain.StatusCount{Status: st, Start: start, Count: n})
		}
	}
	return out
}

func sortStatusCounts(cs []domain.StatusCount) {
	rank := func(st domain.MessageStatus) int { return slices.Index(domain.TimelineStatuses(), st) }
	slices.SortFunc(cs, func(a, b domain.StatusCount) int {
		return cmp.Or(a.Start.Compare(b.Start), cmp.Compare(rank(a.Status), rank(b.Status)))
	})
}
