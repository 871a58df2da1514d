package httpadapter

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"runtime/debug"
	"strconv"
	"sync"
	"time"

	"github.com/scopekit/scopekit"
	"go.opentelemetry.io/otel/trace"
)

// reqInfo travels with a request so that the access log can name the route
// pattern and the account once the handler has resolved them, and the
// metrics what became of it (observe.go).
type reqInfo struct {
	id      string
	route   string
	account string
	log     *slog.Logger

	grant, tokenOutcome string // an answer of the token endpoint
	throttled           string // the limit that refused the request
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

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// withRequestLog gives every request an X-Request-Id (the client's when it
// is sane) and logs one line per request: method, route pattern, status,
// duration, request id, account and, when the request is traced, the
// trace id. Never the query, headers or body: they may hold secrets. It
// reports the request to m when m is not nil.
func withRequestLog(log *slog.Logger, m Metrics, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := r.Header.Get("X-Request-Id")
		if !saneRequestID.MatchString(id) {
			var b [12]byte
			_, _ = rand.Read(b[:])
			id = hex.EncodeToString(b[:])
		}
		info := &reqInfo{id: id, route: RouteUnmatched, log: log}
		w.Header().Set("X-Request-Id", id)
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r.WithContext(context.WithValue(r.Context(), ctxKey{}, info)))
		elapsed := time.Since(start)
		info.observe(m, r, sw.status, elapsed)
		if !log.Enabled(r.Context(), slog.LevelInfo) {
			return // spare building the line's values
		}
		if sc := trace.SpanContextFromContext(r.Context()); sc.IsValid() {
			log.Info("request", "method", r.Method, "route", info.route, "status", sw.status,
				"duration_ms", float64(elapsed.Microseconds())/1000, "request_id", id, "account", info.account,
				"trace_id", sc.TraceID().String())
			return
		}
		log.Info("request", "method", r.Method, "route", info.route, "status", sw.status,
			"duration_ms", float64(elapsed.Microseconds())/1000, "request_id", id, "account", info.account)
	})
}

// withTimeout answers 504 (a JSON:API error) when the handler has not
// started its response within d, and 500 when it panics first; either way
// the server keeps serving. The handler runs on the request's own
// goroutine (a goroutine per request cost a tenth of a small read: its
// creation, its stack growing again each time, the hand-over) with a
// context canceled at the deadline. Handlers honour the context: a store
// call after the deadline fails with it, which answers 504 too. For one
// that does not, the deadline itself sends the 504 from a timer: complete
// (with its Content-Length), flushed, and with "Connection: close", since
// the connection is not free again until the handler returns. The
// handler's headers are kept apart until it writes the status; from then
// on its writes go straight to the client (the handlers encode a whole
// document before writing, so this is the end of the request) and the
// deadline no longer interrupts it. A handler that writes after the 504
// went out is ignored.
func withTimeout(d time.Duration, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), d)
		defer cancel()
		r = r.WithContext(ctx)
		tw := &timeoutWriter{w: w, h: http.Header{}}
		fired := make(chan struct{})
		stop := context.AfterFunc(ctx, func() {
			defer close(fired)
			// canceled by net/http instead (the client went away or its
			// body missed the read deadline): the handler sees it at once
			// and gives the answer (408 for the late body)
			if errors.Is(ctx.Err(), context.DeadlineExceeded) && tw.abandon() {
				sendComplete(w, r, scopekit.Errorf(scopekit.ETIMEOUT, "the request was not answered within %s", d))
			}
		})
		defer func() {
			p := recover()
			if !stop() {
				<-fired // the deadline's answer, if any, is out before this returns
			}
			if p == nil {
				tw.finish()
				return
			}
			logger(r).Error("panic", "request_id", requestID(r), "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			if tw.abandon() { // else the response had begun; nothing sane can follow
				writeError(w, r, scopekit.Errorf(scopekit.EINTERNAL, "panic"))
			}
		}()
		next.ServeHTTP(tw, r)
	})
}

// sendComplete writes the error response with its length and flushes it,
// so that the client has all of it while the handler still runs.
func sendComplete(w http.ResponseWriter, r *http.Request, err error) {
	b := &bufferedResponse{h: w.Header()}
	writeError(b, r, err)
	w.Header().Set("Content-Length", strconv.Itoa(len(b.body)))
	w.Header().Set("Connection", "close")
	w.WriteHeader(b.code)
	_, _ = w.Write(b.body)
	_ = http.NewResponseController(w).Flush()
}

// bufferedResponse keeps a response's status and body; its headers are
// the real writer's.
type bufferedResponse struct {
	h    http.Header
	code int
	body []byte
}

func (b *bufferedResponse) Header() http.Header { return b.h }
func (b *bufferedResponse) WriteHeader(code int) {
	if b.code == 0 {
		b.code = code
	}
}
func (b *bufferedResponse) Write(p []byte) (int, error) {
	b.WriteHeader(http.StatusOK)
	b.body = append(b.body, p...)
	return len(p), nil
}

// timeoutWriter passes a handler's response through once the handler has
// written its status, and drops it if the timeout answered first.
type timeoutWriter struct {
	mu        sync.Mutex
	w         http.ResponseWriter
	h         http.Header
	committed bool
	abandoned bool
}

func (t *timeoutWriter) Header() http.Header { return t.h }

// commit copies the handler's headers out and sends the status; t.mu held.
func (t *timeoutWriter) commit(code int) {
	t.committed = true
	dst := t.w.Header()
	for k, v := range t.h {
		dst[k] = v
	}
	t.w.WriteHeader(code)
}

func (t *timeoutWriter) WriteHeader(code int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.committed && !t.abandoned {
		t.commit(code)
	}
}

func (t *timeoutWriter) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.abandoned {
		return 0, http.ErrHandlerTimeout
	}
	if !t.committed {
		t.commit(http.StatusOK)
	}
	return t.w.Write(p)
}

// SetWriteDeadline reaches the connection through
// http.ResponseController, for a handler that streams (backup.go).
func (t *timeoutWriter) SetWriteDeadline(d time.Time) error {
	return http.NewResponseController(t.w).SetWriteDeadline(d)
}

// finish commits a handler that wrote nothing (an empty 200).
func (t *timeoutWriter) finish() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.committed && !t.abandoned {
		t.commit(http.StatusOK)
	}
}

// abandon stops the handler's response from reaching the client; it
// reports false when the response has already begun or was abandoned
// before (only one answer takes the handler's place).
func (t *timeoutWriter) abandon() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.committed || t.abandoned {
		return false
	}
	t.abandoned = true
	return true
}
