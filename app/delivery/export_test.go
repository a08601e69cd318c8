package delivery

// QueuedCalls is how many webhook calls wait for a group.
func (h *ReceiveWebhookHandler) QueuedCalls() int { return h.groups.Queued() }

// WebhookGroupRunners is how many groups of webhook calls are stored at once.
const WebhookGroupRunners = webhookGroupRunners

// QueuedOutcomes is how many sends' outcomes wait for a group.
func (d *Dispatcher) QueuedOutcomes() int { return d.records.Queued() }

// OutcomeRunners is how many groups of outcomes are recorded at once.
const OutcomeRunners = outcomeRunners
