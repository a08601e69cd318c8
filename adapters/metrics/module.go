package metrics

import (
	"net/http"

	"go.uber.org/fx"

	"github.com/heraldhq/herald/ports"
)

// Module provides the *Metrics as the ports.Metrics the app, the API and
// the workers count with, and its handler as the http.Handler named
// "metrics" (httpapi.MetricsModule serves it on its own listener). It needs
// the store's ports.QueueStatsReader and a ports.Clock.
var Module = fx.Module("metrics",
	fx.Provide(
		fx.Annotate(New, fx.As(fx.Self()), fx.As(new(ports.Metrics))),
		fx.Annotate(func(m *Metrics) http.Handler { return m.Handler() }, fx.ResultTags(`name:"metrics"`)),
	),
)
