package mcpadapter

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/assert"
)

// Ensure what the SDK answers is made a JSON-RPC error wherever it is
// not one, that messages showing Go internals are replaced, and that
// anything else passes byte for byte, event streams as they come.
func TestJSONRPCErrors(t *testing.T) {
	for _, tc := range []struct {
		name    string
		handler http.HandlerFunc
		status  int
		body    string
	}{
		{"plain 400", func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "Bad Request: DELETE requires an Mcp-Session-Id header\nmore", http.StatusBadRequest)
		}, 400, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Bad Request: DELETE requires an Mcp-Session-Id header"}}`},
		{"plain with internals", func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "malformed payload: json: cannot unmarshal into Go value of type jsonrpc2.wireDecode", http.StatusBadRequest)
		}, 400, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request"}}`},
		{"plain 500", func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "storing stream: disk full", http.StatusInternalServerError)
		}, 500, `{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"internal error"}}`},
		{"plain 429", func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "", http.StatusTooManyRequests)
		}, 429, `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"rate limit exceeded"}}`},
		{"JSON error with internals", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"unmarshaling into a *mcp.CallToolParamsRaw","data":"x"}}`))
		}, 200, `{"error":{"code":-32602,"message":"invalid params"},"id":1,"jsonrpc":"2.0"}`},
		{"JSON error without a code", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":2,"error":{"code":0,"message":"handling 'x': boom"}}]`))
		}, 200, `[{"id":1,"jsonrpc":"2.0","result":{}},{"error":{"code":-32603,"message":"handling 'x': boom"},"id":2,"jsonrpc":"2.0"}]`},
		{"JSON answer kept", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0", "id":1,"error":{"code":-32602,"message":"unknown tool \"x\""}}` + "\n"))
		}, 200, `{"jsonrpc":"2.0", "id":1,"error":{"code":-32602,"message":"unknown tool \"x\""}}` + "\n"},
		{"accepted", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusAccepted) }, 202, ""},
		{"event stream", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = w.Write([]byte("event: message\n"))
			http.NewResponseController(w).Flush()
			_, _ = w.Write([]byte("data: {}\n\n"))
		}, 200, "event: message\ndata: {}\n\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			jsonrpcErrors(tc.handler).ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/mcp", nil))
			assert.Equal(t, tc.status, w.Code)
			assert.Equal(t, tc.body, w.Body.String())
		})
	}
}

// Ensure schemas are described in words an assistant can act on.
func TestDescribeSchema(t *testing.T) {
	one, hundred := 1.0, 100.0
	for _, tc := range []struct {
		schema *jsonschema.Schema
		want   string
	}{
		{&jsonschema.Schema{Type: "string"}, "a string"},
		{&jsonschema.Schema{Types: []string{"string", "integer"}}, "a string or an integer"},
		{&jsonschema.Schema{Type: "string", Enum: []any{"draft", "approved"}}, `one of "draft", "approved"`},
		{&jsonschema.Schema{Type: "integer", Minimum: &one, Maximum: &hundred}, "an integer from 1 to 100"},
		{&jsonschema.Schema{Type: "number", Minimum: &one}, "a number of at least 1"},
		{&jsonschema.Schema{Type: "number", Maximum: &hundred}, "a number of at most 100"},
		{&jsonschema.Schema{Type: "boolean"}, "true or false"},
		{&jsonschema.Schema{Types: []string{"null", "object"}}, "null or an object"},
		{&jsonschema.Schema{Type: "array", Items: &jsonschema.Schema{Type: "string"}}, "an array whose items are each a string"},
		{&jsonschema.Schema{Type: "array"}, "an array"},
		{&jsonschema.Schema{}, "a value the tool's input schema allows"},
	} {
		assert.Equal(t, tc.want, describeSchema(tc.schema))
	}
	assert.Equal(t, "a long string", describeValue("this string is far too long to be repeated in a message"))
	assert.Equal(t, "an array", describeValue([]any{}))
}
