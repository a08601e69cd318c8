package usecase

import (
	"context"
	"errors"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// Tracing (decision 0023). This file is the only one of app's packages
// that knows OpenTelemetry, and it knows only its API: the SDK, the
// exporters and their settings are cmd's (test/arch_test.go checks it).
// Without a tracer provider every span is a no-op that costs a call.

// tracerName names the spans' instrumentation scope.
const tracerName = "github.com/heraldhq/herald/app"

type tracing struct{ tracer trace.Tracer }

func noTracing() tracing { return tracing{tracer: noop.NewTracerProvider().Tracer(tracerName)} }

// WithTelemetry returns a copy of o that counts with m and traces with tp;
// nil leaves either off.
func (o *Observer) WithTelemetry(m ports.Metrics, tp trace.TracerProvider) *Observer {
	c := *o
	c.metrics, c.tracing = ports.NoMetrics{}, noTracing()
	if m != nil {
		c.metrics = m
	}
	if tp != nil {
		c.tracing = tracing{tracer: tp.Tracer(tracerName)}
	}
	return &c
}

// Span is one traced operation; the zero Span does nothing.
type Span struct{ s trace.Span }

// StartSpan starts the span name as a child of ctx's, with attributes given
// as key, value pairs (never a phone number, a message's text or a
// secret), and returns ctx carrying it.
func (o *Observer) StartSpan(ctx context.Context, name string, kv ...string) (context.Context, Span) {
	if o == nil {
		return ctx, Span{}
	}
	ctx, s := o.tracing.tracer.Start(ctx, name, trace.WithAttributes(attrs(ctx, kv)...))
	return ctx, Span{s: s}
}

// StartLinkedSpan starts name as the root of a trace of its own, linked to
// the span that traceparent (a W3C traceparent, as TraceParent gives)
// names: work done later for a request, such as a queued message's send,
// is traced apart from the request and points back to it. A traceparent
// that is empty or malformed gives no link.
func (o *Observer) StartLinkedSpan(ctx context.Context, name, traceparent string, kv ...string) (context.Context, Span) {
	if o == nil {
		return ctx, Span{}
	}
	opts := []trace.SpanStartOption{trace.WithNewRoot(), trace.WithSpanKind(trace.SpanKindConsumer), trace.WithAttributes(attrs(ctx, kv)...)}
	if sc := parseTraceParent(traceparent); sc.IsValid() {
		opts = append(opts, trace.WithLinks(trace.Link{SpanContext: sc}))
	}
	ctx, s := o.tracing.tracer.Start(ctx, name, opts...)
	return ctx, Span{s: s}
}

// TraceParent is the W3C traceparent of ctx's span, to store with work
// done later (StartLinkedSpan); "" when ctx carries no recorded span.
func TraceParent(ctx context.Context) string {
	sc := trace.SpanContextFromContext(ctx)
	if !sc.IsValid() || !sc.IsSampled() {
		return ""
	}
	c := propagation.MapCarrier{}
	propagation.TraceContext{}.Inject(ctx, c)
	return c.Get("traceparent")
}

func parseTraceParent(tp string) trace.SpanContext {
	if tp == "" {
		return trace.SpanContext{}
	}
	ctx := propagation.TraceContext{}.Extract(context.Background(), propagation.MapCarrier{"traceparent": tp})
	return trace.SpanContextFromContext(ctx)
}

// attrs turns key, value pairs into attributes, with the request id ctx
// carries, if any.
func attrs(ctx context.Context, kv []string) []attribute.KeyValue {
	out := make([]attribute.KeyValue, 0, len(kv)/2+1)
	if id := RequestID(ctx); id != "" {
		out = append(out, attribute.String("herald.request_id", id))
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, attribute.String(kv[i], kv[i+1]))
	}
	return out
}

// Set adds key, value pairs to the span.
func (s Span) Set(kv ...string) {
	if s.s == nil || !s.s.IsRecording() {
		return
	}
	for i := 0; i+1 < len(kv); i += 2 {
		s.s.SetAttributes(attribute.String(kv[i], kv[i+1]))
	}
}

// End ends the span with err's outcome: a domain error (an expected
// refusal) is noted by its code, anything else marks the span failed.
func (s Span) End(err error) {
	if s.s == nil {
		return
	}
	if err != nil && s.s.IsRecording() {
		var de *domain.Error
		if errors.As(err, &de) {
			s.s.SetAttributes(attribute.String("herald.code", string(de.Code)))
		} else {
			s.s.RecordError(err)
			s.s.SetStatus(codes.Error, err.Error())
		}
	}
	s.s.End()
}
