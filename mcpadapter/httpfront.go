package mcpadapter

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
)

// front checks a request to Path before the SDK's handler sees it, so
// that every refusal is a JSON-RPC error object: the method, the content
// type, the body's size, JSON-RPC 2.0, the batch cap, the token's call
// rate, and the methods and params the server serves.
func front(sdk http.Handler, limiter *callLimiter) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			(&rpcError{status: http.StatusMethodNotAllowed, code: CodeInvalidRequest,
				message: "send JSON-RPC messages with POST"}).write(w)
			return
		}
		if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
			(&rpcError{status: http.StatusUnsupportedMediaType, code: CodeInvalidRequest,
				message: "Content-Type must be application/json"}).write(w)
			return
		}
		body, rerr := readBody(r)
		if rerr != nil {
			rerr.write(w)
			return
		}
		msgs, batch, rerr := parseBody(body)
		calls := 1
		if rerr == nil {
			calls = len(msgs)
		}
		userID, clientID := caller(r)
		if refused := limiter.take(userID, clientID, calls, time.Now()); refused != nil {
			secs := retryAfter(refused.wait)
			w.Header().Set("Retry-After", strconv.Itoa(secs))
			e := &rpcError{status: http.StatusTooManyRequests, code: CodeRateLimited, data: map[string]int{"retryAfter": secs},
				message: refused.message(secs)}
			if !batch && len(msgs) == 1 {
				e.id = msgs[0].id
			}
			e.write(w)
			return
		}
		if rerr == nil && batch {
			// the SDK refuses batches from MCP 2025-06-18 on, in plain text
			if v := r.Header.Get("Mcp-Protocol-Version"); v >= "2025-06-18" {
				rerr = invalid(nil, "MCP %s has no batches: send one message per request", v)
			}
		}
		if rerr != nil {
			rerr.write(w)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		sdk.ServeHTTP(w, r)
	})
}

// caller returns the user and the OAuth client of the request's token, as
// the bearer check (Server.verify) found them.
func caller(r *http.Request) (userID, clientID string) {
	ti := sdkauth.TokenInfoFromContext(r.Context())
	if ti == nil {
		return "", ""
	}
	clientID, _ = ti.Extra[clientKey].(string)
	return ti.UserID, clientID
}

// readBody reads the request body, up to MaxBodyBytes: a body that misses
// the server's read deadline is a 408, as on the rest of the API host.
func readBody(r *http.Request) ([]byte, *rpcError) {
	if r.Body == nil {
		return nil, nil
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, MaxBodyBytes+1))
	var ne net.Error
	switch {
	case errors.As(err, &ne) && ne.Timeout():
		return nil, &rpcError{status: http.StatusRequestTimeout, code: CodeInvalidRequest, message: "the request body was not received in time"}
	case err != nil:
		return nil, &rpcError{status: http.StatusBadRequest, code: CodeInvalidRequest, message: "could not read the request body"}
	case len(b) > MaxBodyBytes:
		return nil, &rpcError{status: http.StatusRequestEntityTooLarge, code: CodeInvalidRequest,
			message: fmt.Sprintf("the request body is larger than %d bytes", MaxBodyBytes)}
	}
	return b, nil
}

// jsonrpcErrors makes what next answers a JSON-RPC error wherever it is
// not one: the bearer check's and the SDK's plain-text refusals become
// error objects with the same status (and headers, WWW-Authenticate
// included), and an error message that would show Go internals is
// replaced by the code's name. Event streams pass through untouched.
func jsonrpcErrors(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		bw := &bufferedWriter{w: w}
		next.ServeHTTP(bw, r)
		if bw.streaming {
			return
		}
		if bw.status == 0 {
			bw.status = http.StatusOK
		}
		body := bw.buf.Bytes()
		mt, _, _ := mime.ParseMediaType(w.Header().Get("Content-Type"))
		switch {
		case mt == "application/json":
			body = sanitize(body)
		case bw.status >= 400:
			plainError(bw.status, body).write(w)
			return
		}
		w.Header().Del("Content-Length")
		w.WriteHeader(bw.status)
		_, _ = w.Write(body)
	})
}

// bufferedWriter holds an answer until it is complete, except an event
// stream, which it passes on as it comes.
type bufferedWriter struct {
	w         http.ResponseWriter
	status    int
	buf       bytes.Buffer
	streaming bool
}

func (b *bufferedWriter) Header() http.Header { return b.w.Header() }

func (b *bufferedWriter) WriteHeader(status int) {
	if b.status != 0 || b.streaming {
		return
	}
	if strings.HasPrefix(b.w.Header().Get("Content-Type"), "text/event-stream") {
		b.streaming = true
		b.w.WriteHeader(status)
		return
	}
	b.status = status
}

func (b *bufferedWriter) Write(p []byte) (int, error) {
	if b.status == 0 && !b.streaming {
		b.WriteHeader(http.StatusOK)
	}
	if b.streaming {
		return b.w.Write(p)
	}
	return b.buf.Write(p)
}

// Flush passes a stream's events on; a buffered answer waits for its end.
func (b *bufferedWriter) Flush() {
	if f, ok := b.w.(http.Flusher); ok && b.streaming {
		f.Flush()
	}
}

// plainError turns a plain-text refusal into a JSON-RPC error.
func plainError(status int, text []byte) *rpcError {
	msg, _, _ := strings.Cut(strings.TrimSpace(string(text)), "\n")
	e := &rpcError{status: status, code: CodeInvalidRequest, message: msg}
	switch {
	case status >= 500:
		e.code, e.message = CodeInternalError, "internal error"
	case status == http.StatusUnauthorized:
		e.code, e.message = CodeUnauthorized, "unauthorized: "+msg
	case status == http.StatusTooManyRequests:
		e.code = CodeRateLimited
	}
	if e.message == "" || internal(e.message) {
		e.message = codeNames[e.code]
	}
	return e
}

// codeNames are the messages of errors whose own would show internals.
var codeNames = map[int]string{
	CodeParseError: "parse error", CodeInvalidRequest: "invalid request", CodeMethodNotFound: "method not found",
	CodeInvalidParams: "invalid params", CodeInternalError: "internal error", CodeRateLimited: "rate limit exceeded",
	CodeUnauthorized: "unauthorized",
}

// internal reports whether an error message shows Go internals (type
// names, reflection, decoder errors) rather than speaking of the request.
func internal(msg string) bool {
	for _, s := range []string{"Go value", "Go struct", "reflect", "interface {}", "map[", "*mcp.", "jsonrpc2", "unmarshal", "json: "} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// sanitize replaces the messages of the JSON-RPC errors in a JSON answer
// (one response or a batch's array) that show Go internals. Anything else
// is returned as it is, byte for byte.
func sanitize(body []byte) []byte {
	var one map[string]json.RawMessage
	if json.Unmarshal(body, &one) == nil {
		if sanitizeResponse(one) {
			return marshalOr(one, body)
		}
		return body
	}
	var many []map[string]json.RawMessage
	if json.Unmarshal(body, &many) != nil {
		return body
	}
	changed := false
	for _, m := range many {
		changed = sanitizeResponse(m) || changed
	}
	if changed {
		return marshalOr(many, body)
	}
	return body
}

// sanitizeResponse rewrites resp's error message if it shows internals.
func sanitizeResponse(resp map[string]json.RawMessage) bool {
	raw, ok := resp["error"]
	if !ok {
		return false
	}
	var e struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data,omitempty"`
	}
	if json.Unmarshal(raw, &e) != nil || (e.Code != 0 && !internal(e.Message)) {
		return false
	}
	if e.Code == 0 { // a handler's plain error: the SDK gives it no code
		e.Code = CodeInternalError
	}
	if internal(e.Message) {
		e.Message, e.Data = codeNames[e.Code], nil
		if e.Message == "" {
			e.Message = "invalid request"
		}
	}
	resp["error"], _ = json.Marshal(e)
	return true
}

func marshalOr(v any, fallback []byte) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		return fallback
	}
	return b
}
