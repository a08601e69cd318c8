package app

import (
	"context"
	"time"

	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// GetCampaignStats reads a campaign's message counts and rates, and its
// activity over time: by Interval (zero: hourly) from From to To (zero To:
// now; zero From: a day of hours, or 30 days, before To). A key counts only
// its own mode's messages; the dashboard's operator counts every mode.
type GetCampaignStats struct {
	Principal  domain.Principal
	CampaignID string
	Interval   time.Duration
	From, To   time.Time
}

// CampaignStatsView is a campaign with its statistics and timeline, of the
// caller's mode for a key, of every mode for the dashboard's operator, who
// also gets the statistics per mode in ByMode (zero for a key).
type CampaignStatsView struct {
	Campaign domain.Campaign
	Stats    domain.CampaignStats
	ByMode   domain.ModeStats
	Timeline domain.Timeline
}

// GetCampaignStatsHandler answers GetCampaignStats.
type GetCampaignStatsHandler struct {
	camps ports.CampaignRepository
	stats ports.MessageStatsReader
	clock ports.Clock
	obs   *usecase.Observer
}

// NewGetCampaignStatsHandler builds the handler.
func NewGetCampaignStatsHandler(camps ports.CampaignRepository, stats ports.MessageStatsReader, clock ports.Clock, obs *usecase.Observer) *GetCampaignStatsHandler {
	return &GetCampaignStatsHandler{camps: camps, stats: stats, clock: clock, obs: obs}
}

// Handle returns the statistics, or campaign_not_found.
func (h *GetCampaignStatsHandler) Handle(ctx context.Context, q GetCampaignStats) (CampaignStatsView, error) {
	return usecase.Observe(ctx, h.obs, "get_campaign_stats", func(ctx context.Context) (CampaignStatsView, error) {
		id, err := domain.ParseCampaignID(q.CampaignID)
		if err != nil {
			return CampaignStatsView{}, err
		}
		c, err := h.camps.GetCampaign(ctx, q.Principal.Workspace, id)
		if err != nil {
			return CampaignStatsView{}, err
		}
		interval, from, to := q.Interval, q.From, q.To
		if interval == 0 {
			interval = domain.IntervalHour
		}
		if to.IsZero() {
			to = h.clock.Now()
		}
		if from.IsZero() {
			span := 23 * time.Hour // 24 points
			if interval == domain.IntervalDay {
				span = 29 * domain.IntervalDay // 30 points
			}
			from = to.Add(-span)
		}
		if _, err := domain.NewTimeline(from, to, interval, nil); err != nil {
			return CampaignStatsView{}, err // a bad window, before reading anything
		}
		stats, byMode, err := campaignStats(ctx, h.stats, q.Principal.Workspace, id, q.Principal.Mode)
		if err != nil {
			return CampaignStatsView{}, err
		}
		counts, err := h.stats.CountStatusTimeline(ctx, q.Principal.Workspace, id, q.Principal.Mode, from, to, interval)
		if err != nil {
			return CampaignStatsView{}, err
		}
		tl, err := domain.NewTimeline(from, to, interval, counts)
		return CampaignStatsView{Campaign: c, Stats: stats, ByMode: byMode, Timeline: tl}, err
	})
}

// campaignStats counts a campaign's messages by status and its failures by
// Meta's error code, of mode's messages only (a key's). For the zero mode
// (the dashboard's operator) it counts every mode's, and each mode's apart
// too: sandbox reads are simulated and must not pass for live ones. A key
// gets no split: it sees only its own mode.
func campaignStats(ctx context.Context, messages ports.MessageStatsReader, ws domain.WorkspaceID, id domain.CampaignID,
	mode domain.KeyMode) (domain.CampaignStats, domain.ModeStats, error) {
	modes := []domain.KeyMode{mode}
	if mode.IsZero() {
		modes = []domain.KeyMode{domain.ModeLive, domain.ModeTest}
	}
	counts := make(map[domain.KeyMode]map[domain.MessageStatus]int, len(modes))
	for _, m := range modes {
		c, err := messages.CountMessagesByStatus(ctx, ws, id, m)
		if err != nil {
			return domain.CampaignStats{}, domain.ModeStats{}, err
		}
		counts[m] = c
	}
	failures, err := messages.CountFailuresByCode(ctx, ws, id, mode)
	if err != nil {
		return domain.CampaignStats{}, domain.ModeStats{}, err
	}
	all, byMode := domain.NewModeStats(counts, failures)
	if !mode.IsZero() {
		byMode = domain.ModeStats{}
	}
	return all, byMode, nil
}
