package observe

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/scopekit/scopekit/docgen"
	"github.com/scopekit/scopekit/httpadapter"
	"github.com/scopekit/scopekit/webhook"
)

// namespace prefixes every metric of ScopeKit's own.
const namespace = "scopekit"

// Buckets of the histograms, in seconds: a read answers in tens of
// microseconds, a store transaction in less, a document in seconds.
var (
	requestBuckets  = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30}
	storeBuckets    = []float64{0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5}
	documentBuckets = []float64{0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300}
)

// metrics holds the collectors; docs/operations.md ("Monitoring") lists
// them.
type metrics struct {
	reg *prometheus.Registry

	requests *prometheus.CounterVec   // method, route, status
	duration *prometheus.HistogramVec // method, route, status
	seriesMu sync.RWMutex
	series   map[requestKey]requestSeries // resolved children, so that a request looks its labels up without allocating

	tokens     *prometheus.CounterVec   // grant_type, outcome
	throttled  *prometheus.CounterVec   // limit
	generated  *prometheus.HistogramVec // type, outcome
	converted  *prometheus.HistogramVec // outcome
	restarts   *prometheus.CounterVec   // reason
	deliveries *prometheus.CounterVec   // outcome
	storeView  prometheus.Observer
	storeWrite prometheus.Observer
}

type requestKey struct {
	method, route string
	status        int
}

type requestSeries struct {
	count    prometheus.Counter
	duration prometheus.Observer
}

func newMetrics() *metrics {
	m := &metrics{reg: prometheus.NewRegistry(), series: map[requestKey]requestSeries{}}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "http_requests_total",
		Help: "HTTP requests answered, by method, route pattern and status."}, []string{"method", "route", "status"})
	m.duration = prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: namespace, Name: "http_request_duration_seconds",
		Help: "Time to answer an HTTP request, by method, route pattern and status.", Buckets: requestBuckets},
		[]string{"method", "route", "status"})
	m.tokens = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "oauth_token_requests_total",
		Help: "Answers of the token endpoint, by grant type and outcome (granted, or the OAuth error code)."},
		[]string{"grant_type", "outcome"})
	m.throttled = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "throttled_requests_total",
		Help: "Requests refused by a throttle, by limit."}, []string{"limit"})
	m.generated = prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: namespace, Name: "document_generation_duration_seconds",
		Help:    "Time from a document's claim to its stored outcome, by document type and outcome (finished or error).",
		Buckets: documentBuckets}, []string{"type", "outcome"})
	m.converted = prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: namespace, Name: "pdf_conversion_duration_seconds",
		Help: "Time of a PDF conversion, by outcome (ok, failed, timeout, unavailable).", Buckets: documentBuckets},
		[]string{"outcome"})
	m.restarts = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "pdf_listener_restarts_total",
		Help: "Restarts of the warm PDF converter's LibreOffice listeners, by reason (exited, unresponsive, timeout, canceled, recycled, start_failed)."},
		[]string{"reason"})
	m.deliveries = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "webhook_deliveries_total",
		Help: "Webhook delivery attempts, by outcome (delivered, rejected, failed, dropped)."}, []string{"outcome"})
	storeTx := prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: namespace, Name: "store_transaction_duration_seconds",
		Help: "Time of a store transaction of the use cases, by kind (view or update).", Buckets: storeBuckets}, []string{"kind"})
	m.storeView, m.storeWrite = storeTx.WithLabelValues("view"), storeTx.WithLabelValues("update")
	m.reg.MustRegister(m.requests, m.duration, m.tokens, m.throttled, m.generated, m.converted, m.restarts, m.deliveries, storeTx,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// MetricsHandler serves the metrics in Prometheus' text format; with a
// token, only to requests bearing it (401 otherwise). Without metrics it
// answers 404.
func (t *Telemetry) MetricsHandler(token string) http.Handler {
	if t.m == nil {
		return http.NotFoundHandler()
	}
	h := promhttp.HandlerFor(t.m.reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
	if token == "" {
		return h
	}
	want := sha256.Sum256([]byte("Bearer " + token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := sha256.Sum256([]byte(r.Header.Get("Authorization")))
		if subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="metrics"`)
			http.Error(w, "a bearer token is required for the metrics", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// RequestMetrics returns the HTTP adapter's metrics (httpadapter.Server's
// Metrics), nil when metrics are off.
func (t *Telemetry) RequestMetrics() httpadapter.Metrics {
	if t.m == nil {
		return nil
	}
	return requestMetrics{t.m}
}

type requestMetrics struct{ m *metrics }

// Request implements httpadapter.Metrics. The series of each method,
// route and status are looked up once; after that a request costs two
// map reads and the atomic updates.
func (r requestMetrics) Request(method, route string, status int, elapsed time.Duration) {
	k := requestKey{method, route, status}
	r.m.seriesMu.RLock()
	s, ok := r.m.series[k]
	r.m.seriesMu.RUnlock()
	if !ok {
		code := strconv.Itoa(status)
		s = requestSeries{r.m.requests.WithLabelValues(method, route, code), r.m.duration.WithLabelValues(method, route, code)}
		r.m.seriesMu.Lock()
		r.m.series[k] = s
		r.m.seriesMu.Unlock()
	}
	s.count.Inc()
	s.duration.Observe(elapsed.Seconds())
}

// Token implements httpadapter.Metrics.
func (r requestMetrics) Token(grantType, outcome string) {
	r.m.tokens.WithLabelValues(grantType, outcome).Inc()
}

// Throttled implements httpadapter.Metrics.
func (r requestMetrics) Throttled(limit string) { r.m.throttled.WithLabelValues(limit).Inc() }

// DocumentObserver returns the document pool's observer (docgen.Pool's
// Observer), nil when metrics are off.
func (t *Telemetry) DocumentObserver() docgen.Observer {
	if t.m == nil {
		return nil
	}
	return documentMetrics{t.m}
}

type documentMetrics struct{ m *metrics }

// Generated implements docgen.Observer.
func (d documentMetrics) Generated(docType string, failed bool, elapsed time.Duration) {
	outcome := "finished"
	if failed {
		outcome = "error"
	}
	d.m.generated.WithLabelValues(docType, outcome).Observe(elapsed.Seconds())
}

// Converted implements docgen.Observer.
func (d documentMetrics) Converted(outcome string, elapsed time.Duration) {
	d.m.converted.WithLabelValues(outcome).Observe(elapsed.Seconds())
}

// PDFListenerRestarts returns what counts the warm PDF converter's
// listener restarts (office.Pool's Restarted), nil when metrics
// are off.
func (t *Telemetry) PDFListenerRestarts() func(reason string) {
	if t.m == nil {
		return nil
	}
	return func(reason string) { t.m.restarts.WithLabelValues(reason).Inc() }
}

// WebhookObserver returns the webhook dispatcher's observer
// (webhook.Dispatcher's Observer), nil when metrics are off.
func (t *Telemetry) WebhookObserver() webhook.Observer {
	if t.m == nil {
		return nil
	}
	return webhookMetrics{t.m}
}

type webhookMetrics struct{ m *metrics }

// Attempted implements webhook.Observer.
func (w webhookMetrics) Attempted(outcome string) { w.m.deliveries.WithLabelValues(outcome).Inc() }

// DocumentQueue adds the gauge scopekit_document_queue_depth, read from
// depth at each scrape (scoping.Service.QueuedDocuments).
func (t *Telemetry) DocumentQueue(depth func(context.Context) (int, error)) {
	if t.m == nil {
		return
	}
	t.m.reg.MustRegister(&probeGauge{
		desc: prometheus.NewDesc(namespace+"_document_queue_depth", "Project documents queued for generation, in every account.", nil, nil),
		read: func(ctx context.Context) (float64, error) {
			n, err := depth(ctx)
			return float64(n), err
		}})
}

// WebhookLag adds the gauge scopekit_webhook_outbox_lag_seconds, read
// from lag at each scrape (webhook.OutboxLag).
func (t *Telemetry) WebhookLag(lag func(context.Context) (time.Duration, error)) {
	if t.m == nil {
		return
	}
	t.m.reg.MustRegister(&probeGauge{
		desc: prometheus.NewDesc(namespace+"_webhook_outbox_lag_seconds",
			"How long the oldest due webhook delivery has waited past its attempt time (0 when none is due).", nil, nil),
		read: func(ctx context.Context) (float64, error) {
			d, err := lag(ctx)
			return d.Seconds(), err
		}})
}

// probeTimeout bounds the store read of a gauge at a scrape.
const probeTimeout = 5 * time.Second

// probeGauge is a gauge read from the store at each scrape: the queue
// and the outbox belong to the database, which other instances share, so
// the store's answer is the truth rather than what this process saw. A
// read that fails leaves the gauge out of that scrape (absent, not 0).
type probeGauge struct {
	desc *prometheus.Desc
	read func(context.Context) (float64, error)
}

func (g *probeGauge) Describe(ch chan<- *prometheus.Desc) { ch <- g.desc }

func (g *probeGauge) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	if v, err := g.read(ctx); err == nil {
		ch <- prometheus.MustNewConstMetric(g.desc, prometheus.GaugeValue, v)
	}
}
