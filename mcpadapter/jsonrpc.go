package mcpadapter

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// JSON-RPC error codes of the HTTP transport's answers: the standard five,
// and two of the range JSON-RPC leaves to servers.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
	// CodeRateLimited answers a call over the token's rate (HTTP 429, with
	// Retry-After and data.retryAfter in seconds).
	CodeRateLimited = -32000
	// CodeUnauthorized answers a request without a valid bearer token
	// (HTTP 401, with WWW-Authenticate).
	CodeUnauthorized = -32001
)

// MaxBatch is the most messages a JSON-RPC batch may hold (batches exist
// only before MCP 2025-06-18). A larger batch is refused whole, before any
// of its calls runs.
const MaxBatch = 20

// rpcError is an answer that refuses a request: its HTTP status and the
// JSON-RPC error object, for the request id (nil: null).
type rpcError struct {
	status  int
	id      json.RawMessage
	code    int
	message string
	data    any
}

func (e *rpcError) Error() string { return e.message }

// write sends e as a JSON-RPC response.
func (e *rpcError) write(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Del("Content-Length")
	w.WriteHeader(e.status)
	_, _ = w.Write(e.body())
}

// body is e as a JSON-RPC response object.
func (e *rpcError) body() []byte {
	id := e.id
	if id == nil {
		id = json.RawMessage("null")
	}
	type errorObject struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    any    `json:"data,omitempty"`
	}
	b, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   errorObject     `json:"error"`
	}{"2.0", id, errorObject{e.code, e.message, e.data}})
	if err != nil { // only data could fail, and it is always a plain map
		return []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"internal error"}}`)
	}
	return b
}

// invalid is a malformed request: HTTP 400, -32600.
func invalid(id json.RawMessage, format string, args ...any) *rpcError {
	return &rpcError{status: http.StatusBadRequest, id: id, code: CodeInvalidRequest, message: fmt.Sprintf(format, args...)}
}

// method is what the transport checks of a method before the SDK sees it:
// whether it is a notification (no id) or a call, whether it needs
// params, and the types of the params it reads (dotted paths).
type method struct {
	notification bool
	needsParams  bool
	fields       []field
}

// field is a param the method reads: its dotted path, JSON type, and
// whether the method needs it.
type field struct {
	path, kind string
	required   bool
}

// methods are those the server serves: the lifecycle, tools and prompts.
// Any other (logging, resources, completion, subscriptions) is -32601:
// the server declares no such capability.
var methods = map[string]method{
	"initialize": {needsParams: true, fields: []field{{"protocolVersion", "string", false}, {"capabilities", "object", false},
		{"clientInfo", "object", false}, {"clientInfo.name", "string", false}, {"clientInfo.version", "string", false}}},
	"server/discover":                  {},
	"ping":                             {},
	"tools/list":                       {fields: []field{{"cursor", "string", false}}},
	"tools/call":                       {needsParams: true, fields: []field{{"name", "string", true}, {"arguments", "object", false}}},
	"prompts/list":                     {fields: []field{{"cursor", "string", false}}},
	"prompts/get":                      {needsParams: true, fields: []field{{"name", "string", true}, {"arguments", "object", false}}},
	"notifications/initialized":        {notification: true},
	"notifications/cancelled":          {notification: true, fields: []field{{"reason", "string", false}}},
	"notifications/roots/list_changed": {notification: true},
}

// message is one checked JSON-RPC message of a request body.
type message struct {
	id     json.RawMessage // nil for a notification
	method string
}

// parseBody checks a request body: one JSON-RPC message or a batch of at
// most MaxBatch. It returns the messages, whether the body is a batch,
// and the error that refuses the body, if any (then nothing runs).
func parseBody(body []byte) (msgs []message, batch bool, rerr *rpcError) {
	body = bytes.TrimSpace(body)
	if !json.Valid(body) {
		return nil, false, &rpcError{status: http.StatusBadRequest, code: CodeParseError, message: "parse error: the body is not valid JSON"}
	}
	if body[0] != '[' {
		m, rerr := checkMessage(body)
		return []message{m}, false, rerr
	}
	var raws []json.RawMessage
	_ = json.Unmarshal(body, &raws) // valid JSON starting with [ is an array
	switch {
	case len(raws) == 0:
		return nil, true, invalid(nil, "an empty batch")
	case len(raws) > MaxBatch:
		return nil, true, invalid(nil, "a batch holds at most %d messages; this one has %d", MaxBatch, len(raws))
	}
	ids := map[string]int{}
	for i, raw := range raws {
		m, rerr := checkMessage(raw)
		if first, seen := ids[string(m.id)]; rerr == nil && m.id != nil && seen {
			rerr = invalid(nil, "id %s is already used by message %d", m.id, first)
		}
		if m.id != nil {
			ids[string(m.id)] = i + 1
		}
		if rerr != nil {
			rerr.id = nil
			rerr.status = http.StatusBadRequest
			rerr.message = fmt.Sprintf("message %d of the batch: %s; no message of the batch was run", i+1, rerr.message)
			return msgs, true, rerr
		}
		msgs = append(msgs, m)
	}
	return msgs, true, nil
}

// checkMessage checks one message against JSON-RPC 2.0 and the methods
// table. An error for a call carries its id; invalid params and unknown
// methods of a call are answered with HTTP 200, as any call's error.
func checkMessage(raw json.RawMessage) (message, *rpcError) {
	var m message
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil || obj == nil {
		return m, invalid(nil, "a JSON-RPC message must be a JSON object")
	}
	if v, ok := obj["jsonrpc"]; !ok || string(v) != `"2.0"` {
		return m, invalid(nil, `jsonrpc must be "2.0"`)
	}
	if v, ok := obj["id"]; ok {
		if !validID(v) {
			return m, invalid(nil, "id must be a string or an integer")
		}
		m.id = v
	}
	name, ok := obj["method"]
	if !ok {
		if m.id != nil {
			return m, invalid(m.id, "a message with an id needs a method (this server sends no requests, so it takes no responses)")
		}
		return m, invalid(nil, "a message needs a method")
	}
	if json.Unmarshal(name, &m.method) != nil {
		return m, invalid(m.id, "method must be a string")
	}
	spec, known := methods[m.method]
	// a call's refusal is its answer (200); a notification's refuses the POST (400)
	status := http.StatusOK
	if m.id == nil {
		status = http.StatusBadRequest
	}
	switch {
	case !known:
		return m, &rpcError{status: status, id: m.id, code: CodeMethodNotFound, message: fmt.Sprintf("method %q not found", m.method)}
	case spec.notification && m.id != nil:
		return m, invalid(m.id, "%s is a notification: it takes no id", m.method)
	case !spec.notification && m.id == nil:
		return m, invalid(nil, "%s is a request: it needs an id", m.method)
	}
	if msg := checkParams(spec, obj["params"]); msg != "" {
		return m, &rpcError{status: status, id: m.id, code: CodeInvalidParams, message: "invalid params: " + msg}
	}
	return m, nil
}

// validID reports whether v is a string or an integer (MCP forbids null
// ids; a fraction would be truncated).
func validID(v json.RawMessage) bool {
	var x any
	d := json.NewDecoder(bytes.NewReader(v))
	d.UseNumber()
	if d.Decode(&x) != nil {
		return false
	}
	switch x := x.(type) {
	case string:
		return true
	case json.Number:
		_, err := x.Int64()
		return err == nil
	}
	return false
}

// checkParams returns why params do not suit the method, or "".
func checkParams(spec method, params json.RawMessage) string {
	if params == nil || string(params) == "null" {
		if spec.needsParams {
			return "params are required"
		}
		return ""
	}
	var obj map[string]any
	if json.Unmarshal(params, &obj) != nil {
		return "params must be an object"
	}
	if meta, ok := obj["_meta"]; ok && kindOf(meta) != "object" && meta != nil {
		return "_meta must be an object"
	}
	for _, f := range spec.fields {
		v, ok := valueAt(obj, f.path)
		if f.required && (!ok || v == nil) {
			return f.path + " is required"
		}
		if ok && v != nil && kindOf(v) != f.kind {
			return fmt.Sprintf("%s must be %s %s, not %s", f.path, article(f.kind), f.kind, describeValue(v))
		}
	}
	return ""
}

// valueAt returns the value at a dotted path of obj.
func valueAt(obj map[string]any, path string) (any, bool) {
	first, rest, nested := strings.Cut(path, ".")
	v, ok := obj[first]
	if !ok || !nested {
		return v, ok
	}
	inner, isObj := v.(map[string]any)
	if !isObj {
		return nil, false
	}
	return valueAt(inner, rest)
}

// kindOf is the JSON type of a decoded value.
func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64, json.Number:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	}
	return "object"
}

func article(kind string) string {
	if strings.ContainsRune("aeiou", rune(kind[0])) {
		return "an"
	}
	return "a"
}

// describeValue names a decoded JSON value for an error message: short
// strings and numbers as they are, anything else by its type.
func describeValue(v any) string {
	switch x := v.(type) {
	case string:
		if len(x) <= 40 {
			return fmt.Sprintf("%q", x)
		}
		return "a long string"
	case float64, json.Number, bool:
		return fmt.Sprint(x)
	case nil:
		return "null"
	}
	k := kindOf(v)
	return article(k) + " " + k
}
