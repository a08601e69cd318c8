package sandbox

import (
	"context"

	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/heraldhq/herald/ports"
)

// Module provides the sandbox as the `name:"sandbox"` sender. It needs a
// Config, a ports.StatusSink, a ports.Clock and a *zap.Logger.
var Module = fx.Module("sandbox",
	fx.Provide(newSender),
	fx.Provide(fx.Annotate(func(s *Sender) ports.WhatsAppSender { return s }, fx.ResultTags(`name:"sandbox"`))),
)

func newSender(lc fx.Lifecycle, sink ports.StatusSink, clock ports.Clock, cfg Config, log *zap.Logger) *Sender {
	s := New(sink, clock, cfg, log.Named("sandbox"))
	lc.Append(fx.StopHook(func(context.Context) { s.Close() }))
	return s
}
