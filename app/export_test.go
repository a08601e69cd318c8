package app

// QueuedSends is how many checked sends wait for a batch.
func (h *SendCampaignMessageHandler) QueuedSends() int {
	h.batches.mu.Lock()
	defer h.batches.mu.Unlock()
	return len(h.batches.queue)
}

// SendBatchRunners is how many batches are stored at once.
const SendBatchRunners = sendBatchRunners
