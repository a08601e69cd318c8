package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/fx"
)

// tracing sets up OpenTelemetry's SDK from the standard OTEL_* variables
// (decision 0023). Tracing is off unless OTEL_TRACES_EXPORTER names an
// exporter: "otlp" (OTLP over HTTP/protobuf, to OTEL_EXPORTER_OTLP_ENDPOINT
// or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, with their headers, timeout,
// compression and TLS settings, all read by the exporter) or "console"
// (spans as JSON on standard error, for a look without a collector).
// OTEL_SDK_DISABLED=true turns it off; OTEL_SERVICE_NAME and
// OTEL_RESOURCE_ATTRIBUTES name the service (herald by default);
// OTEL_TRACES_SAMPLER(_ARG) and OTEL_BSP_* are the SDK's own. The gRPC
// protocol is not built in: a collector takes OTLP over HTTP on 4318.
func tracing(getenv func(string) string, stderr io.Writer) (fx.Option, error) {
	exporter := strings.ToLower(strings.TrimSpace(getenv("OTEL_TRACES_EXPORTER")))
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") || exporter == "" || exporter == "none" {
		return fx.Options(), nil
	}
	var newExporter func(context.Context) (sdktrace.SpanExporter, error)
	switch exporter {
	case "otlp":
		protocol := strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"))
		if protocol == "" {
			protocol = strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_PROTOCOL"))
		}
		if protocol != "" && protocol != "http/protobuf" {
			return nil, usagef("OTEL_EXPORTER_OTLP_PROTOCOL %q: Herald exports OTLP over HTTP only; set http/protobuf (a collector listens for it on port 4318)", protocol)
		}
		newExporter = func(ctx context.Context) (sdktrace.SpanExporter, error) { return otlptracehttp.New(ctx) }
	case "console":
		newExporter = func(context.Context) (sdktrace.SpanExporter, error) {
			return stdouttrace.New(stdouttrace.WithWriter(stderr))
		}
	default:
		return nil, usagef("OTEL_TRACES_EXPORTER %q: want otlp, console or none", exporter)
	}
	return fx.Provide(func(lc fx.Lifecycle) (trace.TracerProvider, error) {
		exp, err := newExporter(context.Background())
		if err != nil {
			return nil, fmt.Errorf("OpenTelemetry exporter %s: %w", exporter, err)
		}
		res, err := resource.New(context.Background(),
			resource.WithAttributes(attribute.String("service.name", "herald"), attribute.String("service.version", readBuildInfo().Version)),
			resource.WithTelemetrySDK(), resource.WithFromEnv())
		if err != nil {
			return nil, fmt.Errorf("OpenTelemetry resource: %w", err)
		}
		tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
		lc.Append(fx.StopHook(tp.Shutdown)) // flushes the spans still batched
		return tp, nil
	}), nil
}
