package httpadapter

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"runtime/debug"
	"sync"
	"time"

	"github.com/scopekit/scopekit"
)

// reqInfo travels with a request so that the access log can name the route
// pattern and the account once the handler has resolved them.
type reqInfo struct {
	id      string
	route   string
	account string
	log     *slog.Logger
}

type ctxKey struct{}

func infoOf(r *http.Request) *reqInfo {
	i, _ := r.Context().Value(ctxKey{}).(*reqInfo)
	return i
}

func requestID(r *http.Request) string {
	if i := infoOf(r); i != nil {
		return i.id
	}
	return ""
}

var saneRequestID = regexp.MustCompile(`^[A-Za-z0-9._\-]{1,128}$`)

// statusWriter records the status for the access log.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// withRequestLog gives every request an X-Request-Id (the client's when it
// is sane) and logs one line per request: method, route pattern, status,
// duration, request id and account. Never the query, headers or body:
// they may hold secrets.
func withRequestLog(log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := r.Header.Get("X-Request-Id")
		if !saneRequestID.MatchString(id) {
			var b [12]byte
			_, _ = rand.Read(b[:])
			id = hex.EncodeToString(b[:])
		}
		info := &reqInfo{id: id, route: "unmatched", log: log}
		w.Header().Set("X-Request-Id", id)
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r.WithContext(context.WithValue(r.Context(), ctxKey{}, info)))
		log.Info("request", "method", r.Method, "route", info.route, "status", sw.status,
			"duration_ms", float64(time.Since(start).Microseconds())/1000, "request_id", id, "account", info.account)
	})
}

// withTimeout answers 504 (a JSON:API error) when the handler has not
// answered within d, and 500 when it panics; either way the server keeps
// serving. The handler runs with a context that is canceled at the
// deadline, and writes to a buffer that is copied out only if it finished
// in time.
func withTimeout(d time.Duration, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), d)
		defer cancel()
		r = r.WithContext(ctx)
		tw := &bufferedWriter{h: http.Header{}}
		done := make(chan struct{})
		panicked := make(chan any, 1)
		go func() {
			defer func() {
				if p := recover(); p != nil {
					logger(r).Error("panic", "request_id", requestID(r), "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
					panicked <- p
				}
			}()
			next.ServeHTTP(tw, r)
			close(done)
		}()
		select {
		case <-done:
			tw.mu.Lock()
			defer tw.mu.Unlock()
			for k, v := range tw.h {
				w.Header()[k] = v
			}
			if tw.status == 0 {
				tw.status = http.StatusOK
			}
			w.WriteHeader(tw.status)
			_, _ = w.Write(tw.buf.Bytes())
		case <-panicked:
			writeError(w, r, scopekit.Errorf(scopekit.EINTERNAL, "panic"))
		case <-ctx.Done():
			tw.mu.Lock()
			defer tw.mu.Unlock()
			tw.timedOut = true
			writeError(w, r, scopekit.Errorf(scopekit.ETIMEOUT, "the request was not answered within %s", d))
		}
	})
}

// bufferedWriter holds a response until the handler is done.
type bufferedWriter struct {
	mu       sync.Mutex
	h        http.Header
	buf      bytes.Buffer
	status   int
	timedOut bool
}

func (t *bufferedWriter) Header() http.Header { return t.h }

func (t *bufferedWriter) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.timedOut {
		return 0, http.ErrHandlerTimeout
	}
	if t.status == 0 {
		t.status = http.StatusOK
	}
	return t.buf.Write(p)
}

func (t *bufferedWriter) WriteHeader(code int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.timedOut || t.status != 0 {
		return
	}
	t.status = code
}
