package app

import (
	"context"
	"time"

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

// CampaignStatsView is a campaign with its statistics and timeline.
type CampaignStatsView struct {
	Campaign domain.Campaign
	Stats    domain.CampaignStats
	Timeline domain.Timeline
}

// GetCampaignStatsHandler answers GetCampaignStats.
type GetCampaignStatsHandler struct {
	camps    ports.CampaignRepository
	messages ports.MessageRepository
	clock    ports.Clock
	obs      *Observer
}

// NewGetCampaignStatsHandler builds the handler.
func NewGetCampaignStatsHandler(camps ports.CampaignRepository, messages ports.MessageRepository, clock ports.Clock, obs *Observer) *GetCampaignStatsHandler {
	return &GetCampaignStatsHandler{camps: camps, messages: messages, clock: clock, obs: obs}
}

// Handle returns the statistics, or campaign_not_found.
func (h *GetCampaignStatsHandler) Handle(ctx context.Context, q GetCampaignStats) (CampaignStatsView, error) {
	return observe(ctx, h.obs, "get_campaign_stats", func(ctx context.Context) (CampaignStatsView, error) {
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
		stats, err := campaignStats(ctx, h.messages, q.Principal.Workspace, id, q.Principal.Mode)
		if err != nil {
			return CampaignStatsView{}, err
		}
		counts, err := h.messages.CountStatusTimeline(ctx, q.Principal.Workspace, id, q.Principal.Mode, from, to, interval)
		if err != nil {
			return CampaignStatsView{}, err
		}
		tl, err := domain.NewTimeline(from, to, interval, counts)
		return CampaignStatsView{Campaign: c, Stats: stats, Timeline: tl}, err
	})
}

// campaignStats counts a campaign's messages of mode (every mode when zero)
// by status and its failures by Meta's error code.
func campaignStats(ctx context.Context, messages ports.MessageRepository, ws domain.WorkspaceID, id domain.CampaignID, mode domain.KeyMode) (domain.CampaignStats, error) {
	counts, err := messages.CountMessagesByStatus(ctx, ws, id, mode)
	if err != nil {
		return domain.CampaignStats{}, err
	}
	failures, err := messages.CountFailuresByCode(ctx, ws, id, mode)
	if err != nil {
		return domain.CampaignStats{}, err
	}
	return domain.NewCampaignStats(counts, failures), nil
}
