package main

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/scopekit/scopekit/docgen"
	"github.com/scopekit/scopekit/observe"
	"github.com/scopekit/scopekit/webhook"
	"go.opentelemetry.io/otel"
)

// Monitoring (docs/operations.md, "Monitoring"): the metrics of
// -metrics-addr or -metrics-token, the traces of -otlp-endpoint, and the
// probes /healthz and /readyz.

// newTelemetry makes the metrics and traces the flags ask for; both are
// off by default. OpenTelemetry's own failures (a collector that does not
// answer) go to the log.
func newTelemetry(ctx context.Context, cfg *config, logger *slog.Logger) (*observe.Telemetry, error) {
	oc := observe.Config{Metrics: cfg.MetricsAddr != "" || cfg.MetricsToken != ""}
	if cfg.OTLPEndpoint != "" {
		otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) { logger.Warn("tracing", "err", err) }))
		exp, err := observe.OTLP(ctx, cfg.OTLPEndpoint)
		if err != nil {
			return nil, err
		}
		oc.Spans = exp
	}
	return observe.New(oc), nil
}

// newProbes returns the server's readiness checks: the store answers a
// read, the startup work is done (schema migrations run when the store
// opens; then stored prices, bootstrap, built-in templates) and the
// server is not shutting down (serving), the document workers run.
func newProbes(db store, docs *docgen.Pool, serving *observe.Flag, logger *slog.Logger) *observe.Health {
	h := &observe.Health{Logger: logger}
	h.Add("store", observe.StoreReachable(db))
	h.Add("serving", serving.Check)
	h.Add("documents", func(context.Context) error {
		if !docs.Running() {
			return errors.New("the document workers are not running")
		}
		return nil
	})
	return h
}

// instrument plugs the telemetry into the parts of the server.
// (The HTTP adapter's metrics are set where it is made.)
func instrument(tel *observe.Telemetry, db store, docs *docgen.Pool, dispatcher *webhook.Dispatcher,
	queued func(context.Context) (int, error)) {
	docs.Observer = tel.DocumentObserver()
	dispatcher.Observer = tel.WebhookObserver()
	tel.DocumentQueue(queued)
	tel.WebhookLag(func(ctx context.Context) (time.Duration, error) {
		return webhook.OutboxLag(ctx, db, time.Now().UTC())
	})
}

// withProbes serves the probes in front of the API host's handler h, and
// /metrics too when a token guards it and it has no listener of its own:
// outside the API's access log (a probe every few seconds would fill it)
// and its reference.
func withProbes(h http.Handler, tel *observe.Telemetry, health *observe.Health, cfg *config) http.Handler {
	paths := map[string]http.Handler{observe.PathLive: health.Live(), observe.PathReady: health.Ready()}
	if cfg.MetricsAddr == "" && cfg.MetricsToken != "" {
		paths[observe.PathMetrics] = tel.MetricsHandler(cfg.MetricsToken)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p, ok := paths[r.URL.Path]; ok {
			p.ServeHTTP(w, r)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// metricsServer serves /metrics and the probes on the -metrics-addr
// listener.
func metricsServer(tel *observe.Telemetry, health *observe.Health, cfg *config) *http.Server {
	mux := http.NewServeMux()
	mux.Handle(observe.PathMetrics, tel.MetricsHandler(cfg.MetricsToken))
	mux.Handle(observe.PathLive, health.Live())
	mux.Handle(observe.PathReady, health.Ready())
	return &http.Server{Handler: mux, ReadHeaderTimeout: cfg.Limits.ReadHeaderTimeout, IdleTimeout: cfg.Limits.IdleTimeout,
		MaxHeaderBytes: cfg.Limits.MaxHeaderBytes}
}
