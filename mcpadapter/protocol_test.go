package mcpadapter_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/mcpadapter"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// goInternals matches what an error message must never show: Go type
// names, reflection, decoder errors.
var goInternals = regexp.MustCompile(`reflect|interface \{\}|map\[|Go value|Go struct|mcp\.|jsonrpc2|unmarshal`)

// rpcError is the error object of a JSON-RPC response.
type rpcError struct {
	Code    int            `json:"code"`
	Message string         `json:"message"`
	Data    map[string]any `json:"data"`
}

// rpcErr checks that w answered a JSON-RPC error response for the id
// (nil: null) whose message shows no Go internals, and returns the error.
func rpcErr(t *testing.T, w *httptest.ResponseRecorder, id any) rpcError {
	t.Helper()
	assert.Equal(t, "application/json", w.Header().Get("Content-Type"), w.Body.String())
	var resp struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *rpcError       `json:"error"`
		Result  json.RawMessage `json:"result"`
	}
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &resp), w.Body.String())
	assert.Equal(t, "2.0", resp.JSONRPC)
	want, err := json.Marshal(id)
	require.NoError(t, err)
	assert.JSONEq(t, string(want), string(resp.ID), "id")
	require.NotNil(t, resp.Error, "an error response: %s", w.Body.String())
	assert.Nil(t, resp.Result)
	assert.NotRegexp(t, goInternals, resp.Error.Message)
	return *resp.Error
}

// send posts body to the handler with the token and the usual headers,
// changed by headers (an empty value removes the header).
func send(h http.Handler, method, token, body string, headers map[string]string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, "http://mcp.test"+mcpadapter.Path, strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	for name, value := range headers {
		r.Header.Del(name)
		if value != "" {
			r.Header.Set(name, value)
		}
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// batchOf is a batch of n pings, with ids 1 to n.
func batchOf(n int) string {
	pings := make([]string, n)
	for i := range pings {
		pings[i] = `{"jsonrpc":"2.0","id":` + strconv.Itoa(i+1) + `,"method":"ping"}`
	}
	return "[" + strings.Join(pings, ",") + "]"
}

const ping = `{"jsonrpc":"2.0","id":7,"method":"ping"}`

// Ensure every malformed or refused request to /mcp is answered with a
// JSON-RPC error object (with the request's id where it has a usable
// one), with the HTTP status and headers of the refusal, and never with
// Go internals.
func TestProtocolErrors(t *testing.T) {
	f := newFixture(t)
	h := f.server("").HTTPHandler()
	call := func(params string) string {
		return `{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":` + params + `}`
	}
	for _, tc := range []struct {
		name    string
		method  string // default POST
		token   string // "-" none, "" the admin's
		body    string
		headers map[string]string
		status  int
		id      any
		code    int
		message string // in the error message
	}{
		{"no token", "", "-", listTools, nil, 401, nil, mcpadapter.CodeUnauthorized, "unauthorized: no bearer token"},
		{"bad token", "", "not-a-token", listTools, nil, 401, nil, mcpadapter.CodeUnauthorized, "unauthorized: invalid token"},
		{"GET", http.MethodGet, "", "", nil, 405, nil, mcpadapter.CodeInvalidRequest, "POST"},
		{"DELETE", http.MethodDelete, "", "", nil, 405, nil, mcpadapter.CodeInvalidRequest, "POST"},
		{"wrong content type", "", "", listTools, map[string]string{"Content-Type": "text/plain"}, 415, nil,
			mcpadapter.CodeInvalidRequest, "Content-Type must be application/json"},
		{"no content type", "", "", listTools, map[string]string{"Content-Type": ""}, 415, nil, mcpadapter.CodeInvalidRequest, "Content-Type"},
		{"oversized body", "", "", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("x", mcpadapter.MaxBodyBytes) + `"}}`,
			nil, 413, nil, mcpadapter.CodeInvalidRequest, "larger than"},
		{"malformed JSON", "", "", `{"jsonrpc":"2.0","id":1,`, nil, 400, nil, mcpadapter.CodeParseError, "parse error"},
		{"empty body", "", "", "", nil, 400, nil, mcpadapter.CodeParseError, "parse error"},
		{"not an object", "", "", `"tools/list"`, nil, 400, nil, mcpadapter.CodeInvalidRequest, "must be a JSON object"},
		{"null", "", "", `null`, nil, 400, nil, mcpadapter.CodeInvalidRequest, "must be a JSON object"},
		{"no version", "", "", `{"id":1,"method":"ping"}`, nil, 400, nil, mcpadapter.CodeInvalidRequest, `jsonrpc must be "2.0"`},
		{"object id", "", "", `{"jsonrpc":"2.0","id":{},"method":"ping"}`, nil, 400, nil, mcpadapter.CodeInvalidRequest, "id must be a string or an integer"},
		{"fractional id", "", "", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, nil, 400, nil, mcpadapter.CodeInvalidRequest, "id must be"},
		{"id without method", "", "", `{"jsonrpc":"2.0","id":3}`, nil, 400, 3, mcpadapter.CodeInvalidRequest, "needs a method"},
		{"a response", "", "", `{"jsonrpc":"2.0","id":"x","result":{}}`, nil, 400, "x", mcpadapter.CodeInvalidRequest, "takes no responses"},
		{"no method, no id", "", "", `{"jsonrpc":"2.0"}`, nil, 400, nil, mcpadapter.CodeInvalidRequest, "needs a method"},
		{"method not a string", "", "", `{"jsonrpc":"2.0","id":1,"method":5}`, nil, 400, 1, mcpadapter.CodeInvalidRequest, "method must be a string"},
		{"unknown method", "", "", `{"jsonrpc":"2.0","id":1,"method":"tools/destroy"}`, nil, 200, 1, mcpadapter.CodeMethodNotFound, `"tools/destroy" not found`},
		{"undeclared logging", "", "", `{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"debug"}}`, nil, 200, 1,
			mcpadapter.CodeMethodNotFound, "not found"},
		{"undeclared resources", "", "", `{"jsonrpc":"2.0","id":1,"method":"resources/list"}`, nil, 200, 1, mcpadapter.CodeMethodNotFound, "not found"},
		{"unknown notification", "", "", `{"jsonrpc":"2.0","method":"notifications/whatever"}`, nil, 400, nil, mcpadapter.CodeMethodNotFound, "not found"},
		{"notification with an id", "", "", `{"jsonrpc":"2.0","id":1,"method":"notifications/initialized"}`, nil, 400, 1,
			mcpadapter.CodeInvalidRequest, "takes no id"},
		{"request without an id", "", "", `{"jsonrpc":"2.0","method":"tools/list"}`, nil, 400, nil, mcpadapter.CodeInvalidRequest, "needs an id"},
		{"params not an object", "", "", call(`"x"`), nil, 200, "c1", mcpadapter.CodeInvalidParams, "invalid params: params must be an object"},
		{"params missing", "", "", `{"jsonrpc":"2.0","id":"c1","method":"tools/call"}`, nil, 200, "c1", mcpadapter.CodeInvalidParams, "params are required"},
		{"tool name missing", "", "", call(`{}`), nil, 200, "c1", mcpadapter.CodeInvalidParams, "invalid params: name is required"},
		{"tool name not a string", "", "", call(`{"name":5}`), nil, 200, "c1", mcpadapter.CodeInvalidParams, "invalid params: name must be a string, not 5"},
		{"unknown tool", "", "", call(`{"name":"nope"}`), nil, 200, "c1", mcpadapter.CodeInvalidParams, `unknown tool "nope"`},
		{"arguments not an object", "", "", call(`{"name":"` + mcpadapter.ToolGetProject + `","arguments":"x"}`), nil, 200, "c1",
			mcpadapter.CodeInvalidParams, "invalid params: arguments must be an object"},
		{"arguments an array", "", "", call(`{"name":"` + mcpadapter.ToolGetProject + `","arguments":[]}`), nil, 200, "c1",
			mcpadapter.CodeInvalidParams, "arguments must be an object"},
		{"_meta not an object", "", "", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":3}}`, nil, 200, 1,
			mcpadapter.CodeInvalidParams, "_meta must be an object"},
		{"initialize params not an object", "", "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":"x"}`, nil, 200, 1,
			mcpadapter.CodeInvalidParams, "params must be an object"},
		{"initialize client name", "", "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":1}}}`, nil, 200, 1,
			mcpadapter.CodeInvalidParams, "clientInfo.name must be a string, not 1"},
		{"cursor not a string", "", "", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":true}}`, nil, 200, 1,
			mcpadapter.CodeInvalidParams, "cursor must be a string, not true"},
		{"empty batch", "", "", `[]`, nil, 400, nil, mcpadapter.CodeInvalidRequest, "an empty batch"},
		{"batch over the cap", "", "", batchOf(mcpadapter.MaxBatch + 1), nil, 400, nil, mcpadapter.CodeInvalidRequest,
			"a batch holds at most 20 messages; this one has 21"},
		{"batch with a bad message", "", "", `[` + ping + `,{"jsonrpc":"2.0","id":2,"method":"nope"}]`, nil, 400, nil,
			mcpadapter.CodeMethodNotFound, "message 2 of the batch"},
		{"batch repeating an id", "", "", `[` + ping + `,` + ping + `]`, nil, 400, nil, mcpadapter.CodeInvalidRequest,
			"message 2 of the batch: id 7 is already used by message 1"},
		{"batch in MCP 2025-06-18", "", "", `[` + ping + `]`, map[string]string{"Mcp-Protocol-Version": "2025-06-18"}, 400, nil,
			mcpadapter.CodeInvalidRequest, "MCP 2025-06-18 has no batches"},
		{"unsupported protocol version", "", "", listTools, map[string]string{"Mcp-Protocol-Version": "1999-01-01"}, 400, nil,
			mcpadapter.CodeInvalidRequest, "Unsupported protocol version"},
		{"Accept without event streams", "", "", listTools, map[string]string{"Accept": "application/json"}, 400, nil,
			mcpadapter.CodeInvalidRequest, "Accept must contain"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			method, token := tc.method, tc.token
			if method == "" {
				method = http.MethodPost
			}
			switch token {
			case "":
				token = f.admin
			case "-":
				token = ""
			}
			w := send(h, method, token, tc.body, tc.headers)
			assert.Equal(t, tc.status, w.Code, w.Body.String())
			e := rpcErr(t, w, tc.id)
			assert.Equal(t, tc.code, e.Code)
			assert.Contains(t, e.Message, tc.message)
			switch tc.status {
			case http.StatusUnauthorized:
				assert.Equal(t, `Bearer resource_metadata="http://mcp.test`+mcpadapter.MetadataPath+`"`, w.Header().Get("WWW-Authenticate"))
			case http.StatusMethodNotAllowed:
				assert.Equal(t, http.MethodPost, w.Header().Get("Allow"))
			}
		})
	}

	t.Run("what is valid still runs", func(t *testing.T) {
		w := send(h, http.MethodPost, f.admin, batchOf(mcpadapter.MaxBatch), nil)
		require.Equal(t, http.StatusOK, w.Code, w.Body.String())
		var answers []map[string]any
		require.NoError(t, json.Unmarshal(w.Body.Bytes(), &answers))
		assert.Len(t, answers, mcpadapter.MaxBatch)
		w = send(h, http.MethodPost, f.admin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil)
		assert.Equal(t, http.StatusAccepted, w.Code)
		assert.Empty(t, w.Body.String())
		w = send(h, http.MethodPost, f.admin, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"`+
			mcpadapter.ToolGetProject+`","arguments":{"project_id":null}}}`, nil)
		require.Equal(t, http.StatusOK, w.Code)
		assert.Contains(t, w.Body.String(), `"isError":true`)
		assert.Contains(t, w.Body.String(), "invalid argument project_id: must be a string or an integer, not null")
	})
}

// Ensure the calls of each person are rate limited, whatever token they
// send them with (minting another token buys no more), a batch counting
// each of its messages, with 429, Retry-After and a JSON-RPC error
// carrying the request's id; another person keeps its own budget.
func TestRateLimit(t *testing.T) {
	f := newFixture(t)
	_, other := f.user("acme", "other@acme.test", "Account Admin")
	s := f.server("")
	s.CallRate, s.CallBurst = 0.001, 1 // the burst is raised to MaxBatch
	h := s.HTTPHandler()

	w := send(h, http.MethodPost, f.admin, batchOf(mcpadapter.MaxBatch-1), nil)
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	require.Equal(t, http.StatusOK, send(h, http.MethodPost, f.admin, ping, nil).Code)
	for _, body := range []string{ping, `{"jsonrpc":"2.0","id":8,"method":"tools/list"}`} {
		w = send(h, http.MethodPost, f.admin, body, nil)
		assert.Equal(t, http.StatusTooManyRequests, w.Code)
		var id int
		require.NoError(t, json.Unmarshal([]byte(body[strings.Index(body, `"id":`)+5:strings.Index(body, `,"method"`)]), &id))
		e := rpcErr(t, w, id)
		assert.Equal(t, mcpadapter.CodeRateLimited, e.Code)
		assert.Equal(t, "rate limit exceeded: at most 0.001 calls per second per person (all of a user's access tokens together); retry after 1000 s", e.Message)
		assert.Equal(t, "1000", w.Header().Get("Retry-After"))
		assert.Equal(t, float64(1000), e.Data["retryAfter"])
	}
	// a refused batch is refused whole, with id null
	w = send(h, http.MethodPost, f.admin, batchOf(2), nil)
	assert.Equal(t, http.StatusTooManyRequests, w.Code)
	assert.Equal(t, mcpadapter.CodeRateLimited, rpcErr(t, w, nil).Code)

	// a fresh token of the same person: the same budget
	tok, err := f.auth.Token(context.Background(), &auth.TokenRequest{GrantType: "client_credentials",
		ClientID: "cid-acme-admin@acme.test", ClientSecret: "secret-admin@acme.test"})
	require.NoError(t, err)
	require.NotEqual(t, f.admin, tok.AccessToken)
	assert.Equal(t, http.StatusTooManyRequests, send(h, http.MethodPost, tok.AccessToken, ping, nil).Code, "minting a token buys no calls")

	assert.Equal(t, http.StatusOK, send(h, http.MethodPost, other, ping, nil).Code, "another person has its own budget")
}

// Ensure the calls through one OAuth client are limited together, whoever
// they are for: an application many people sign in through has one
// budget (ClientCallRate), which a person calling through another client
// does not share.
func TestClientRateLimit(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	require.NoError(t, f.auth.RegisterApplication(ctx, f.accts["acme"], "Portal", "portal", "portal-secret", nil))
	signIn := func(email string) string {
		t.Helper()
		var id string
		require.NoError(t, f.svc.Setup(ctx, func(a *scoping.Admin) error {
			u, err := a.EnsureMember(f.accts["acme"], scoping.Member{Email: email, Name: email, UserType: "standard", Role: "Account Admin", Status: "active"})
			if u != nil {
				id = u.ID
			}
			return err
		}))
		require.NoError(t, f.auth.SetPassword(ctx, id, "a long enough password"))
		tok, err := f.auth.Token(ctx, &auth.TokenRequest{GrantType: "password", ClientID: "portal", ClientSecret: "portal-secret",
			Username: email, Password: "a long enough password"})
		require.NoError(t, err)
		return tok.AccessToken
	}
	ann, bob := signIn("ann@acme.test"), signIn("bob@acme.test")
	s := f.server("")
	s.ClientCallRate, s.ClientCallBurst = 0.001, 1
	h := s.HTTPHandler()

	require.Equal(t, http.StatusOK, send(h, http.MethodPost, ann, batchOf(mcpadapter.MaxBatch), nil).Code)
	w := send(h, http.MethodPost, bob, ping, nil)
	require.Equal(t, http.StatusTooManyRequests, w.Code, "bob signed in through the same application")
	assert.Equal(t, "rate limit exceeded: at most 0.001 calls per second per OAuth client (all of its access tokens together); retry after 1000 s",
		rpcErr(t, w, 7).Message)
	assert.Equal(t, http.StatusOK, send(h, http.MethodPost, f.admin, ping, nil).Code, "a service account is a client of its own")
	// a refused call took nothing from the person's own bucket either
	s2 := f.server("")
	s2.CallRate, s2.CallBurst = 0.001, 1
	s2.ClientCallRate, s2.ClientCallBurst = 0.001, 1
	h2 := s2.HTTPHandler()
	require.Equal(t, http.StatusOK, send(h2, http.MethodPost, ann, batchOf(mcpadapter.MaxBatch-1), nil).Code)
	assert.Equal(t, http.StatusTooManyRequests, send(h2, http.MethodPost, bob, batchOf(2), nil).Code, "the client's bucket has 1 call left")
	assert.Equal(t, http.StatusOK, send(h2, http.MethodPost, bob, ping, nil).Code, "bob's own bucket was not charged for the refused batch")
}

// Ensure the server declares only what a stateless JSON-only server can
// honour: tools, without list changes, and no logging.
func TestCapabilities(t *testing.T) {
	f := newFixture(t)
	h := f.server("").HTTPHandler()
	w := send(h, http.MethodPost, f.admin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",`+
		`"capabilities":{},"clientInfo":{"name":"probe","version":"1"}}}`, nil)
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	var resp struct {
		Result struct {
			Capabilities map[string]map[string]any `json:"capabilities"`
		} `json:"result"`
	}
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &resp))
	caps := resp.Result.Capabilities
	assert.Contains(t, caps, "tools")
	assert.NotContains(t, caps, "logging")
	for name, c := range caps {
		assert.NotContains(t, c, "listChanged", name)
		assert.NotContains(t, c, "subscribe", name)
	}

	// the same through the SDK's client, over stdio's in-memory transport
	c := f.connect(t, f.admin)
	got := c.ses.InitializeResult().Capabilities
	require.NotNil(t, got.Tools)
	assert.False(t, got.Tools.ListChanged)
	assert.Nil(t, got.Logging)
}

// Ensure a tool call whose arguments are not an object is invalid params
// over stdio too, not a tool error showing Go types.
func TestArgumentsNotAnObject(t *testing.T) {
	f := newFixture(t)
	c := f.connect(t, f.admin)
	_, err := c.ses.CallTool(context.Background(), &mcp.CallToolParams{Name: mcpadapter.ToolGetProject, Arguments: []string{"1"}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "invalid params: arguments must be an object, not an array")
	assert.NotRegexp(t, goInternals, strings.ReplaceAll(err.Error(), "calling \"tools/call\"", ""))
}
