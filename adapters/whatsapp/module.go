package whatsapp

import (
	"go.uber.org/fx"

	"github.com/heraldhq/herald/ports"
)

// Module provides the Cloud API client as the `name:"live"` sender. It needs
// a Config.
var Module = fx.Module("whatsapp",
	fx.Provide(fx.Annotate(func(cfg Config) ports.WhatsAppSender { return New(cfg) }, fx.ResultTags(`name:"live"`))),
)
