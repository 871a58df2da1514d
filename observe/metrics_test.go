package observe_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/scopekit/scopekit/docgen"
	"github.com/scopekit/scopekit/internal/seal"
	"github.com/scopekit/scopekit/observe"
	"github.com/scopekit/scopekit/office"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/webhook"
	"github.com/stretchr/testify/require"
)

// Ensure requests are counted and timed by route pattern (never the raw
// path), bounded method and status.
func TestRequestMetrics(t *testing.T) {
	e := newEnv(t)
	require.Equal(t, http.StatusOK, e.do(t, http.MethodGet, "/v2/projects/"+e.project).Code)
	require.Equal(t, http.StatusOK, e.do(t, http.MethodGet, "/v2/projects/"+e.project).Code)
	require.Equal(t, http.StatusNotFound, e.do(t, http.MethodGet, "/v2/projects/987654").Code)
	require.Equal(t, http.StatusNotFound, e.do(t, http.MethodGet, "/v2/no/such/route/here/at/all").Code)
	e.do(t, "BREW", "/v2/projects")

	fams := scrape(t, e.tel.MetricsHandler(""))
	require.Equal(t, 2.0, fams.Value("scopekit_http_requests_total", "method", "GET", "route", "/v2/:type/:id", "status", "200"))
	require.Equal(t, 2.0, fams.Value("scopekit_http_request_duration_seconds", "method", "GET", "route", "/v2/:type/:id", "status", "200"))
	require.Equal(t, 1.0, fams.Value("scopekit_http_requests_total", "method", "GET", "route", "/v2/:type/:id", "status", "404"))
	require.Equal(t, 1.0, fams.Value("scopekit_http_requests_total", "method", "GET", "route", "unmatched", "status", "404"))
	require.Equal(t, 1.0, fams.Value("scopekit_http_requests_total", "method", "other"))
	for _, m := range fams["scopekit_http_requests_total"].GetMetric() {
		for _, l := range m.GetLabel() {
			require.NotContains(t, l.GetValue(), e.project, "a raw path became a label")
		}
	}
	require.NotZero(t, fams.Value("scopekit_store_transaction_duration_seconds", "kind", "view"))
	require.NotZero(t, fams.Value("scopekit_store_transaction_duration_seconds", "kind", "update"))
	require.NotNil(t, fams["go_goroutines"], "the Go runtime's metrics")
	require.NotNil(t, fams["process_cpu_seconds_total"])
}

// Ensure a token guards the metrics when one is set.
func TestMetricsToken(t *testing.T) {
	tel := observe.New(observe.Config{Metrics: true})
	h := tel.MetricsHandler("s3cret")
	for _, auth := range []string{"", "Bearer wrong", "s3cret", "Basic czNjcmV0"} {
		r := httptest.NewRequest(http.MethodGet, observe.PathMetrics, nil)
		if auth != "" {
			r.Header.Set("Authorization", auth)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		require.Equal(t, http.StatusUnauthorized, w.Code, auth)
		require.Equal(t, `Bearer realm="metrics"`, w.Header().Get("WWW-Authenticate"))
		require.NotContains(t, w.Body.String(), "go_goroutines")
	}
	require.NotNil(t, scrape(t, h, "Authorization", "Bearer s3cret")["go_goroutines"])
}

// Ensure telemetry that is off plugs nothing in.
func TestTelemetryOff(t *testing.T) {
	tel := observe.New(observe.Config{})
	require.Nil(t, tel.RequestMetrics())
	require.Nil(t, tel.DocumentObserver())
	require.Nil(t, tel.WebhookObserver())
	require.Nil(t, tel.Tracer())
	require.Nil(t, tel.Registry())
	h := http.NotFoundHandler()
	require.Equal(t, fmt.Sprint(h), fmt.Sprint(tel.TraceHTTP(h)))
	w := httptest.NewRecorder()
	tel.MetricsHandler("").ServeHTTP(w, httptest.NewRequest(http.MethodGet, observe.PathMetrics, nil))
	require.Equal(t, http.StatusNotFound, w.Code)
	tel.DocumentQueue(func(context.Context) (int, error) { return 0, nil }) // nothing to register in
	require.NoError(t, tel.Shutdown(context.Background()))
}

// failingConverter fails as a conversion that ran out of time does.
type failingConverter struct{ err error }

func (c failingConverter) ToPDF(context.Context, []byte) ([]byte, error) { return nil, c.err }

// Ensure the queue depth, the generation time by type and outcome and the
// PDF conversions are measured.
func TestDocumentMetrics(t *testing.T) {
	e := newEnv(t)
	e.tel.DocumentQueue(e.svc.QueuedDocuments)
	doc := e.queue(t, scoping.DocumentPricing, "")
	fams := scrape(t, e.tel.MetricsHandler(""))
	require.Equal(t, 1.0, fams.Value("scopekit_document_queue_depth"))

	runPoolUntil(t, e, func() bool { return e.status(t, doc) == scoping.DocumentFinished })
	fams = scrape(t, e.tel.MetricsHandler(""))
	require.NotNil(t, fams.Sample("scopekit_document_queue_depth"))
	require.Equal(t, 0.0, fams.Value("scopekit_document_queue_depth"))
	require.Equal(t, 1.0, fams.Value("scopekit_document_generation_duration_seconds", "type", "pricing", "outcome", "finished"))

	e.pool.Converter = failingConverter{fmt.Errorf("PDF conversion timed out: %w", context.DeadlineExceeded)}
	tmpl := e.template(t)
	sow := e.queue(t, scoping.DocumentSOW, tmpl, `"generate-pdf":true`)
	runPoolUntil(t, e, func() bool { return e.status(t, sow) == scoping.DocumentError })
	e.pool.Converter = failingConverter{errors.New("soffice crashed")}
	sow = e.queue(t, scoping.DocumentSOW, tmpl, `"generate-pdf":true`)
	runPoolUntil(t, e, func() bool { return e.status(t, sow) == scoping.DocumentError })

	fams = scrape(t, e.tel.MetricsHandler(""))
	require.Equal(t, 2.0, fams.Value("scopekit_document_generation_duration_seconds", "type", "sow", "outcome", "error"))
	require.Equal(t, 1.0, fams.Value("scopekit_pdf_conversion_duration_seconds", "outcome", docgen.ConvertTimeout))
	restarted := e.tel.PDFListenerRestarts()
	restarted(office.RestartExited)
	restarted(office.RestartExited)
	restarted(office.RestartRecycled)
	fams = scrape(t, e.tel.MetricsHandler(""))
	require.Equal(t, 2.0, fams.Value("scopekit_pdf_listener_restarts_total", "reason", office.RestartExited))
	require.Equal(t, 1.0, fams.Value("scopekit_pdf_listener_restarts_total", "reason", office.RestartRecycled))
	require.Equal(t, 1.0, fams.Value("scopekit_pdf_conversion_duration_seconds", "outcome", docgen.ConvertFailed))
}

// Ensure the outbox lag shows a delivery left waiting, and the delivery
// outcomes are counted.
func TestWebhookMetrics(t *testing.T) {
	e := newEnv(t)
	var received atomic.Int32
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { received.Add(1) }))
	defer rc.Close()
	sealer, err := seal.New(make([]byte, 32))
	require.NoError(t, err)
	e.svc.Webhooks = scoping.WebhookConfig{CheckDestination: webhook.CheckDestination(true), Sealer: sealer}
	e.tel.WebhookLag(func(ctx context.Context) (time.Duration, error) {
		return webhook.OutboxLag(ctx, e.db, time.Now().UTC())
	})
	w := e.do(t, http.MethodPost, "/v2/webhook-subscriptions", `{"data":{"type":"webhook-subscriptions","attributes":`+
		`{"event-type":"document_status_changed","destination-url":"`+rc.URL+`/hooks"}}}`)
	require.Equal(t, http.StatusCreated, w.Code, w.Body.String())
	e.queue(t, scoping.DocumentPricing, "") // its event waits: no dispatcher runs yet
	time.Sleep(50 * time.Millisecond)
	lag := scrape(t, e.tel.MetricsHandler("")).Value("scopekit_webhook_outbox_lag_seconds")
	require.Greater(t, lag, 0.04)

	d := &webhook.Dispatcher{Store: e.db, Secrets: sealer, AllowPrivate: true, Observer: e.tel.WebhookObserver()}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = d.Run(ctx) }()
	defer func() { cancel(); <-done }()
	require.Eventually(t, func() bool {
		fams := scrape(t, e.tel.MetricsHandler(""))
		return fams.Value("scopekit_webhook_deliveries_total", "outcome", "delivered") == 1 &&
			fams.Sample("scopekit_webhook_outbox_lag_seconds") != nil && fams.Value("scopekit_webhook_outbox_lag_seconds") == 0
	}, 10*time.Second, 20*time.Millisecond)
	require.Equal(t, int32(1), received.Load())
}
