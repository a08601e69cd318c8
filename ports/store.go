package ports

// Store is every port one store adapter provides (sqlstore.Store and
// memstore.Store implement it whole): the repositories, the queue, the
// transactor and the readiness check. It and StorePorts are the one list
// of them: the adapters check `var _ ports.Store = (*Store)(nil)`, the
// contract suite (porttest.RunStore) takes a Store, and sqlstore's modules
// provide the one store as each of StorePorts.
type Store interface {
	WorkspaceRepository
	KeyRepository
	CampaignRepository
	TemplateRepository
	ContactRepository
	OptOutReader
	MessageRepository
	MessageStatsReader
	ParkedStatusRepository
	MessageQueue
	QueueStatsReader
	ConversationRepository
	InboxRepository
	WebhookEventRepository
	IdempotencyRepository
	SendCountRepository
	PhoneHealthRepository
	MessagingReachRepository
	OperatorRepository
	EventWriter
	EventRepository
	EndpointRepository
	NumberRepository
	DeliveryQueue
	MediaRepository
	Transactor
	Pinger
}

// StorePorts returns a nil pointer to each interface Store is made of, in
// the order above, for wiring one store as each of them (fx.As in
// sqlstore's module). store_test.go fails when the two lists differ.
func StorePorts() []any {
	return []any{
		new(WorkspaceRepository),
		new(KeyRepository),
		new(CampaignRepository),
		new(TemplateRepository),
		new(ContactRepository),
		new(OptOutReader),
		new(MessageRepository),
		new(MessageStatsReader),
		new(ParkedStatusRepository),
		new(MessageQueue),
		new(QueueStatsReader),
		new(ConversationRepository),
		new(InboxRepository),
		new(WebhookEventRepository),
		new(IdempotencyRepository),
		new(SendCountRepository),
		new(PhoneHealthRepository),
		new(MessagingReachRepository),
		new(OperatorRepository),
		new(EventWriter),
		new(EventRepository),
		new(EndpointRepository),
		new(NumberRepository),
		new(DeliveryQueue),
		new(MediaRepository),
		new(Transactor),
		new(Pinger),
	}
}
