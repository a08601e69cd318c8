package webhookout

import (
	"go.uber.org/fx"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// Module provides the *Poster as the ports.EventPoster, and the
// domain.WebhookPolicy it applies (for the use cases that save endpoint
// URLs). It needs a Config; when the application stops, the poster's idle
// connections are closed.
var Module = fx.Module("webhookout",
	fx.Provide(fx.Annotate(newPoster, fx.As(new(ports.EventPoster)))),
	fx.Provide(func(cfg Config) domain.WebhookPolicy { return cfg.WithDefaults().Policy() }),
)

func newPoster(lc fx.Lifecycle, cfg Config) *Poster {
	p := New(cfg)
	lc.Append(fx.StopHook(p.CloseIdleConnections))
	return p
}
