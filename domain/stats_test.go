package domain_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/heraldhq/herald/domain"
)

func TestCampaignStats(t *testing.T) {
	t.Parallel()
	var (
		queued, sendingS, sent = domain.StatusQueued, domain.StatusSending, domain.StatusSent
		delivered, read        = domain.StatusDelivered, domain.StatusRead
		failed                 = domain.StatusFailed
	)
	all := func(m map[domain.MessageStatus]int) map[domain.MessageStatus]int {
		out := map[domain.MessageStatus]int{queued: 0, sendingS: 0, sent: 0, delivered: 0, read: 0, failed: 0}
		for k, v := range m {
			out[k] = v
		}
		return out
	}
	cases := []struct {
		name     string
		counts   map[domain.MessageStatus]int
		failures map[domain.FailureKey]int
		want     domain.CampaignStats
	}{
		{
			name: "nothing sent", counts: nil, failures: nil,
			want: domain.CampaignStats{Counts: all(nil), FailuresByCode: map[domain.FailureKey]int{}},
		},
		{
			// Delivery: (delivered + read) / (sent + delivered + read + failed) = 3/5.
			// Read: read / (delivered + read) = 2/3. Queued and sending have
			// not left Herald and count in neither.
			name:     "every status",
			counts:   map[domain.MessageStatus]int{queued: 4, sendingS: 3, sent: 1, delivered: 1, read: 2, failed: 1},
			failures: map[domain.FailureKey]int{{Code: 131026}: 1},
			want: domain.CampaignStats{Counts: all(map[domain.MessageStatus]int{queued: 4, sendingS: 3, sent: 1, delivered: 1, read: 2, failed: 1}),
				Total: 12, DeliveryRate: 3.0 / 5.0, ReadRate: 2.0 / 3.0, FailuresByCode: map[domain.FailureKey]int{{Code: 131026}: 1}},
		},
		{
			name: "only queued", counts: map[domain.MessageStatus]int{queued: 7},
			want: domain.CampaignStats{Counts: all(map[domain.MessageStatus]int{queued: 7}), Total: 7, FailuresByCode: map[domain.FailureKey]int{}},
		},
		{
			name: "all failed", counts: map[domain.MessageStatus]int{failed: 2}, failures: map[domain.FailureKey]int{{Code: 131026}: 1, {}: 1},
			want: domain.CampaignStats{Counts: all(map[domain.MessageStatus]int{failed: 2}), Total: 2, FailuresByCode: map[domain.FailureKey]int{{Code: 131026}: 1, {}: 1}},
		},
		{
			name: "all read", counts: map[domain.MessageStatus]int{read: 5},
			want: domain.CampaignStats{Counts: all(map[domain.MessageStatus]int{read: 5}), Total: 5, DeliveryRate: 1, ReadRate: 1, FailuresByCode: map[domain.FailureKey]int{}},
		},
		{
			name: "delivered, none read", counts: map[domain.MessageStatus]int{sent: 1, delivered: 3},
			want: domain.CampaignStats{Counts: all(map[domain.MessageStatus]int{sent: 1, delivered: 3}), Total: 4, DeliveryRate: 0.75, FailuresByCode: map[domain.FailureKey]int{}},
		},
	}
	for _, c := range cases {
		got := domain.NewCampaignStats(c.counts, c.failures)
		if diff := cmp.Diff(c.want, got, cmpStatus); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
}

func TestParseInterval(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]time.Duration{"hour": time.Hour, "day": 24 * time.Hour} {
		if got, err := domain.ParseInterval(s); err != nil || got != want {
			t.Errorf("ParseInterval(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, s := range []string{"", "Hour", "DAY", "week", "minute", "1h", "24h", " hour"} {
		got, err := domain.ParseInterval(s)
		wantInvalid(t, err, "interval", "hour or day")
		if got != 0 {
			t.Errorf("ParseInterval(%q) = %v with an error", s, got)
		}
	}
}

func TestIntervalStart(t *testing.T) {
	t.Parallel()
	india := time.FixedZone("IST", 5*3600+1800) // +05:30: hours do not align with UTC's
	cases := []struct {
		name     string
		t        time.Time
		interval time.Duration
		want     time.Time
	}{
		{"within an hour", time.Date(2026, 11, 22, 10, 42, 7, 5, time.UTC), domain.IntervalHour,
			time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)},
		{"on the hour", time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC), domain.IntervalHour,
			time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)},
		{"within a day", time.Date(2026, 11, 22, 23, 59, 59, 999999999, time.UTC), domain.IntervalDay,
			time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)},
		{"at midnight", time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC), domain.IntervalDay,
			time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)},
		// 10:45 in India is 05:15 UTC.
		{"an hour, for a time in another zone", time.Date(2026, 11, 22, 10, 45, 0, 0, india), domain.IntervalHour,
			time.Date(2026, 11, 22, 5, 0, 0, 0, time.UTC)},
		// 02:00 on the 22nd in India is 20:30 UTC on the 21st.
		{"a day, for a time in another zone", time.Date(2026, 11, 22, 2, 0, 0, 0, india), domain.IntervalDay,
			time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)},
		{"a leap day", time.Date(2028, 2, 29, 13, 0, 0, 0, time.UTC), domain.IntervalDay,
			time.Date(2028, 2, 29, 0, 0, 0, 0, time.UTC)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := domain.IntervalStart(c.t, c.interval)
			if !got.Equal(c.want) || got.Location() != time.UTC {
				t.Fatalf("IntervalStart(%v, %v) = %v, want %v", c.t, c.interval, got, c.want)
			}
		})
	}
}

// zeroCounts is a timeline point's counts with every timeline status at 0,
// then the given ones.
func zeroCounts(m map[domain.MessageStatus]int) map[domain.MessageStatus]int {
	out := map[domain.MessageStatus]int{}
	for _, s := range domain.TimelineStatuses() {
		out[s] = 0
	}
	for s, n := range m {
		out[s] = n
	}
	return out
}

func TestTimelineStatuses(t *testing.T) {
	t.Parallel()
	want := []domain.MessageStatus{domain.StatusQueued, domain.StatusSent, domain.StatusDelivered, domain.StatusRead, domain.StatusFailed}
	if diff := cmp.Diff(want, domain.TimelineStatuses(), cmpStatus); diff != "" {
		t.Fatalf("timeline statuses (-want +got):\n%s", diff)
	}
}

func TestNewTimeline(t *testing.T) {
	t.Parallel()
	var (
		queued, sendingS, sent = domain.StatusQueued, domain.StatusSending, domain.StatusSent
		delivered, read        = domain.StatusDelivered, domain.StatusRead
		failed                 = domain.StatusFailed
	)
	h := func(hour, minute int) time.Time { return time.Date(2026, 11, 22, hour, minute, 0, 0, time.UTC) }
	d := func(day int) time.Time { return time.Date(2026, 11, day, 0, 0, 0, 0, time.UTC) }
	cet := time.FixedZone("CET", 3600)
	cases := []struct {
		name     string
		from, to time.Time
		interval time.Duration
		counts   []domain.StatusCount
		want     domain.Timeline
	}{
		{
			name: "hourly, counts in their intervals, empty ones zero-filled",
			from: h(10, 30), to: h(13, 15), interval: domain.IntervalHour,
			counts: []domain.StatusCount{
				{Status: queued, Start: h(10, 0), Count: 5},
				{Status: sent, Start: h(10, 0), Count: 3},
				{Status: failed, Start: h(11, 0), Count: 1},
				{Status: delivered, Start: h(13, 0), Count: 2},
				{Status: read, Start: h(13, 0), Count: 1},
			},
			want: domain.Timeline{Interval: time.Hour, From: h(10, 30), To: h(13, 15), Points: []domain.TimelinePoint{
				{Start: h(10, 0), Counts: zeroCounts(map[domain.MessageStatus]int{queued: 5, sent: 3})},
				{Start: h(11, 0), Counts: zeroCounts(map[domain.MessageStatus]int{failed: 1})},
				{Start: h(12, 0), Counts: zeroCounts(nil)},
				{Start: h(13, 0), Counts: zeroCounts(map[domain.MessageStatus]int{delivered: 2, read: 1})},
			}},
		},
		{
			name: "counts outside the window, and of statuses a timeline does not count, are ignored",
			from: h(10, 0), to: h(11, 59), interval: domain.IntervalHour,
			counts: []domain.StatusCount{
				{Status: sent, Start: h(9, 0), Count: 7},
				{Status: sent, Start: h(12, 0), Count: 8},
				{Status: sendingS, Start: h(10, 0), Count: 4},
				{Status: domain.MessageStatus{}, Start: h(10, 0), Count: 9},
				{Status: read, Start: h(11, 0), Count: 2},
			},
			want: domain.Timeline{Interval: time.Hour, From: h(10, 0), To: h(11, 59), Points: []domain.TimelinePoint{
				{Start: h(10, 0), Counts: zeroCounts(nil)},
				{Start: h(11, 0), Counts: zeroCounts(map[domain.MessageStatus]int{read: 2})},
			}},
		},
		{
			name: "counts of one status and interval add up, wherever in the interval they start",
			from: h(10, 0), to: h(10, 30), interval: domain.IntervalHour,
			counts: []domain.StatusCount{
				{Status: sent, Start: h(10, 0), Count: 2},
				{Status: sent, Start: h(10, 45), Count: 3},
			},
			want: domain.Timeline{Interval: time.Hour, From: h(10, 0), To: h(10, 30), Points: []domain.TimelinePoint{
				{Start: h(10, 0), Counts: zeroCounts(map[domain.MessageStatus]int{sent: 5})},
			}},
		},
		{
			name: "daily, window and counts given in another zone",
			// 00:30 on the 22nd in CET is 23:30 UTC on the 21st: the
			// window starts on the 21st.
			from: time.Date(2026, 11, 22, 0, 30, 0, 0, cet), to: time.Date(2026, 11, 23, 12, 0, 0, 0, cet),
			interval: domain.IntervalDay,
			counts: []domain.StatusCount{
				{Status: delivered, Start: d(21), Count: 1},
				{Status: delivered, Start: time.Date(2026, 11, 23, 0, 30, 0, 0, cet), Count: 6}, // the 22nd in UTC
				{Status: read, Start: d(23), Count: 4},
				{Status: read, Start: d(24), Count: 9},
			},
			want: domain.Timeline{Interval: 24 * time.Hour, From: time.Date(2026, 11, 21, 23, 30, 0, 0, time.UTC),
				To: time.Date(2026, 11, 23, 11, 0, 0, 0, time.UTC), Points: []domain.TimelinePoint{
					{Start: d(21), Counts: zeroCounts(map[domain.MessageStatus]int{delivered: 1})},
					{Start: d(22), Counts: zeroCounts(map[domain.MessageStatus]int{delivered: 6})},
					{Start: d(23), Counts: zeroCounts(map[domain.MessageStatus]int{read: 4})},
				}},
		},
		{
			name: "no counts",
			from: d(22), to: d(22).Add(time.Minute), interval: domain.IntervalDay,
			want: domain.Timeline{Interval: 24 * time.Hour, From: d(22), To: d(22).Add(time.Minute),
				Points: []domain.TimelinePoint{{Start: d(22), Counts: zeroCounts(nil)}}},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got, err := domain.NewTimeline(c.from, c.to, c.interval, c.counts)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.want, got, cmpStatus); diff != "" {
				t.Fatalf("timeline (-want +got):\n%s", diff)
			}
			for _, tm := range []time.Time{got.From, got.To} {
				if tm.Location() != time.UTC {
					t.Fatalf("window bound %v is not in UTC", tm)
				}
			}
			for _, p := range got.Points {
				if p.Start.Location() != time.UTC {
					t.Fatalf("point start %v is not in UTC", p.Start)
				}
			}
		})
	}
}

// TestNewTimelinePoints: a timeline has one point per interval from the one
// holding from to the one holding to, both included.
func TestNewTimelinePoints(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		from, to time.Time
		interval time.Duration
		want     int
	}{
		{"23 hours, hourly: the default day of hours", t0, t0.Add(23 * time.Hour), domain.IntervalHour, 24},
		{"24 hours, hourly: the interval holding to counts too", t0, t0.Add(24 * time.Hour), domain.IntervalHour, 25},
		{"24 hours, hourly, off the hour", t0.Add(30 * time.Minute), t0.Add(24*time.Hour + 30*time.Minute), domain.IntervalHour, 25},
		{"a minute within one hour", t0.Add(5 * time.Minute), t0.Add(6 * time.Minute), domain.IntervalHour, 1},
		{"a minute across the hour", t0.Add(-time.Minute), t0, domain.IntervalHour, 2},
		{"29 days, daily: the default month", t0, t0.Add(29 * 24 * time.Hour), domain.IntervalDay, 30},
		{"the most points, hourly", t0, t0.Add((domain.MaxTimelinePoints - 1) * time.Hour), domain.IntervalHour, domain.MaxTimelinePoints},
		{"the most points, daily", t0, t0.Add((domain.MaxTimelinePoints - 1) * 24 * time.Hour), domain.IntervalDay, domain.MaxTimelinePoints},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got, err := domain.NewTimeline(c.from, c.to, c.interval, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Points) != c.want {
				t.Fatalf("%d points, want %d", len(got.Points), c.want)
			}
			for i, p := range got.Points {
				if want := domain.IntervalStart(c.from, c.interval).Add(time.Duration(i) * c.interval); !p.Start.Equal(want) {
					t.Fatalf("point %d starts at %v, want %v", i, p.Start, want)
				}
				if diff := cmp.Diff(zeroCounts(nil), p.Counts, cmpStatus); diff != "" {
					t.Fatalf("point %d counts (-want +got):\n%s", i, diff)
				}
			}
		})
	}
}

func TestNewTimelineRefuses(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, param, detail string
		from, to            time.Time
		interval            time.Duration
	}{
		{"from equal to to", "from", "from must be before to", t0, t0, domain.IntervalHour},
		{"from after to", "from", "from must be before to", t0.Add(time.Hour), t0, domain.IntervalHour},
		{"one point too many, hourly", "from", "the window holds 1001 intervals; at most 1000",
			t0, t0.Add(domain.MaxTimelinePoints * time.Hour), domain.IntervalHour},
		{"one point too many, daily", "from", "the window holds 1001 intervals",
			t0, t0.Add(domain.MaxTimelinePoints * 24 * time.Hour), domain.IntervalDay},
		{"one point too many, off the hour", "from", "the window holds 1001 intervals",
			t0.Add(59 * time.Minute), t0.Add((domain.MaxTimelinePoints-1)*time.Hour + time.Hour), domain.IntervalHour},
		{"a hundred years, hourly", "from", "at most 1000", t0, t0.AddDate(100, 0, 0), domain.IntervalHour},
		{"no interval", "interval", "hour or day", t0, t0.Add(time.Hour), 0},
		{"a negative interval", "interval", "hour or day", t0, t0.Add(time.Hour), -time.Hour},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got, err := domain.NewTimeline(c.from, c.to, c.interval, []domain.StatusCount{{Status: domain.StatusSent, Start: c.from, Count: 1}})
			wantInvalid(t, err, c.param, c.detail)
			if got.Points != nil {
				t.Errorf("a refused window came with %d points", len(got.Points))
			}
		})
	}
}
