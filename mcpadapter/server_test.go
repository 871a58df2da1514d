package mcpadapter_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/scopekit/scopekit/mcpadapter"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// serve mounts the adapter's handlers as the composition root does.
func serve(t *testing.T, s *mcpadapter.Server) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle(mcpadapter.Path, s.HTTPHandler())
	mux.Handle(mcpadapter.MetadataPath, s.MetadataHandler())
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// bearer adds a bearer token to every request of an MCP client.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// connectHTTP connects the SDK's client to url's streamable HTTP endpoint
// as the token's user.
func connectHTTP(t *testing.T, url, token string) *client {
	t.Helper()
	ses, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: url + mcpadapter.Path, HTTPClient: &http.Client{Transport: bearer{token}},
			DisableStandaloneSSE: true, MaxRetries: -1}, nil)
	require.NoError(t, err)
	t.Cleanup(func() { ses.Close() })
	return newClient(t, ses)
}

// post sends a JSON-RPC request to the endpoint, with the token when not
// empty.
func post(t *testing.T, h http.Handler, url, token string, body io.Reader) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(http.MethodPost, url+mcpadapter.Path, body)
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

const listTools = `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`

// Ensure the streamable HTTP transport serves the tools as the bearer
// token's user, checks the token on every request as the API does, and
// without a BaseURL names the request's host and links by path.
func TestHTTPHandler(t *testing.T) {
	f := newFixture(t)
	_, eng := f.user("acme", "eng@acme.test", "Engineer")
	_, other := f.user("globex", "admin@globex.test", "Account Admin")
	_, leaver := f.user("acme", "leaver@acme.test", "Account Admin")
	_, fresh := f.user("acme", "new@acme.test", "Account Admin") // never used, so not cached
	doc := f.document(scoping.DocumentPricing, false)
	f.generate()
	s := f.server("")
	srv := serve(t, s)

	c := connectHTTP(t, srv.URL, f.admin)
	var found mcpadapter.SearchProjectsOutput
	c.call(t, mcpadapter.ToolSearchProjects, map[string]any{}, &found)
	assert.Equal(t, []string{f.acme.ProjectID}, projectIDs(found.Projects))
	var d mcpadapter.Document
	c.call(t, mcpadapter.ToolGetDocument, map[string]any{"document_id": doc, "response_format": mcpadapter.Detailed}, &d)
	assert.Equal(t, "/acme/v1/project-documents/"+doc+"/download", d.DownloadURL, "no BaseURL: a path")

	// each request runs as its own token's user, in the token's account
	e := connectHTTP(t, srv.URL, eng)
	e.call(t, mcpadapter.ToolSearchProjects, map[string]any{}, &found)
	assert.Empty(t, found.Projects)
	assert.Equal(t, "not found: projects "+f.acme.ProjectID+" not found",
		e.fail(t, mcpadapter.ToolGetProject, map[string]any{"project_id": f.acme.ProjectID}))
	g := connectHTTP(t, srv.URL, other)
	g.call(t, mcpadapter.ToolSearchProjects, map[string]any{}, &found)
	assert.Equal(t, []string{f.globex.ProjectID}, projectIDs(found.Projects))

	// refused tokens
	h := s.HTTPHandler()
	require.Equal(t, http.StatusOK, post(t, h, srv.URL, leaver, strings.NewReader(listTools)).Code)
	f.member("acme", "leaver@acme.test", "Account Admin", "deactivated")
	for name, token := range map[string]string{"none": "", "garbage": "not-a-token",
		"unknown": strings.Repeat("a", 43), "deactivated user": leaver} {
		w := post(t, h, srv.URL, token, strings.NewReader(listTools))
		assert.Equal(t, http.StatusUnauthorized, w.Code, name)
		assert.Equal(t, `Bearer resource_metadata="`+srv.URL+mcpadapter.MetadataPath+`"`, w.Header().Get("WWW-Authenticate"), name)
		assert.Equal(t, mcpadapter.CodeUnauthorized, rpcErr(t, w, nil).Code, name)
	}

	t.Run("bodies", func(t *testing.T) {
		for _, tc := range []struct {
			name string
			body io.Reader
			code int
			text string
		}{
			{"too large", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":"` +
				strings.Repeat("x", mcpadapter.MaxBodyBytes) + `"}}`), http.StatusRequestEntityTooLarge, ""},
			{"read deadline missed", errReader{timeout{}}, http.StatusRequestTimeout, "the request body was not received in time"},
			{"connection broken", errReader{io.ErrUnexpectedEOF}, http.StatusBadRequest, "could not read the request body"},
		} {
			w := post(t, h, srv.URL, f.admin, tc.body)
			assert.Equal(t, tc.code, w.Code, tc.name)
			e := rpcErr(t, w, nil)
			assert.Equal(t, mcpadapter.CodeInvalidRequest, e.Code, tc.name)
			assert.Contains(t, e.Message, tc.text, tc.name)
		}
	})

	// a token check that fails for another reason than the token
	require.NoError(t, f.db.Close())
	w := post(t, h, srv.URL, fresh, strings.NewReader(listTools))
	assert.Equal(t, http.StatusInternalServerError, w.Code)
	assert.Equal(t, `{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"internal error"}}`, w.Body.String(),
		"the cause is not shown")
	assert.Contains(t, f.logged(), "mcp: token check failed")
}

// errReader fails every read with err.
type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// timeout is the error of a read past the server's deadline.
type timeout struct{}

func (timeout) Error() string   { return "i/o timeout" }
func (timeout) Timeout() bool   { return true }
func (timeout) Temporary() bool { return true }

// Ensure the protected resource metadata names the resource on BaseURL
// (or the request's host) and the auth host (AuthURL, else the same).
func TestMetadata(t *testing.T) {
	f := newFixture(t)
	for _, tc := range []struct {
		name, base, auth string
		resource, issuer string // "" is the test server's URL
	}{
		{"request's host", "", "", "", ""},
		{"base URL", "https://api.scopekit.test/", "", "https://api.scopekit.test", "https://api.scopekit.test"},
		{"separate auth host", "https://api.scopekit.test", "https://auth.scopekit.test/", "https://api.scopekit.test", "https://auth.scopekit.test"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := f.server(tc.base)
			s.AuthURL = tc.auth
			srv := serve(t, s)
			base, issuer := tc.resource, tc.issuer
			if base == "" {
				base, issuer = srv.URL, srv.URL
			}
			res, err := http.Get(srv.URL + mcpadapter.MetadataPath)
			require.NoError(t, err)
			defer res.Body.Close()
			require.Equal(t, http.StatusOK, res.StatusCode)
			var meta struct {
				Resource             string   `json:"resource"`
				AuthorizationServers []string `json:"authorization_servers"`
				BearerMethods        []string `json:"bearer_methods_supported"`
			}
			require.NoError(t, json.NewDecoder(res.Body).Decode(&meta))
			assert.Equal(t, base+mcpadapter.Path, meta.Resource)
			assert.Equal(t, []string{issuer}, meta.AuthorizationServers)
			assert.Equal(t, []string{"header"}, meta.BearerMethods)

			// 401 answers point at this metadata
			w := post(t, s.HTTPHandler(), srv.URL, "", strings.NewReader(listTools))
			assert.Equal(t, http.StatusUnauthorized, w.Code)
			assert.Equal(t, `Bearer resource_metadata="`+base+mcpadapter.MetadataPath+`"`, w.Header().Get("WWW-Authenticate"))
		})
	}
}
