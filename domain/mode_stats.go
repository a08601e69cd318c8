package domain

// ModeStats are a campaign's statistics split by the mode of the key that
// sent each message: live messages went to Meta, test ones never left the
// sandbox, whose simulated deliveries and reads must not pass for real
// ones.
type ModeStats struct {
	Live CampaignStats
	Test CampaignStats
}

// NewModeStats computes each mode's counts and rates from counts per mode
// and status, and the campaign's statistics over both with failures per
// code (which are not split).
func NewModeStats(counts map[KeyMode]map[MessageStatus]int, failures map[FailureKey]int) (all CampaignStats, byMode ModeStats) {
	sum := map[MessageStatus]int{}
	for _, byStatus := range counts {
		for s, n := range byStatus {
			sum[s] += n
		}
	}
	return NewCampaignStats(sum, failures), ModeStats{
		Live: NewCampaignStats(counts[ModeLive], nil),
		Test: NewCampaignStats(counts[ModeTest], nil),
	}
}
