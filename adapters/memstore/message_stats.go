package memstore

import (
	"context"
	"time"

	"github.com/heraldhq/herald/domain"
)

// CountMessagesByStatus counts the campaign's messages of mode (every mode
// when zero) per current status; statuses without messages are absent.
func (r *repos) CountMessagesByStatus(ctx context.Context, ws domain.WorkspaceID, id domain.CampaignID, mode domain.KeyMode) (map[domain.MessageStatus]int, error) {
	defer r.enter(ctx)()
	out := map[domain.MessageStatus]int{}
	for _, m := range r.st.messages {
		if m.Workspace == ws && m.CampaignID == id && ofMode(m.Mode, mode) {
			out[m.Status]++
		}
	}
	return out, nil
}

// CountFailuresByCode counts the campaign's failed messages of mode per
// provider code and Herald's own code.
func (r *repos) CountFailuresByCode(ctx context.Context, ws domain.WorkspaceID, id domain.CampaignID, mode domain.KeyMode) (map[domain.FailureKey]int, error) {
	defer r.enter(ctx)()
	out := map[domain.FailureKey]int{}
	for _, m := range r.st.messages {
		if m.Workspace == ws && m.CampaignID == id && ofMode(m.Mode, mode) && m.Status == domain.StatusFailed {
			out[m.Failure.Key()]++
		}
	}
	return out, nil
}

// CountStatusTimeline counts the campaign's messages of mode by the
// interval in which they first reached each timeline status: accepted
// (queued) at their creation, the others at domain.Message.ReachedAt. The
// window runs from the interval holding from to the one holding to; only
// non-zero counts come back.
func (r *repos) CountStatusTimeline(ctx context.Context, ws domain.WorkspaceID, id domain.CampaignID, mode domain.KeyMode, from, to time.Time, interval time.Duration) ([]domain.StatusCount, error) {
	defer r.enter(ctx)()
	if interval < time.Microsecond || interval%time.Microsecond != 0 {
		return nil, domain.InvalidParameter("interval", "interval must be a positive whole number of microseconds")
	}
	lo, hi := domain.IntervalStart(from, interval), domain.IntervalStart(to, interval).Add(interval)
	type key struct {
		status domain.MessageStatus
		start  time.Time
	}
	counts := map[key]int{}
	for _, m := range r.st.messages {
		if m.Workspace != ws || m.CampaignID != id || !ofMode(m.Mode, mode) {
			continue
		}
		for _, st := range domain.TimelineStatuses() {
			at, ok := m.CreatedAt, true
			if st != domain.StatusQueued {
				at, ok = m.ReachedAt(st)
			}
			if ok && !at.Before(lo) && at.Before(hi) {
				counts[key{st, domain.IntervalStart(at, interval)}]++
			}
		}
	}
	out := make([]domain.StatusCount, 0, len(counts))
	for k, n := range counts {
		out = append(out, domain.StatusCount{Status: k.status, Start: k.start, Count: n})
	}
	return out, nil
}
