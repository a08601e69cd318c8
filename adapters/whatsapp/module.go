package whatsapp

import (
	"go.uber.org/fx"

	"github.com/heraldhq/herald/ports"
)

// Module provides the one Cloud API *Client. It needs a Config. Add
// SenderModule and TemplateSourceModule for the uses that are configured;
// both are the same client.
var Module = fx.Module("whatsapp", fx.Provide(New))

// SenderModule provides the client as the `name:"live"` sender, and as the
// ports.MediaUploader and ports.MediaDownloader of the number it sends
// from. It needs Module.
var SenderModule = fx.Module("whatsapp.sender",
	fx.Provide(fx.Annotate(func(c *Client) ports.WhatsAppSender { return c }, fx.ResultTags(`name:"live"`))),
	fx.Provide(func(c *Client) ports.MediaUploader { return c }, func(c *Client) ports.MediaDownloader { return c }),
)

// TemplateSourceModule provides the client as the ports.TemplateSource and
// the ports.TemplateAuthor. It
// needs Module.
var TemplateSourceModule = fx.Module("whatsapp.templates",
	fx.Provide(func(c *Client) ports.TemplateSource { return c }, func(c *Client) ports.TemplateAuthor { return c }),
)

// WebhookModule provides the webhook checks (ports.WebhookVerifier), their
// decoding (ports.WebhookDecoder) and the business numbers that are
// Herald's (ports.BusinessNumbers), all one *Webhooks. It needs a WebhookConfig, and not Module:
// webhooks are received even when nothing is sent through the Cloud API.
var WebhookModule = fx.Module("whatsapp.webhooks",
	fx.Provide(fx.Annotate(NewWebhooks, fx.As(new(ports.WebhookVerifier)), fx.As(new(ports.WebhookDecoder)),
		fx.As(new(ports.BusinessNumbers)))),
)
