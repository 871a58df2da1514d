package observe

import (
	"context"
	"fmt"
	"net/http"
	"net/url"

	"github.com/scopekit/scopekit/scoping"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// instrumentation names the tracer of ScopeKit's spans.
const instrumentation = "github.com/scopekit/scopekit"

func newTracerProvider(cfg Config) (*sdktrace.TracerProvider, trace.Tracer) {
	name := cfg.ServiceName
	if name == "" {
		name = "scopekit"
	}
	// OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES, when set, win
	res, err := resource.New(context.Background(), resource.WithAttributes(attribute.String("service.name", name)),
		resource.WithFromEnv(), resource.WithTelemetrySDK())
	if err != nil { // a malformed variable: what could be read is kept
		otel.Handle(err)
	}
	if res == nil {
		res = resource.NewSchemaless(attribute.String("service.name", name))
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(cfg.Spans), sdktrace.WithResource(res))
	return tp, tp.Tracer(instrumentation)
}

// OTLP returns an exporter sending spans to an OpenTelemetry collector
// over OTLP/HTTP. endpoint is the collector's URL (http://collector:4318);
// without a path the spans go to its /v1/traces. The OTEL_EXPORTER_OTLP_*
// environment variables (headers, timeout, compression) apply as the
// OpenTelemetry specification says.
func OTLP(ctx context.Context, endpoint string) (sdktrace.SpanExporter, error) {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("OTLP endpoint %q: must be an http or https URL such as http://127.0.0.1:4318", endpoint)
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/v1/traces"
	}
	return otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(u.String()))
}

// TraceHTTP wraps an HTTP handler so that every request is a span (the
// caller's W3C traceparent, when sent, is its parent). The HTTP adapter
// names the span after the route pattern the request matched and writes
// its trace id in the access log. The probes and the metrics are not
// traced. Without tracing it returns h.
func (t *Telemetry) TraceHTTP(h http.Handler) http.Handler {
	if t.tp == nil {
		return h
	}
	return otelhttp.NewHandler(h, "http.server",
		otelhttp.WithTracerProvider(t.tp),
		otelhttp.WithMeterProvider(noop.NewMeterProvider()), // the metrics are Prometheus'
		otelhttp.WithPropagators(propagation.TraceContext{}),
		otelhttp.WithFilter(func(r *http.Request) bool { return !probePaths[r.URL.Path] }),
		otelhttp.WithSpanNameFormatter(func(_ string, r *http.Request) string { return r.Method }))
}

// Tracer returns the tracer of the domain's steps (scoping.Service's
// Tracer, which docgen's jobs use too), nil without tracing.
func (t *Telemetry) Tracer() scoping.Tracer {
	if t.tracer == nil {
		return nil
	}
	return stepTracer{t.tracer}
}

type stepTracer struct{ t trace.Tracer }

// Start implements scoping.Tracer.
func (s stepTracer) Start(ctx context.Context, name string, kv ...string) (context.Context, func(error)) {
	var opts []trace.SpanStartOption
	if len(kv) > 1 {
		attrs := make([]attribute.KeyValue, 0, len(kv)/2)
		for i := 0; i+1 < len(kv); i += 2 {
			attrs = append(attrs, attribute.String(kv[i], kv[i+1]))
		}
		opts = append(opts, trace.WithAttributes(attrs...))
	}
	ctx, span := s.t.Start(ctx, name, opts...)
	return ctx, func(err error) {
		markError(span, err)
		span.End()
	}
}

// markError marks a span failed with err (nothing when err is nil).
func markError(span trace.Span, err error) {
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
}
