package httpapi

import (
	"net/http"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/heraldhq/herald/ports"
)

// telemetry counts and traces requests (decision 0023): each request is a
// server span, named by its method and route pattern once routed, that
// continues the caller's trace when it sends a W3C traceparent, and
// counts in the request metrics by route pattern and status.
type telemetry struct {
	metrics ports.Metrics
	tracer  trace.Tracer
	tracing bool
}

func newTelemetry(m ports.Metrics, tp trace.TracerProvider) telemetry {
	t := telemetry{metrics: m, tracing: tp != nil}
	if m == nil {
		t.metrics = ports.NoMetrics{}
	}
	if tp == nil {
		tp = noop.NewTracerProvider()
	}
	t.tracer = tp.Tracer("github.com/heraldhq/herald/adapters/httpapi")
	return t
}

// startServerSpan starts r's span, with the caller's trace as parent when
// r carries one, and returns r with it in its context.
func (t telemetry) startServerSpan(r *http.Request, requestID string) (*http.Request, trace.Span) {
	if !t.tracing {
		return r, nil
	}
	ctx := propagation.TraceContext{}.Extract(r.Context(), propagation.HeaderCarrier(r.Header))
	ctx, span := t.tracer.Start(ctx, r.Method, trace.WithSpanKind(trace.SpanKindServer),
		trace.WithAttributes(attribute.String("http.request.method", r.Method), attribute.String("herald.request_id", requestID)))
	return r.WithContext(ctx), span
}

// done counts r, answered with status after d, and ends its span, named
// after the route pattern that matched (r.Pattern, set by the mux).
func (t telemetry) done(r *http.Request, span trace.Span, status int, d time.Duration) {
	t.metrics.HTTPRequest(r.Pattern, r.Method, status, d)
	if span == nil {
		return
	}
	if r.Pattern != "" {
		span.SetName(r.Pattern)
		span.SetAttributes(attribute.String("http.route", r.Pattern))
	}
	span.SetAttributes(attribute.Int("http.response.status_code", status))
	if status >= 500 {
		span.SetStatus(codes.Error, strconv.Itoa(status))
	}
	span.End()
}
