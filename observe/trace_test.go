package observe_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// spanNamed returns the spans of the exporter named name.
func spansNamed(spans tracetest.SpanStubs, name string) tracetest.SpanStubs {
	var out tracetest.SpanStubs
	for _, s := range spans {
		if s.Name == name {
			out = append(out, s)
		}
	}
	return out
}

// descendsFrom reports whether s is below the span id in spans.
func descendsFrom(spans tracetest.SpanStubs, s tracetest.SpanStub, id trace.SpanID) bool {
	byID := map[trace.SpanID]tracetest.SpanStub{}
	for _, x := range spans {
		byID[x.SpanContext.SpanID()] = x
	}
	for p := s.Parent.SpanID(); p.IsValid(); {
		if p == id {
			return true
		}
		parent, ok := byID[p]
		if !ok {
			return false
		}
		p = parent.Parent.SpanID()
	}
	return false
}

func attr(s tracetest.SpanStub, key string) string {
	for _, kv := range s.Attributes {
		if kv.Key == attribute.Key(key) {
			return kv.Value.Emit()
		}
	}
	return ""
}

// Ensure a request is one trace: its span is named after the route
// pattern, the store transactions and the pricing are its children, and
// the access log line carries its trace id.
func TestRequestTrace(t *testing.T) {
	e := newEnv(t)
	e.resetSpans(t)
	w := e.do(t, http.MethodGet, "/acme/v1/projects/"+e.project+"/pricing")
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	require.NoError(t, e.tel.Flush(context.Background()))
	spans := e.spans.GetSpans()

	reqs := spansNamed(spans, "GET /:slug/v1/:type/:id/:rel")
	require.Len(t, reqs, 1, "the span is named after the route pattern, not the path")
	req := reqs[0]
	require.Equal(t, "/:slug/v1/:type/:id/:rel", attr(req, "http.route"))
	require.Equal(t, trace.SpanKindServer, req.SpanKind)
	id := req.SpanContext.SpanID()

	views := spansNamed(spans, "store.view")
	require.NotEmpty(t, views)
	for _, v := range views {
		require.True(t, descendsFrom(spans, v, id), "store.view outside the request")
	}
	pricing := spansNamed(spans, "pricing")
	require.Len(t, pricing, 1)
	require.True(t, descendsFrom(spans, pricing[0], id))

	require.Contains(t, e.log.String(), "trace_id="+req.SpanContext.TraceID().String())
	require.Contains(t, e.log.String(), "route=/:slug/v1/:type/:id/:rel")
}

// Ensure a caller's traceparent makes the request part of its trace.
func TestRequestTraceJoinsTheCallersTrace(t *testing.T) {
	e := newEnv(t)
	e.resetSpans(t)
	const parent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	r := newRequest(t, e, http.MethodGet, "/v2/projects/"+e.project)
	r.Header.Set("traceparent", parent)
	w := serve(e, r)
	require.Equal(t, http.StatusOK, w.Code)
	require.NoError(t, e.tel.Flush(context.Background()))
	reqs := spansNamed(e.spans.GetSpans(), "GET /v2/:type/:id")
	require.Len(t, reqs, 1)
	require.Equal(t, "0af7651916cd43dd8448eb211c80319c", reqs[0].SpanContext.TraceID().String())
	require.Equal(t, "b7ad6b7169203331", reqs[0].Parent.SpanID().String())
}

// Ensure a document job is one trace: snapshot (with its pricing, read in
// the write that takes the version the document is made from), merge
// data, rendering and PDF conversion under the job's span.
func TestDocumentJobTrace(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	tmpl := e.template(t)
	e.resetSpans(t)
	e.pool.Converter = pdfConverter{}
	doc := e.queue(t, scoping.DocumentSOW, tmpl, `"generate-pdf":true`)
	runPoolUntil(t, e, func() bool { return e.status(t, doc) == scoping.DocumentFinished })
	require.NoError(t, e.tel.Flush(ctx))
	spans := e.spans.GetSpans()

	jobs := spansNamed(spans, "docgen.generate")
	require.Len(t, jobs, 1)
	job := jobs[0]
	require.Equal(t, doc, attr(job, "document.id"))
	require.Equal(t, scoping.DocumentSOW, attr(job, "document.type"))
	for _, name := range []string{"docgen.snapshot", "pricing", "mergedata.build", "documents.render", "documents.pdf", "versions.take", "store.update"} {
		got := spansNamed(spans, name)
		require.NotEmpty(t, got, name)
		found := false
		for _, s := range got {
			found = found || descendsFrom(spans, s, job.SpanContext.SpanID())
		}
		require.True(t, found, "%s is not part of the job's trace", name)
	}
}

// pdfConverter makes a PDF of anything.
type pdfConverter struct{}

func (pdfConverter) ToPDF(context.Context, []byte) ([]byte, error) { return []byte("%PDF-1.7"), nil }

// resetSpans forgets the spans ended so far (the fixture's).
func (e *env) resetSpans(t *testing.T) {
	require.NoError(t, e.tel.Flush(context.Background()))
	e.spans.Reset()
}

// runPoolUntil runs the document workers until done holds (at most 20 s).
func runPoolUntil(t *testing.T, e *env, done func() bool) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		_ = e.pool.Run(ctx)
	}()
	defer func() { cancel(); <-stopped }()
	require.Eventually(t, done, 20*time.Second, 20*time.Millisecond)
}
