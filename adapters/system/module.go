package system

import (
	"go.uber.org/fx"

	"github.com/heraldhq/herald/ports"
)

// Module provides the real clock, the identifier generator and the
// password hasher. It needs a PasswordConfig.
var Module = fx.Module("system",
	fx.Provide(
		fx.Annotate(func() Clock { return Clock{} }, fx.As(new(ports.Clock))),
		fx.Annotate(NewIDs, fx.As(new(ports.IDGenerator))),
		fx.Annotate(NewPasswords, fx.As(new(ports.PasswordHasher))),
	),
)
