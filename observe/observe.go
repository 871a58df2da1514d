// Package observe is what operations watch of a running server: the
// Prometheus metrics (metrics.go), the OpenTelemetry traces (trace.go)
// and the health probes (health.go). It owns the metric registry and the
// tracer provider and implements the small observer interfaces the other
// packages declare (httpadapter.Metrics, docgen.Observer,
// webhook.Observer, scoping.Tracer); the composition root plugs them in.
// Whatever is off costs nothing: without metrics no series is kept,
// without an exporter no span is made.
package observe

import (
	"context"
	"errors"

	"github.com/prometheus/client_golang/prometheus"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// The paths of the probes and the metrics, where a server mounts them.
const (
	PathLive    = "/healthz"
	PathReady   = "/readyz"
	PathMetrics = "/metrics"
)

// probePaths are not traced.
var probePaths = map[string]bool{PathLive: true, PathReady: true, PathMetrics: true}

// Config chooses what a Telemetry does.
type Config struct {
	// Metrics keeps the Prometheus metrics (served by MetricsHandler).
	Metrics bool
	// Spans receives the finished spans (OTLP, or an in-memory exporter
	// in tests); nil turns tracing off.
	Spans sdktrace.SpanExporter
	// ServiceName names the traced service; default "scopekit".
	ServiceName string
}

// Telemetry is a server's metrics and traces. Its methods return what the
// composition root plugs into the library: nil, or the store unchanged,
// for what is off.
type Telemetry struct {
	m      *metrics                 // nil: metrics off
	tp     *sdktrace.TracerProvider // nil: tracing off
	tracer trace.Tracer             // of tp
}

// New returns the telemetry cfg asks for.
func New(cfg Config) *Telemetry {
	t := &Telemetry{}
	if cfg.Metrics {
		t.m = newMetrics()
	}
	if cfg.Spans != nil {
		t.tp, t.tracer = newTracerProvider(cfg)
	}
	return t
}

// Registry is the Prometheus registry of the metrics (nil when they are
// off): a program may register its own collectors there.
func (t *Telemetry) Registry() *prometheus.Registry {
	if t.m == nil {
		return nil
	}
	return t.m.reg
}

// Flush exports the spans ended so far.
func (t *Telemetry) Flush(ctx context.Context) error {
	if t.tp == nil {
		return nil
	}
	return t.tp.ForceFlush(ctx)
}

// Shutdown exports the spans not exported yet and stops tracing; call it
// once the servers have stopped.
func (t *Telemetry) Shutdown(ctx context.Context) error {
	if t.tp == nil {
		return nil
	}
	return errors.Join(t.tp.ForceFlush(ctx), t.tp.Shutdown(ctx))
}
