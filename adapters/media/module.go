package media

import (
	"go.uber.org/fx"

	"github.com/heraldhq/herald/ports"
)

// Module provides the *Inspector as the ports.MediaInspector. It needs a
// Config.
var Module = fx.Module("media",
	fx.Provide(fx.Annotate(New, fx.As(new(ports.MediaInspector)))),
)
