package usecase

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
// This file is the only one of app's packages, besides their module.go
// files, that knows zap (test/arch_test.go checks it).
//
// It also carries what the app counts (Metrics) and traces (trace.go) with:
// nothing unless the server was given a metrics port or a tracer provider
// (WithTelemetry).
type Observer struct {
	log     *zap.Logger
	metrics ports.Metrics
	tracing tracing
}

// NewObserver returns an observer logging to log; nil logs nothing. It
// counts and traces nothing.
func NewObserver(log *zap.Logger) *Observer {
	if log == nil {
		log = zap.NewNop()
	}
	return &Observer{log: log.Named("app"), metrics: ports.NoMetrics{}, tracing: noTracing()}
}

// Metrics is what the app counts with: never nil (a nil observer's counts
// nothing).
func (o *Observer) Metrics() ports.Metrics {
	if o == nil || o.metrics == nil {
		return ports.NoMetrics{}
	}
	return o.metrics
}

// Observe runs fn as the use case name and logs the outcome on o (nil logs
// nothing), with the request id ctx carries, if any. Domain errors are expected outcomes and log at debug; anything
// else at error.
func Observe[R any](ctx context.Context, o *Observer, name string, fn func(context.Context) (R, error)) (R, error) {
	start := time.Now()
	ctx, span := o.StartSpan(ctx, name)
	r, err := fn(ctx)
	span.End(err)
	if o == nil {
		return r, err
	}
	fields := []zap.Field{zap.String("use_case", name), zap.Duration("duration", time.Since(start))}
	if id := RequestID(ctx); id != "" {
		fields = append(fields, zap.String("request_id", id))
	}
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

// Logger is a named logger for the workers (the dispatcher, webhook
// application, template refresh) and for what a use case reports beyond
// its outcome. Each line is a lowercase message and key-value pairs: keys
// are snake_case strings, values strings, numbers, booleans, durations,
// times or, under the key "error", an error. Like the Observer, it is
// never given template variables, message text or phone numbers.
type Logger struct{ s *zap.SugaredLogger }

// Logger returns the logger named name; a nil observer's logs nothing.
func (o *Observer) Logger(name string) *Logger {
	if o == nil {
		return &Logger{s: zap.NewNop().Sugar()}
	}
	return &Logger{s: o.log.Named(name).WithOptions(zap.AddCallerSkip(1)).Sugar()}
}

// Debug logs msg at debug level with its key-value pairs.
func (l *Logger) Debug(msg string, keysAndValues ...any) { l.s.Debugw(msg, keysAndValues...) }

// Info logs msg at info level with its key-value pairs.
func (l *Logger) Info(msg string, keysAndValues ...any) { l.s.Infow(msg, keysAndValues...) }

// Warn logs msg at warn level with its key-value pairs.
func (l *Logger) Warn(msg string, keysAndValues ...any) { l.s.Warnw(msg, keysAndValues...) }

// Error logs msg at error level with its key-value pairs.
func (l *Logger) Error(msg string, keysAndValues ...any) { l.s.Errorw(msg, keysAndValues...) }
