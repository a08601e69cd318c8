package zaplog

import (
	"fmt"
	"io"

	"go.uber.org/fx"
	"go.uber.org/fx/fxevent"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// Config picks the log format and level.
type Config struct {
	Format string // "json" or "console"
	Level  string // debug, info, warn, error
	Output io.Writer
}

// New builds a logger writing to cfg.Output.
func New(cfg Config) (*zap.Logger, error) {
	level, err := zapcore.ParseLevel(cfg.Level)
	if err != nil || cfg.Level == "" {
		if cfg.Level != "" {
			return nil, fmt.Errorf("log level %q: want debug, info, warn or error", cfg.Level)
		}
		level = zapcore.InfoLevel
	}
	var enc zapcore.Encoder
	switch cfg.Format {
	case "json":
		ec := zap.NewProductionEncoderConfig()
		ec.EncodeTime = zapcore.RFC3339NanoTimeEncoder
		enc = zapcore.NewJSONEncoder(ec)
	case "console", "":
		ec := zap.NewDevelopmentEncoderConfig()
		ec.EncodeTime = zapcore.TimeEncoderOfLayout("15:04:05.000")
		enc = zapcore.NewConsoleEncoder(ec)
	default:
		return nil, fmt.Errorf("log format %q: want json or console", cfg.Format)
	}
	return zap.New(zapcore.NewCore(enc, zapcore.AddSync(cfg.Output), level)), nil
}

// Module provides *zap.Logger from Config and logs fx's own events through it
// at debug level. It is a plain fx.Options rather than an fx.Module because
// fx.WithLogger inside a module would apply to that module alone.
var Module = fx.Options(
	fx.Provide(New),
	fx.WithLogger(func(l *zap.Logger) fxevent.Logger {
		zl := &fxevent.ZapLogger{Logger: l.Named("fx")}
		zl.UseLogLevel(zapcore.DebugLevel)
		return zl
	}),
)
