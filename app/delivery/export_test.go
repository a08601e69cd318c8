package delivery

// QueuedCalls is how many webhook calls wait for a group.
func (h *ReceiveWebhookHandler) QueuedCalls() int { return h.groups.Queued() }

// WebhookGroupRunners is how many groups of webhook calls are stored at once.
const WebhookGroupRunners = webhookGroupRunners
