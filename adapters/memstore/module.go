package memstore

import (
	"go.uber.org/fx"

	"github.com/heraldhq/herald/ports"
)

// Module provides one in-memory Store as every repository port, the message
// queue, the transactor and the readiness check.
var Module = fx.Module("memstore",
	fx.Provide(fx.Annotate(New,
		fx.As(new(ports.WorkspaceRepository)),
		fx.As(new(ports.KeyRepository)),
		fx.As(new(ports.CampaignRepository)),
		fx.As(new(ports.TemplateRepository)),
		fx.As(new(ports.ContactRepository)),
		fx.As(new(ports.OptOutReader)),
		fx.As(new(ports.MessageRepository)),
		fx.As(new(ports.MessageQueue)),
		fx.As(new(ports.ConversationRepository)),
		fx.As(new(ports.WebhookEventRepository)),
		fx.As(new(ports.IdempotencyRepository)),
		fx.As(new(ports.SendCountRepository)),
		fx.As(new(ports.OperatorRepository)),
		fx.As(new(ports.Transactor)),
		fx.As(new(ports.Pinger)),
	)),
)
