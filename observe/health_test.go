package observe_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/scopekit/scopekit/observe"
	"github.com/stretchr/testify/require"
)

func probe(t *testing.T, h http.Handler, method string) (int, string) {
	t.Helper()
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(method, "/", nil))
	require.Equal(t, "no-store", w.Header().Get("Cache-Control"))
	return w.Code, w.Body.String()
}

// Ensure readiness follows the store, the startup flag and the document
// workers, and liveness only the process.
func TestHealth(t *testing.T) {
	e := newEnv(t)
	serving := observe.NewFlag("starting")
	h := &observe.Health{}
	h.Add("store", observe.StoreReachable(e.db))
	h.Add("serving", serving.Check)
	h.Add("documents", func(context.Context) error {
		if !e.pool.Running() {
			return errors.New("not running")
		}
		return nil
	})

	code, body := probe(t, h.Ready(), http.MethodGet)
	require.Equal(t, http.StatusServiceUnavailable, code)
	require.Equal(t, "not ready\nstore: ok\nserving: failing\ndocuments: failing\n", body)

	serving.Set(true)
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() { defer close(stopped); _ = e.pool.Run(ctx) }()
	require.Eventually(t, e.pool.Running, 5*time.Second, 5*time.Millisecond)
	code, body = probe(t, h.Ready(), http.MethodGet)
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, "ready\nstore: ok\nserving: ok\ndocuments: ok\n", body)
	code, _ = probe(t, h.Ready(), http.MethodHead)
	require.Equal(t, http.StatusOK, code)

	cancel() // the workers stop
	<-stopped
	require.False(t, e.pool.Running())
	code, body = probe(t, h.Ready(), http.MethodGet)
	require.Equal(t, http.StatusServiceUnavailable, code)
	require.Contains(t, body, "documents: failing\n")

	require.NoError(t, e.db.Close())
	code, body = probe(t, h.Ready(), http.MethodGet)
	require.Equal(t, http.StatusServiceUnavailable, code)
	require.Contains(t, body, "store: failing\n")

	code, body = probe(t, h.Live(), http.MethodGet) // the process still answers
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, "ok\n", body)
	code, _ = probe(t, h.Live(), http.MethodPost)
	require.Equal(t, http.StatusMethodNotAllowed, code)
}

// Ensure a check that hangs cannot hold the probe past its timeout.
func TestHealthTimeout(t *testing.T) {
	h := &observe.Health{Timeout: 50 * time.Millisecond}
	h.Add("slow", func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() })
	start := time.Now()
	code, body := probe(t, h.Ready(), http.MethodGet)
	require.Equal(t, http.StatusServiceUnavailable, code)
	require.Equal(t, "not ready\nslow: failing\n", body)
	require.Less(t, time.Since(start), 2*time.Second)
}
