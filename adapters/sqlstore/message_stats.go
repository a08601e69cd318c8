package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/heraldhq/herald/domain"
)

// The statistics reader (ports.MessageStatsReader): counts over a
// campaign's messages.

// CountFailuresByCode counts a campaign's failed messages per provider
// error code, 0 for failures without one, and Herald's own code.
func (s *Store) CountFailuresByCode(ctx context.Context, ws domain.WorkspaceID, id domain.CampaignID, mode domain.KeyMode) (map[domain.FailureKey]int, error) {
	const q = `SELECT COALESCE(failure_code, 0) AS code, failure_herald_code, count(*) AS n FROM messages
WHERE workspace_id = :workspace_id AND campaign_id = :campaign_id AND status = 'failed' AND (:mode = '' OR mode = :mode)
GROUP BY COALESCE(failure_code, 0), failure_herald_code`
	var rows []struct {
		Code   int    `db:"code"`
		Herald string `db:"failure_herald_code"`
		N      int    `db:"n"`
	}
	arg := map[string]any{"workspace_id": string(ws), "campaign_id": string(id), "mode": mode.String()}
	if err := s.selectAll(ctx, &rows, q, arg); err != nil {
		return nil, s.fail("count failures", err, nil)
	}
	out := make(map[domain.FailureKey]int, len(rows))
	for _, r := range rows {
		out[domain.FailureKey{Code: r.Code, HeraldCode: domain.Code(r.Herald)}] = r.N
	}
	return out, nil
}

// CountMessagesByStatus counts the campaign's messages of mode (every mode
// when zero) per current status; statuses no message has are absent.
func (s *Store) CountMessagesByStatus(ctx context.Context, ws domain.WorkspaceID, id domain.CampaignID, mode domain.KeyMode) (map[domain.MessageStatus]int, error) {
	const q = `SELECT status, count(*) AS n FROM messages
WHERE workspace_id = :workspace_id AND campaign_id = :campaign_id AND (:mode = '' OR mode = :mode)
GROUP BY status`
	var rows []struct {
		Status string `db:"status"`
		N      int    `db:"n"`
	}
	arg := map[string]any{"workspace_id": string(ws), "campaign_id": string(id), "mode": mode.String()}
	if err := s.selectAll(ctx, &rows, q, arg); err != nil {
		return nil, s.fail("count messages", err, nil)
	}
	counts := make(map[domain.MessageStatus]int, len(rows))
	for _, r := range rows {
		st, err := parseStored("message status", r.Status, domain.ParseMessageStatus)
		if err != nil {
			return nil, s.fail("count messages", err, nil)
		}
		counts[st] = r.N
	}
	return counts, nil
}

// CountStatusTimeline counts the campaign's messages of mode (every mode
// when zero) by the interval in which they first reached each timeline
// status: accepted (queued) at
// created_at, the others at the timeline columns every write derives from
// domain.Message.ReachedAt. Intervals start at whole multiples of interval
// since the Unix epoch, which for hours and days is domain.IntervalStart;
// the window runs from the interval holding from to the one holding to,
// both included. Only non-zero counts come back.
func (s *Store) CountStatusTimeline(ctx context.Context, ws domain.WorkspaceID, id domain.CampaignID, mode domain.KeyMode, from, to time.Time, interval time.Duration) ([]domain.StatusCount, error) {
	// One branch per status, each over the campaign's entries of
	// messages_campaign, which carries every column read here; %[n]s is the
	// dialect's Unix microseconds of each column.
	const q = `SELECT status, bucket, count(*) AS n FROM (
    SELECT 'queued' AS status, %[1]s / :interval_us AS bucket FROM messages
    WHERE workspace_id = :workspace_id AND campaign_id = :campaign_id AND created_at >= :lo AND created_at < :hi
      AND (:mode = '' OR mode = :mode)
    UNION ALL
    SELECT 'sent' AS status, %[2]s / :interval_us AS bucket FROM messages
    WHERE workspace_id = :workspace_id AND campaign_id = :campaign_id AND sent_at >= :lo AND sent_at < :hi
      AND (:mode = '' OR mode = :mode)
    UNION ALL
    SELECT 'delivered' AS status, %[3]s / :interval_us AS bucket FROM messages
    WHERE workspace_id = :workspace_id AND campaign_id = :campaign_id AND delivered_at >= :lo AND delivered_at < :hi
      AND (:mode = '' OR mode = :mode)
    UNION ALL
    SELECT 'read' AS status, %[4]s / :interval_us AS bucket FROM messages
    WHERE workspace_id = :workspace_id AND campaign_id = :campaign_id AND read_at >= :lo AND read_at < :hi
      AND (:mode = '' OR mode = :mode)
    UNION ALL
    SELECT 'failed' AS status, %[5]s / :interval_us AS bucket FROM messages
    WHERE workspace_id = :workspace_id AND campaign_id = :campaign_id AND failed_at >= :lo AND failed_at < :hi
      AND (:mode = '' OR mode = :mode)
) t
GROUP BY status, bucket`
	if interval < time.Microsecond || interval%time.Microsecond != 0 {
		return nil, domain.InvalidParameter("interval", "interval must be a positive whole number of microseconds")
	}
	lo, hi := domain.IntervalStart(from, interval), domain.IntervalStart(to, interval).Add(interval)
	if !lo.Before(hi) {
		return []domain.StatusCount{}, nil
	}
	query := fmt.Sprintf(q, s.d.unixMicros("created_at"), s.d.unixMicros("sent_at"),
		s.d.unixMicros("delivered_at"), s.d.unixMicros("read_at"), s.d.unixMicros("failed_at"))
	us := interval.Microseconds()
	arg := map[string]any{"workspace_id": string(ws), "campaign_id": string(id), "mode": mode.String(), "interval_us": us,
		"lo": newDBTime(lo), "hi": newDBTime(hi)}
	var rows []struct {
		Status string `db:"status"`
		Bucket int64  `db:"bucket"`
		N      int    `db:"n"`
	}
	if err := s.selectAll(ctx, &rows, query, arg); err != nil {
		return nil, s.fail("count status timeline", err, nil)
	}
	out := make([]domain.StatusCount, 0, len(rows))
	for _, r := range rows {
		st, err := parseStored("message status", r.Status, domain.ParseMessageStatus)
		if err != nil {
			return nil, s.fail("count status timeline", err, nil)
		}
		out = append(out, domain.StatusCount{Status: st, Start: time.UnixMicro(r.Bucket * us).UTC(), Count: r.N})
	}
	return out, nil
}
