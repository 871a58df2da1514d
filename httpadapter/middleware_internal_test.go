package httpadapter

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// timeoutServer serves h behind the request log and the timeout, as the
// Server does.
func timeoutServer(t *testing.T, d time.Duration, h http.HandlerFunc) *httptest.Server {
	ts := httptest.NewServer(withRequestLog(slog.New(slog.NewTextHandler(io.Discard, nil)), nil, withTimeout(d, h)))
	t.Cleanup(ts.Close)
	return ts
}

// Ensure a handler that ignores its context still lets the client have a
// whole 504 at the deadline, long before the handler returns, and that
// what it writes afterwards is dropped.
func TestTimeoutWithoutTheHandlersHelp(t *testing.T) {
	release := make(chan struct{})
	returned := make(chan error, 1)
	ts := timeoutServer(t, 50*time.Millisecond, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Handler", "yes")
		<-release // ignores r.Context()
		_, err := w.Write([]byte("late"))
		returned <- err
	})
	start := time.Now()
	res, err := http.Get(ts.URL)
	require.NoError(t, err)
	body, err := io.ReadAll(res.Body) // complete although the handler still runs
	require.NoError(t, err)
	res.Body.Close()
	assert.Less(t, time.Since(start), 5*time.Second)
	assert.Equal(t, http.StatusGatewayTimeout, res.StatusCode)
	assert.Equal(t, strconv.Itoa(len(body)), res.Header.Get("Content-Length"))
	assert.Empty(t, res.Header.Get("X-Handler"), "the handler's headers stay out of the 504")
	assert.NotEmpty(t, res.Header.Get("X-Request-Id"))
	var doc struct {
		Errors []struct{ Status, Code string }
	}
	require.NoError(t, json.Unmarshal(body, &doc), "%s", body)
	require.Len(t, doc.Errors, 1)
	assert.Equal(t, "504", doc.Errors[0].Status)
	close(release)
	assert.ErrorIs(t, <-returned, http.ErrHandlerTimeout)
}

// Ensure a handler that honours its context answers the 504 itself, one
// that answers in time is untouched, and a panic before the response is a
// 500 while the server keeps serving.
func TestTimeoutInline(t *testing.T) {
	ts := timeoutServer(t, 30*time.Millisecond, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/wait":
			<-r.Context().Done()
			writeError(w, r, r.Context().Err())
		case "/panic":
			panic("boom")
		case "/empty":
		default:
			w.Header().Set("X-Handler", "yes")
			w.WriteHeader(http.StatusTeapot)
			_, _ = w.Write([]byte("ok"))
		}
	})
	get := func(path string) (*http.Response, string) {
		res, err := http.Get(ts.URL + path)
		require.NoError(t, err)
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		require.NoError(t, err)
		return res, string(b)
	}
	res, _ := get("/wait")
	assert.Equal(t, http.StatusGatewayTimeout, res.StatusCode)
	for range 2 {
		res, body := get("/panic")
		assert.Equal(t, http.StatusInternalServerError, res.StatusCode)
		assert.Contains(t, body, "Internal error")
	}
	res, body := get("/fast")
	assert.Equal(t, http.StatusTeapot, res.StatusCode)
	assert.Equal(t, "yes", res.Header.Get("X-Handler"))
	assert.Equal(t, "ok", body)
	res, body = get("/empty")
	assert.Equal(t, http.StatusOK, res.StatusCode)
	assert.Empty(t, body)
}

// Ensure a handler canceled by its client (not by the deadline) gets no
// 504 from the timeout.
func TestTimeoutClientGone(t *testing.T) {
	done := make(chan struct{})
	ts := timeoutServer(t, time.Minute, func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
		_, err := w.Write([]byte("x")) // still the handler's to answer
		assert.NoError(t, err)
		close(done)
	})
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, ts.URL, nil)
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	_, err := http.DefaultClient.Do(req)
	require.Error(t, err)
	<-done
}

// Ensure a request whose client went away is recorded as 499 and logs no
// error, while a cancellation of the server's own making (the request
// still wanted) stays an internal error that is logged.
func TestClientGoneIsNotAServerError(t *testing.T) {
	var logs strings.Builder
	log := slog.New(slog.NewTextHandler(&logs, nil))
	h := withRequestLog(log, nil, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, r, fmt.Errorf("auth: look up token: %w", context.Canceled))
	}))

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/v2/projects/1", nil).WithContext(ctx))
	assert.Equal(t, statusClientClosed, rec.Code)
	assert.Empty(t, rec.Body.String())
	assert.NotContains(t, logs.String(), "level=ERROR")
	assert.Contains(t, logs.String(), "status=499")

	logs.Reset()
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/v2/projects/1", nil))
	assert.Equal(t, http.StatusInternalServerError, rec.Code)
	assert.Contains(t, logs.String(), "level=ERROR")
}
