package domain

import (
	"fmt"
	"time"
)

// CampaignStats are a campaign's message counts per status and its rates.
type CampaignStats struct {
	Counts       map[MessageStatus]int
	Total        int
	DeliveryRate float64 // delivered or read, over messages that left Herald (sent, delivered, read, failed)
	ReadRate     float64 // read, over messages delivered or read
	// FailuresByCode counts failed messages per provider error code (0 when
	// a failure had none) and Herald's own code (set when Herald failed the
	// message without sending it).
	FailuresByCode map[FailureKey]int
}

// FailureKey groups failed messages in a campaign's statistics: the
// provider's error code (0 when there is none) and Herald's own code
// (empty for the provider's failures).
type FailureKey struct {
	Code       int
	HeraldCode Code
}

// Key is the failure's group in statistics; a nil failure is the zero key.
func (f *Failure) Key() FailureKey {
	if f == nil {
		return FailureKey{}
	}
	return FailureKey{Code: f.Code, HeraldCode: f.HeraldCode}
}

// NewCampaignStats computes totals and rates from counts per status and
// failures per code.
func NewCampaignStats(counts map[MessageStatus]int, failures map[FailureKey]int) CampaignStats {
	full := make(map[MessageStatus]int, len(MessageStatuses()))
	total := 0
	for _, s := range MessageStatuses() {
		full[s] = counts[s]
		total += counts[s]
	}
	left := full[StatusSent] + full[StatusDelivered] + full[StatusRead] + full[StatusFailed]
	delivered := full[StatusDelivered] + full[StatusRead]
	if failures == nil {
		failures = map[FailureKey]int{}
	}
	st := CampaignStats{Counts: full, Total: total, FailuresByCode: failures}
	if left > 0 {
		st.DeliveryRate = float64(delivered) / float64(left)
	}
	if delivered > 0 {
		st.ReadRate = float64(full[StatusRead]) / float64(delivered)
	}
	return st
}

// The intervals a campaign's timeline is counted in, and the most points one
// timeline holds.
const (
	IntervalHour      = time.Hour
	IntervalDay       = 24 * time.Hour
	MaxTimelinePoints = 1000
)

// ParseInterval parses "hour" or "day".
func ParseInterval(s string) (time.Duration, error) {
	switch s {
	case "hour":
		return IntervalHour, nil
	case "day":
		return IntervalDay, nil
	}
	return 0, InvalidParameter("interval", "interval must be hour or day")
}

// TimelineStatuses are the statuses a timeline counts: messages accepted
// (queued), sent, delivered, read and failed in each interval.
func TimelineStatuses() []MessageStatus {
	return []MessageStatus{StatusQueued, StatusSent, StatusDelivered, StatusRead, StatusFailed}
}

// StatusCount is how many of a campaign's messages first reached a status
// in the interval that starts at Start (see Message.ReachedAt).
type StatusCount struct {
	Status MessageStatus
	Start  time.Time
	Count  int
}

// TimelinePoint is one interval of a timeline: how many messages reached
// each of TimelineStatuses in it.
type TimelinePoint struct {
	Start  time.Time
	Counts map[MessageStatus]int
}

// Timeline is a campaign's activity over time, one point per interval from
// the one holding From to the one holding To, empty intervals included.
type Timeline struct {
	Interval time.Duration
	From, To time.Time
	Points   []TimelinePoint
}

// IntervalStart is the start of the interval holding t: intervals are
// aligned to UTC (whole hours, days from midnight).
func IntervalStart(t time.Time, interval time.Duration) time.Time {
	return t.UTC().Truncate(interval)
}

// NewTimeline checks the window and lays counts out as points. The window
// is From to To (To after From) and holds at most MaxTimelinePoints
// intervals; counts outside it are ignored.
func NewTimeline(from, to time.Time, interval time.Duration, counts []StatusCount) (Timeline, error) {
	if interval <= 0 {
		return Timeline{}, InvalidParameter("interval", "interval must be hour or day")
	}
	if !to.After(from) {
		return Timeline{}, InvalidParameter("from", "from must be before to")
	}
	first, last := IntervalStart(from, interval), IntervalStart(to, interval)
	n := int(last.Sub(first)/interval) + 1
	if n > MaxTimelinePoints {
		return Timeline{}, InvalidParameter("from", fmt.Sprintf("the window holds %d intervals; at most %d fit one timeline", n, MaxTimelinePoints))
	}
	tl := Timeline{Interval: interval, From: from.UTC(), To: to.UTC(), Points: make([]TimelinePoint, n)}
	for i := range tl.Points {
		p := TimelinePoint{Start: first.Add(time.Duration(i) * interval), Counts: map[MessageStatus]int{}}
		for _, s := range TimelineStatuses() {
			p.Counts[s] = 0
		}
		tl.Points[i] = p
	}
	for _, c := range counts {
		start := IntervalStart(c.Start, interval)
		if start.Before(first) || start.After(last) {
			continue
		}
		p := tl.Points[int(start.Sub(first)/interval)]
		if _, counted := p.Counts[c.Status]; counted {
			p.Counts[c.Status] += c.Count
		}
	}
	return tl, nil
}
