package app

import (
	"context"
	"errors"
	"time"

	"go.uber.org/zap"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// Observer logs each use case run: its name, duration and error code. It
// never logs inputs: template variables and phone numbers are personal data.
type Observer struct{ log *zap.Logger }

// NewObserver returns an observer logging to log; nil logs nothing.
func NewObserver(log *zap.Logger) *Observer {
	if log == nil {
		log = zap.NewNop()
	}
	return &Observer{log: log.Named("app")}
}

// observe runs fn as the use case name and logs the outcome. Domain errors
// are expected outcomes and log at debug; anything else at error.
func observe[R any](ctx context.Context, o *Observer, name string, fn func(context.Context) (R, error)) (R, error) {
	start := time.Now()
	r, err := fn(ctx)
	if o == nil {
		return r, err
	}
	fields := []zap.Field{zap.String("use_case", name), zap.Duration("duration", time.Since(start))}
	var de *domain.Error
	switch {
	case err == nil:
		if ce := o.log.Check(zap.DebugLevel, "use case done"); ce != nil {
			ce.Write(fields...)
		}
	case errors.As(err, &de):
		if ce := o.log.Check(zap.DebugLevel, "use case refused"); ce != nil {
			ce.Write(append(fields, zap.String("code", string(de.Code)))...)
		}
	case errors.Is(err, ports.ErrUnavailable):
		o.log.Warn("use case unavailable", append(fields, zap.Error(err))...)
	case errors.Is(err, ports.ErrTooManyPasswordChecks):
		o.log.Warn("use case refused: too many password checks at once", fields...)
	case errors.Is(err, context.Canceled):
		o.log.Debug("use case canceled", fields...)
	default:
		o.log.Error("use case failed", append(fields, zap.Error(err))...)
	}
	return r, err
}

// Logger returns a named child logger for long-running workers; a nil
// observer's logs nothing.
func (o *Observer) Logger(name string) *zap.Logger {
	if o == nil {
		return zap.NewNop()
	}
	return o.log.Named(name)
}
