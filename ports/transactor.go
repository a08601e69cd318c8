package ports

import "context"

//go:generate go tool moq -rm -pkg portsmock -out portsmock/transactor.go . Transactor

// Repos are the repositories bound to one transaction.
type Repos struct {
	Workspaces    WorkspaceRepository
	Keys          KeyRepository
	Campaigns     CampaignRepository
	Templates     TemplateRepository
	Contacts      ContactRepository
	Messages      MessageRepository
	Parked        ParkedStatusRepository
	Queue         MessageQueue
	Conversations ConversationRepository
	Webhooks      WebhookEventRepository
	Idempotency   IdempotencyRepository
	SendCounts    SendCountRepository
	// Health and Reach are numbers' health and the messaging limit's
	// count of recipients (phone_health.go).
	Health PhoneHealthRepository
	Reach  MessagingReachRepository
	// Events writes the events a change reports, with their deliveries,
	// in the change's transaction.
	Events EventWriter
	// Numbers are the business numbers and Meta apps.
	Numbers NumberRepository
	// Media records the files of inbound messages with their entries.
	Media MediaRepository
}

// Transactor runs a unit of work atomically.
type Transactor interface {
	// WithinTx runs fn with repositories bound to one transaction. If fn
	// returns an error or panics, every write is rolled back; otherwise the
	// transaction commits and the commit's error is returned.
	WithinTx(ctx context.Context, fn func(ctx context.Context, r Repos) error) error
}
