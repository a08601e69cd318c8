package webhookout

import (
	"go.uber.org/fx"

	"github.com/heraldhq/herald/ports"
)

// Module provides the *Poster as the ports.EventPoster. It needs a Config;
// when the application stops, the poster's idle connections are closed.
var Module = fx.Module("webhookout",
	fx.Provide(fx.Annotate(newPoster, fx.As(new(ports.EventPoster)))),
)

func newPoster(lc fx.Lifecycle, cfg Config) *Poster {
	p := New(cfg)
	lc.Append(fx.StopHook(p.CloseIdleConnections))
	return p
}
