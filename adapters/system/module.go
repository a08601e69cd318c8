package system

import (
	"go.uber.org/fx"

	"github.com/heraldhq/herald/ports"
)

// Module provides the real clock and identifier generator.
var Module = fx.Module("system",
	fx.Provide(
		fx.Annotate(func() Clock { return Clock{} }, fx.As(new(ports.Clock))),
		fx.Annotate(NewIDs, fx.As(new(ports.IDGenerator))),
	),
)
