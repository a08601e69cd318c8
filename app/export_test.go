package app

// QueuedSends is how many checked sends wait for a batch.
func (h *SendCampaignMessageHandler) QueuedSends() int {
	return h.batches.Queued()
}

// SendBatchRunners is how many batches are stored at once.
const SendBatchRunners = sendBatchRunners
