package whatsapp

import (
	"go.uber.org/fx"

	"github.com/heraldhq/herald/ports"
)

// Module provides the one Cloud API *Client, also as the ports.CloudClients
// that act for each stored business number and as the
// ports.NumberHealthReader. It needs a Config. Add
// SenderModule and TemplateSourceModule for the uses that are configured;
// both are the same client.
var Module = fx.Module("whatsapp", fx.Provide(New, func(c *Client) ports.CloudClients { return c },
	func(c *Client) ports.NumberHealthReader { return c }))

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
//
// When a ports.AppSecretSource is in the graph (delivery.Module's stored
// numbers), the stored Meta apps' secrets sign calls too.
var WebhookModule = fx.Module("whatsapp.webhooks",
	fx.Provide(fx.Annotate(newWebhooks, fx.As(new(ports.WebhookVerifier)), fx.As(new(ports.WebhookDecoder)),
		fx.As(new(ports.BusinessNumbers)))),
)

type webhookParams struct {
	fx.In
	Config WebhookConfig
	Stored ports.AppSecretSource `optional:"true"`
}

func newWebhooks(p webhookParams) *Webhooks {
	w := NewWebhooks(p.Config)
	if p.Stored != nil {
		w = w.WithStoredSecrets(p.Stored)
	}
	return w
}
