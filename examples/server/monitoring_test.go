package main

import (
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/scopekit/scopekit/observe/observetest"
	"github.com/stretchr/testify/require"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// get GETs u with the headers (name, value pairs) and returns the status
// and body.
func get(t *testing.T, u string, header ...string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, u, nil)
	require.NoError(t, err)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res.StatusCode, string(b)
}

// tokenStatus asks the token endpoint for a client_credentials token and
// returns the status.
func tokenStatus(t *testing.T, base, clientID, secret string) int {
	t.Helper()
	res, err := http.PostForm(base+"/oauth/token", url.Values{
		"grant_type": {"client_credentials"}, "client_id": {clientID}, "client_secret": {secret}})
	require.NoError(t, err)
	res.Body.Close()
	return res.StatusCode
}

// Ensure the metrics listener serves what the server did, parsed as
// Prometheus parses it: requests by route pattern and status, token
// grants and refusals, throttling, a generated document, a delivered
// webhook, store transactions and the Go runtime; and the probes answer
// on both listeners.
func TestMonitoring(t *testing.T) {
	var received atomic.Int32
	rc := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { received.Add(1) }))
	defer rc.Close()
	maddr := freeAddr(t)
	s := startServer(t, "", nil, "-metrics-addr", maddr, "-webhook-allow-private", "-token-burst", "4", "-token-rate", "0.01")
	metrics := "http://" + maddr
	require.Contains(t, s.Stdout.String(), "Metrics: "+metrics+"/metrics")

	for _, u := range []string{s.URL, metrics} {
		code, body := get(t, u+"/healthz")
		require.Equal(t, http.StatusOK, code)
		require.Equal(t, "ok\n", body)
		// ready once the document workers run (they re-queue expired
		// leases first): a probe is polled, so it may take a moment
		require.Eventually(t, func() bool { code, body = get(t, u+"/readyz"); return code == http.StatusOK }, 10*time.Second, 20*time.Millisecond, body)
		require.Equal(t, "ready\nstore: ok\nserving: ok\ndocuments: ok\n", body)
	}
	code, _ := get(t, s.URL+"/metrics")
	require.Equal(t, http.StatusNotFound, code, "never on the API listener without a token")

	tok := token(t, s.URL, demoBotClientID, demoBotSecret) // granted (1 of the bucket's 4)
	require.Equal(t, http.StatusUnauthorized, tokenStatus(t, s.URL, demoBotClientID, "wrong"))
	throttled := false
	for range 5 {
		throttled = throttled || tokenStatus(t, s.URL, demoBotClientID, demoBotSecret) == http.StatusTooManyRequests
	}
	require.True(t, throttled)

	_, projects := getDoc(t, s.URL+"/v2/projects", tok)
	pid := projects["data"].([]any)[0].(map[string]any)["id"].(string)
	st, _ := getDoc(t, s.URL+"/v2/projects/"+pid, tok)
	require.Equal(t, http.StatusOK, st)
	st, _ = getDoc(t, s.URL+"/v2/projects/987654", tok)
	require.Equal(t, http.StatusNotFound, st)

	st, sub := call(t, http.MethodPost, s.URL+"/v2/webhook-subscriptions", tok,
		`{"data":{"type":"webhook-subscriptions","attributes":{"event-type":"document_status_changed","destination-url":"`+rc.URL+`/hooks"}}}`)
	require.Equal(t, http.StatusCreated, st, "%v", sub)
	st, doc := call(t, http.MethodPost, s.URL+"/v2/project-documents", tok, fmt.Sprintf(`{"data":{"type":"project-documents",
		"attributes":{"document-type":"pricing"},"relationships":{"project":{"data":{"type":"projects","id":%q}}}}}`, pid))
	require.Equal(t, http.StatusAccepted, st, "%v", doc)
	docID := doc["data"].(map[string]any)["id"].(string)
	require.Eventually(t, func() bool {
		_, d := getDoc(t, s.URL+"/v2/project-documents/"+docID, tok)
		return d["data"].(map[string]any)["attributes"].(map[string]any)["status"] == "finished" && received.Load() >= 3
	}, 20*time.Second, 50*time.Millisecond, "the document is generated and its three events delivered")

	var fams observetest.Families
	require.Eventually(t, func() bool { // the last delivery's outcome is counted once its attempt returns
		code, body := get(t, metrics+"/metrics")
		require.Equal(t, http.StatusOK, code)
		fams = observetest.Parse(t, []byte(body))
		return fams.Value("scopekit_webhook_deliveries_total", "outcome", "delivered") == 3
	}, 5*time.Second, 20*time.Millisecond)
	for _, want := range []struct {
		name   string
		labels []string
		min    float64
	}{
		{"scopekit_http_requests_total", []string{"method", "GET", "route", "/v2/:type/:id", "status", "200"}, 1},
		{"scopekit_http_request_duration_seconds", []string{"method", "GET", "route", "/v2/:type/:id", "status", "200"}, 1},
		{"scopekit_http_requests_total", []string{"method", "GET", "route", "/v2/:type/:id", "status", "404"}, 1},
		{"scopekit_http_requests_total", []string{"method", "POST", "route", "/oauth/token", "status", "429"}, 1},
		{"scopekit_http_requests_total", []string{"method", "POST", "route", "/v2/:type", "status", "202"}, 1},
		{"scopekit_oauth_token_requests_total", []string{"grant_type", "client_credentials", "outcome", "granted"}, 2},
		{"scopekit_oauth_token_requests_total", []string{"grant_type", "client_credentials", "outcome", "invalid_client"}, 1},
		{"scopekit_throttled_requests_total", []string{"limit", "auth-ip"}, 1},
		{"scopekit_document_generation_duration_seconds", []string{"type", "pricing", "outcome", "finished"}, 1},
		{"scopekit_webhook_deliveries_total", []string{"outcome", "delivered"}, 3},
		{"scopekit_store_transaction_duration_seconds", []string{"kind", "view"}, 1},
		{"scopekit_store_transaction_duration_seconds", []string{"kind", "update"}, 1},
		{"go_goroutines", nil, 1},
	} {
		require.GreaterOrEqual(t, fams.Value(want.name, want.labels...), want.min, "%s %v", want.name, want.labels)
	}
	for _, gauge := range []string{"scopekit_document_queue_depth", "scopekit_webhook_outbox_lag_seconds"} {
		require.NotNil(t, fams.Sample(gauge), gauge)
	}
	require.Equal(t, 0.0, fams.Value("scopekit_document_queue_depth"))
	for _, m := range fams["scopekit_http_requests_total"].GetMetric() {
		for _, l := range m.GetLabel() {
			require.NotContains(t, l.GetValue(), "987654", "a raw path became a label")
		}
	}
}

// Ensure -metrics-token without -metrics-addr serves /metrics on the API
// listener, to the bearer of the token only.
func TestMetricsOnTheAPIListenerBehindAToken(t *testing.T) {
	s := startServer(t, "", env("SCOPEKIT_METRICS_TOKEN=m3trics"))
	code, body := get(t, s.URL+"/metrics")
	require.Equal(t, http.StatusUnauthorized, code, body)
	code, _ = get(t, s.URL+"/metrics", "Authorization", "Bearer nope")
	require.Equal(t, http.StatusUnauthorized, code)
	code, body = get(t, s.URL+"/metrics", "Authorization", "Bearer m3trics")
	require.Equal(t, http.StatusOK, code)
	require.NotNil(t, observetest.Parse(t, []byte(body)).Sample("go_goroutines"))
	require.NotContains(t, s.Stdout.String(), "Metrics:")
	require.NotContains(t, s.Stderr.String(), "route=/metrics", "the probes and metrics stay out of the access log")
}

// Ensure the monitoring flags are checked like the others and read from
// the environment.
func TestMonitoringFlags(t *testing.T) {
	c, err := parseConfig(nil, env("SCOPEKIT_METRICS_ADDR=127.0.0.1:9090", "SCOPEKIT_METRICS_TOKEN=t",
		"SCOPEKIT_OTLP_ENDPOINT=http://collector:4318"))
	require.NoError(t, err)
	require.Equal(t, []string{"127.0.0.1:9090", "t", "http://collector:4318"}, []string{c.MetricsAddr, c.MetricsToken, c.OTLPEndpoint})
	for _, tc := range []struct{ arg, want string }{
		{"-metrics-addr=9090", `invalid value "9090" for -metrics-addr: must be host:port, e.g. 127.0.0.1:8080`},
		{"-otlp-endpoint=collector:4318", `invalid value "collector:4318" for -otlp-endpoint: must be an http or https URL such as http://127.0.0.1:4318`},
	} {
		_, err := parseConfig([]string{tc.arg}, env())
		require.EqualError(t, err, tc.want, tc.arg)
	}
	r := runMain(t, 30*time.Second, nil, "-metrics-addr", "nowhere")
	require.Equal(t, 1, r.Code)
	require.Equal(t, `scopekit: invalid value "nowhere" for -metrics-addr: must be host:port, e.g. 127.0.0.1:8080`, strings.TrimSpace(r.Stderr))
}

// Ensure -otlp-endpoint sends the spans to an OTLP/HTTP collector: a
// request's span named after its route with the store transactions in its
// trace, flushed at the latest when the server stops; the access log
// names the trace.
func TestTracesToAnOTLPCollector(t *testing.T) {
	var mu sync.Mutex
	var spans []*tracepb.Span
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var req coltracepb.ExportTraceServiceRequest
		if r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" || proto.Unmarshal(b, &req) != nil {
			http.Error(w, "not an OTLP/HTTP export", http.StatusBadRequest)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		for _, rs := range req.GetResourceSpans() {
			for _, ss := range rs.GetScopeSpans() {
				spans = append(spans, ss.GetSpans()...)
			}
		}
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer collector.Close()
	s := startServer(t, "", nil, "-otlp-endpoint", collector.URL)
	tok := token(t, s.URL, demoBotClientID, demoBotSecret)
	st, _ := getDoc(t, s.URL+"/v2/projects", tok)
	require.Equal(t, http.StatusOK, st)
	s.stop(t)

	mu.Lock()
	defer mu.Unlock()
	var list *tracepb.Span
	for _, sp := range spans {
		if sp.GetName() == "GET /v2/:type" {
			list = sp
		}
	}
	require.NotNil(t, list, "the request's span, named after its route")
	inTrace := 0
	for _, sp := range spans {
		if sp.GetName() == "store.view" && string(sp.GetTraceId()) == string(list.GetTraceId()) {
			inTrace++
		}
	}
	require.Positive(t, inTrace, "the store transactions are in the request's trace")
	require.Contains(t, s.Stderr.String(), "trace_id="+hex.EncodeToString(list.GetTraceId()))
}
