package domain

// CampaignStats are a campaign's message counts per status and its rates.
type CampaignStats struct {
	Counts       map[MessageStatus]int
	Total        int
	DeliveryRate float64 // delivered or read, over messages that left Herald (sent, delivered, read, failed)
	ReadRate     float64 // read, over messages delivered or read
	// FailuresByCode counts failed messages per provider error code (0 when
	// a failure had none).
	FailuresByCode map[int]int
}

// NewCampaignStats computes totals and rates from counts per status and
// failures per code.
func NewCampaignStats(counts map[MessageStatus]int, failures map[int]int) CampaignStats {
	full := make(map[MessageStatus]int, len(MessageStatuses()))
	total := 0
	for _, s := range MessageStatuses() {
		full[s] = counts[s]
		total += counts[s]
	}
	left := full[StatusSent] + full[StatusDelivered] + full[StatusRead] + full[StatusFailed]
	delivered := full[StatusDelivered] + full[StatusRead]
	if failures == nil {
		failures = map[int]int{}
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
