package domain

// CampaignStats are a campaign's message counts per status and its rates.
type CampaignStats struct {
	Counts       map[MessageStatus]int
	Total        int
	DeliveryRate float64 // delivered or read, over messages that left Herald (sent, delivered, read, failed)
	ReadRate     float64 // read, over messages delivered or read
}

// NewCampaignStats computes totals and rates from counts per status.
func NewCampaignStats(counts map[MessageStatus]int) CampaignStats {
	full := make(map[MessageStatus]int, len(MessageStatuses()))
	total := 0
	for _, s := range MessageStatuses() {
		full[s] = counts[s]
		total += counts[s]
	}
	left := full[StatusSent] + full[StatusDelivered] + full[StatusRead] + full[StatusFailed]
	delivered := full[StatusDelivered] + full[StatusRead]
	st := CampaignStats{Counts: full, Total: total}
	if left > 0 {
		st.DeliveryRate = float64(delivered) / float64(left)
	}
	if delivered > 0 {
		st.ReadRate = float64(full[StatusRead]) / float64(delivered)
	}
	return st
}
