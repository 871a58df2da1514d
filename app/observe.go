package app

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/scopekit/scopekit/observe"
	"github.com/scopekit/scopekit/webhook"
)

// Monitoring (docs/operations.md, "Monitoring"): the metrics, the traces
// of Config.Spans, and the probes /healthz and /readyz.

// instrument plugs the telemetry into the parts of the service (the HTTP
// adapter's metrics are set where it is made).
func (a *App) instrument() {
	a.docs.Observer = a.tel.DocumentObserver()
	a.dispatcher.Observer = a.tel.WebhookObserver()
	a.tel.DocumentQueue(a.svc.QueuedDocuments)
	a.tel.WebhookLag(func(ctx context.Context) (time.Duration, error) {
		return webhook.OutboxLag(ctx, a.db, time.Now().UTC())
	})
}

// probes makes the readiness checks: the store answers a read, the
// startup work is done and the service is not shutting down (serving),
// the document workers run.
func (a *App) probes() {
	a.serving = observe.NewFlag("the server is starting or shutting down")
	h := &observe.Health{Logger: a.cfg.Logger}
	h.Add("store", observe.StoreReachable(a.db))
	h.Add("serving", a.serving.Check)
	h.Add("documents", func(context.Context) error {
		if !a.docs.Running() {
			return errors.New("the document workers are not running")
		}
		return nil
	})
	a.health = h
}

// serveMetrics serves /metrics and the probes on the metrics listener,
// from now on: during the startup work the service is live and not ready
// (a long price refresh is not a hung server).
func (a *App) serveMetrics() {
	if a.metricsLn == nil {
		return
	}
	mux := http.NewServeMux()
	mux.Handle(observe.PathMetrics, a.tel.MetricsHandler(a.cfg.MetricsToken))
	mux.Handle(observe.PathLive, a.health.Live())
	mux.Handle(observe.PathReady, a.health.Ready())
	lim := a.cfg.Limits
	a.metricsSrv = &http.Server{Handler: mux, ReadHeaderTimeout: orDefault(lim.ReadHeaderTimeout, 10*time.Second),
		IdleTimeout: lim.IdleTimeout, MaxHeaderBytes: lim.MaxHeaderBytes}
	srv, ln := a.metricsSrv, a.metricsLn
	go func() {
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			a.cfg.Logger.Error("metrics listener failed", "err", err)
		}
	}()
	a.cfg.Logger.Info("metrics and probes", "url", "http://"+displayAddr(a.cfg.MetricsAddr, ln.Addr()))
}

// withProbes serves the probes in front of the API host's handler h, and
// /metrics too when a token guards it and it has no listener of its own:
// outside the API's access log (a probe every few seconds would fill it)
// and its reference.
func (a *App) withProbes(h http.Handler) http.Handler {
	paths := map[string]http.Handler{observe.PathLive: a.health.Live(), observe.PathReady: a.health.Ready()}
	if a.cfg.MetricsAddr == "" && a.cfg.MetricsToken != "" {
		paths[observe.PathMetrics] = a.tel.MetricsHandler(a.cfg.MetricsToken)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p, ok := paths[r.URL.Path]; ok {
			p.ServeHTTP(w, r)
			return
		}
		h.ServeHTTP(w, r)
	})
}

func orDefault(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}
