package httpadapter

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/jsonapi"
)

// Limits bound what one client can hold of a server (docs/limits.md). The
// zero value of each field is its default.
type Limits struct {
	// ReadHeaderTimeout bounds reading the request line and headers;
	// after it the connection is closed without an answer. Default 10 s.
	ReadHeaderTimeout time.Duration
	// BodyTimeout bounds reading a request body, from the end of the
	// headers to its last byte; after it the request answers 408 and the
	// connection is closed. Default 20 s (below the 30 s request timeout,
	// so that a slow body is a 408, not a 504).
	BodyTimeout time.Duration
	// IdleTimeout bounds a keep-alive connection between requests.
	// Default 2 min.
	IdleTimeout time.Duration
	// MaxHeaderBytes bounds the request line and headers (net/http allows
	// 4 KiB more); above it the answer is 431. Default 64 KiB.
	MaxHeaderBytes int
}

// Default limits.
const (
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultBodyTimeout       = 20 * time.Second
	DefaultIdleTimeout       = 2 * time.Minute
	DefaultMaxHeaderBytes    = 64 << 10
)

func (l Limits) withDefaults() Limits {
	if l.ReadHeaderTimeout <= 0 {
		l.ReadHeaderTimeout = DefaultReadHeaderTimeout
	}
	if l.BodyTimeout <= 0 {
		l.BodyTimeout = DefaultBodyTimeout
	}
	if l.IdleTimeout <= 0 {
		l.IdleTimeout = DefaultIdleTimeout
	}
	if l.MaxHeaderBytes <= 0 {
		l.MaxHeaderBytes = DefaultMaxHeaderBytes
	}
	return l
}

// HTTPServer returns an http.Server for h (one of the Server's handlers)
// with the Server's Limits and its logger as the error log. Serve it on a
// listener from WrapListener so that net/http's own refusals are JSON:API
// too.
func (s *Server) HTTPServer(h http.Handler) *http.Server {
	l := s.Limits.withDefaults()
	return &http.Server{Handler: h, ReadHeaderTimeout: l.ReadHeaderTimeout, IdleTimeout: l.IdleTimeout,
		MaxHeaderBytes: l.MaxHeaderBytes, ErrorLog: slog.NewLogLogger(s.log().Handler(), slog.LevelWarn)}
}

// withBodyDeadline gives a request with a body BodyTimeout to deliver all
// of it: a read deadline on the connection. A body read past it fails and
// the handler answers 408. net/http clears the deadline itself once the
// body has been read to its end (it starts its background read of the
// connection), so a handler that works longer is not cut off.
func withBodyDeadline(d time.Duration, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody && (r.ContentLength != 0 || len(r.TransferEncoding) > 0) {
			_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(d)) // unsupported writers: no deadline
		}
		next.ServeHTTP(w, r)
	})
}

// isTimeout reports whether a body read failed on its deadline.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// errSlowBody is the answer to a body that missed its deadline.
func errSlowBody() error {
	return scopekit.Errorf(codeSlowRequest, "the request body was not received in time")
}

// WrapListener returns ln with net/http's own refusals rewritten as
// JSON:API error documents: net/http writes them as text/plain straight to
// the connection before any handler runs (431 for headers over the limit,
// 400 for a malformed request line or header, 501 for an unknown transfer
// encoding). A connection that sends its headers too slowly is closed
// without an answer, as net/http does.
func WrapListener(ln net.Listener) net.Listener { return errorListener{ln} }

type errorListener struct{ net.Listener }

func (l errorListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &errorConn{Conn: c}, nil
}

// errorConn recognizes net/http's plain-text refusal: one write of a
// status line followed at once by these headers, then the status as body.
type errorConn struct{ net.Conn }

const plainErrorHeaders = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"

func (c *errorConn) Write(p []byte) (int, error) {
	status, detail, ok := plainRefusal(p)
	if !ok {
		return c.Conn.Write(p)
	}
	obj := &jsonapi.ErrorObject{Status: strconv.Itoa(status), Title: http.StatusText(status), Code: codeOfStatus(status), Detail: detail}
	var body bytes.Buffer
	if err := jsonapi.Write(&body, &jsonapi.Document{Errors: []*jsonapi.ErrorObject{obj}}); err != nil {
		return c.Conn.Write(p)
	}
	head := fmt.Sprintf("HTTP/1.1 %d %s\r\nContent-Type: %s\r\nConnection: close\r\nContent-Length: %d\r\n\r\n",
		status, http.StatusText(status), jsonapi.MediaType, body.Len())
	if _, err := c.Conn.Write(append([]byte(head), body.Bytes()...)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// CloseWrite lets net/http half-close the connection after a 431, as it
// does on a bare TCP connection.
func (c *errorConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// plainRefusal parses net/http's refusal; detail is its explanation.
func plainRefusal(p []byte) (status int, detail string, ok bool) {
	rest, found := bytes.CutPrefix(p, []byte("HTTP/1.1 "))
	i := bytes.Index(rest, []byte(plainErrorHeaders))
	if !found || i < 3 || bytes.Contains(rest[:i], []byte("\r\n")) {
		return 0, "", false
	}
	status, err := strconv.Atoi(string(rest[:3]))
	if err != nil || status < 400 || status > 599 {
		return 0, "", false
	}
	text := string(rest[i+len(plainErrorHeaders):])
	switch status {
	case http.StatusRequestHeaderFieldsTooLarge:
		return status, "the request line and headers are too large", true
	case http.StatusNotImplemented:
		return status, "unsupported transfer encoding", true
	}
	if _, why, ok := strings.Cut(text, ": "); ok {
		return status, "malformed request: " + why, true
	}
	return status, "malformed request line or headers", true
}
