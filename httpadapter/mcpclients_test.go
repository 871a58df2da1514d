package httpadapter_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth/extauth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"github.com/scopekit/scopekit/httpadapter"
	"github.com/scopekit/scopekit/mcpadapter"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// getJSON fetches url and decodes its JSON answer into out.
func getJSON(t *testing.T, url string, out any) *http.Response {
	t.Helper()
	res, err := http.Get(url)
	require.NoError(t, err)
	defer res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode, url)
	assert.Equal(t, "application/json", res.Header.Get("Content-Type"), url)
	require.NoError(t, json.NewDecoder(res.Body).Decode(out), url)
	return res
}

// Ensure the auth host serves its RFC 8414 metadata at both well-known
// URLs an MCP client tries, naming as issuer the authorization server of
// the MCP endpoint's protected resource metadata, with endpoints that
// work; and that with separate hosts it is the auth host that serves it.
func TestAuthServerMetadata(t *testing.T) {
	e := mustEnv(t)
	var prm struct {
		Resource             string   `json:"resource"`
		AuthorizationServers []string `json:"authorization_servers"`
	}
	getJSON(t, e.srv.URL+mcpadapter.MetadataPath, &prm)
	require.Len(t, prm.AuthorizationServers, 1)
	issuer := prm.AuthorizationServers[0]

	var docs []httpadapter.AuthServerMetadata
	for _, path := range []string{httpadapter.AuthServerMetadataPath, httpadapter.OpenIDConfigurationPath} {
		var meta httpadapter.AuthServerMetadata
		res := getJSON(t, e.srv.URL+path, &meta)
		assert.Equal(t, "*", res.Header.Get("Access-Control-Allow-Origin"))
		docs = append(docs, meta)
	}
	assert.Equal(t, docs[0], docs[1], "one document at both URLs")
	assert.Equal(t, httpadapter.AuthServerMetadata{
		Issuer:                            issuer,
		AuthorizationEndpoint:             issuer + "/oauth/authorize",
		TokenEndpoint:                     issuer + "/oauth/token",
		ResponseTypesSupported:            []string{"code"},
		GrantTypesSupported:               []string{"authorization_code", "client_credentials", "password", "refresh_token"},
		CodeChallengeMethodsSupported:     []string{"S256"},
		TokenEndpointAuthMethodsSupported: []string{"client_secret_basic", "client_secret_post"},
		ScopesSupported:                   []string{},
	}, docs[0])
	assert.Equal(t, e.srv.URL, issuer)

	// the token endpoint it names takes a client id and secret, by either method
	e.user("acme", "bot@acme.test", "Account Admin")
	for _, basic := range []bool{true, false} {
		form := url.Values{"grant_type": {"client_credentials"}}
		if !basic {
			form.Set("client_id", "cid-acme-bot@acme.test")
			form.Set("client_secret", "secret-bot@acme.test")
		}
		req, err := http.NewRequest(http.MethodPost, docs[0].TokenEndpoint, strings.NewReader(form.Encode()))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if basic {
			req.SetBasicAuth(url.QueryEscape("cid-acme-bot@acme.test"), url.QueryEscape("secret-bot@acme.test"))
		}
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		res.Body.Close()
		assert.Equal(t, http.StatusOK, res.StatusCode, "basic %v", basic)
	}

	t.Run("separate auth host", func(t *testing.T) {
		s := &httpadapter.Server{Svc: e.svc, Auth: e.auth, Logger: slog.New(slog.DiscardHandler),
			BaseURL: "https://api.scopekit.test", AuthURL: "https://auth.scopekit.test/"}
		w := httptest.NewRecorder()
		s.AuthHandler().ServeHTTP(w, httptest.NewRequest(http.MethodGet, httpadapter.AuthServerMetadataPath, nil))
		require.Equal(t, http.StatusOK, w.Code)
		var meta httpadapter.AuthServerMetadata
		require.NoError(t, json.Unmarshal(w.Body.Bytes(), &meta))
		assert.Equal(t, "https://auth.scopekit.test", meta.Issuer)
		assert.Equal(t, "https://auth.scopekit.test/oauth/token", meta.TokenEndpoint)
		w = httptest.NewRecorder()
		s.APIHandler().ServeHTTP(w, httptest.NewRequest(http.MethodGet, httpadapter.OpenIDConfigurationPath, nil))
		assert.Equal(t, http.StatusNotFound, w.Code, "the API host does not serve it")
	})
}

// counting is an HTTP transport that counts the requests to the token
// endpoint and the 401 answers of other requests.
type counting struct{ tokens, unauthorized atomic.Int32 }

func (c *counting) RoundTrip(r *http.Request) (*http.Response, error) {
	res, err := http.DefaultTransport.RoundTrip(r)
	switch {
	case err != nil:
	case r.URL.Path == "/oauth/token":
		c.tokens.Add(1)
	case res.StatusCode == http.StatusUnauthorized:
		c.unauthorized.Add(1)
	}
	return res, err
}

// Ensure the go-sdk's client connects with a client id and secret alone
// (its client-credentials handler discovers the token endpoint from the
// protected resource and authorization server metadata, and gets its
// tokens with golang.org/x/oauth2/clientcredentials), reuses its token,
// and gets a new one when the server refuses the old one as expired.
func TestMCPGoClientCredentials(t *testing.T) {
	e := mustEnv(t)
	var skew atomic.Int64 // how far the server's clock is ahead
	e.tokenTTL = time.Hour
	e.now = func() time.Time { return time.Now().Add(time.Duration(skew.Load())) }
	e.restart()
	e.seedWorkedExample()
	e.user("acme", "bot@acme.test", "Account Admin")

	count := &counting{}
	httpClient := &http.Client{Transport: count}
	handler, err := extauth.NewClientCredentialsHandler(&extauth.ClientCredentialsHandlerConfig{HTTPClient: httpClient,
		Credentials: &oauthex.ClientCredentials{ClientID: "cid-acme-bot@acme.test",
			ClientSecretAuth: &oauthex.ClientSecretAuth{ClientSecret: "secret-bot@acme.test"}}})
	require.NoError(t, err)
	ses, err := mcp.NewClient(&mcp.Implementation{Name: "scopekit-test", Version: "1"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: e.srv.URL + mcpadapter.Path, OAuthHandler: handler, HTTPClient: httpClient,
			DisableStandaloneSSE: true, MaxRetries: -1}, nil)
	require.NoError(t, err)
	t.Cleanup(func() { ses.Close() })
	assert.Nil(t, ses.InitializeResult().Capabilities.Logging)

	var found mcpadapter.SearchProjectsOutput
	call(t, ses, mcpadapter.ToolSearchProjects, map[string]any{"query": "firewall"}, &found)
	require.Len(t, found.Projects, 1)
	call(t, ses, mcpadapter.ToolSearchProjects, map[string]any{}, &found)
	assert.Equal(t, int32(1), count.tokens.Load(), "one token, reused")
	assert.Equal(t, int32(1), count.unauthorized.Load(), "the first request, without a token")

	skew.Store(int64(2 * time.Hour)) // the token has expired for the server
	call(t, ses, mcpadapter.ToolSearchProjects, map[string]any{"query": "firewall"}, &found)
	require.Len(t, found.Projects, 1)
	assert.Equal(t, int32(2), count.tokens.Load(), "a new token after the 401")
	assert.Equal(t, int32(2), count.unauthorized.Load())
}

// tsClientVersion is the @modelcontextprotocol/sdk release .ci/run
// installs for TestMCPTypeScriptClientCredentials.
const tsClientVersion = "1.32.2"

// Ensure the official TypeScript SDK's ClientCredentialsProvider connects
// with a client id and secret alone and, when its token expires, gets a
// new one. The SDK comes from the npm prefix SCOPEKIT_TEST_MCP_SDK names
// (.ci/run installs it); without node or the package the test skips.
func TestMCPTypeScriptClientCredentials(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: skipping the TypeScript SDK check")
	}
	prefix := os.Getenv("SCOPEKIT_TEST_MCP_SDK")
	pkg := filepath.Join(prefix, "node_modules", "@modelcontextprotocol", "sdk", "package.json")
	raw, err := os.ReadFile(pkg)
	if prefix == "" || err != nil {
		t.Skipf("SCOPEKIT_TEST_MCP_SDK does not name an npm prefix with @modelcontextprotocol/sdk "+
			"(npm install --prefix DIR @modelcontextprotocol/sdk@%s): skipping the TypeScript SDK check", tsClientVersion)
	}
	var installed struct{ Version string }
	require.NoError(t, json.Unmarshal(raw, &installed))
	assert.Equal(t, tsClientVersion, installed.Version, "the version .ci/run pins")

	e := mustEnv(t)
	e.tokenTTL = time.Second
	e.restart()
	e.seedWorkedExample()
	e.user("acme", "bot@acme.test", "Account Admin")

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	script, err := filepath.Abs(filepath.Join("testdata", "mcp_client_credentials.cjs"))
	require.NoError(t, err)
	cmd := exec.CommandContext(ctx, node, script, e.srv.URL+mcpadapter.Path, "cid-acme-bot@acme.test", "secret-bot@acme.test",
		mcpadapter.ToolSearchProjects, "1500")
	cmd.Env = append(os.Environ(), "NODE_PATH="+filepath.Join(prefix, "node_modules"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "stderr: %s", stderr.String())

	var got struct {
		Tokens       int                               `json:"tokens"`
		Unauthorized int                               `json:"unauthorized"`
		Discovery    []string                          `json:"discovery"`
		Results      []mcpadapter.SearchProjectsOutput `json:"results"`
		Errors       []bool                            `json:"errors"`
		Capabilities map[string]map[string]any         `json:"capabilities"`
	}
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &got), stdout.String())
	t.Logf("%s", stdout.String())
	assert.Equal(t, []bool{false, false}, got.Errors)
	require.Len(t, got.Results, 2)
	for _, r := range got.Results {
		assert.Len(t, r.Projects, 1)
	}
	assert.Equal(t, 2, got.Tokens, "a token, then a new one when it expired")
	assert.Equal(t, 2, got.Unauthorized, "the first request, and the first after the expiry")
	assert.Contains(t, got.Discovery, mcpadapter.MetadataPath+" 200")
	assert.Contains(t, got.Discovery, httpadapter.AuthServerMetadataPath+" 200")
	assert.NotContains(t, got.Capabilities, "logging")
}
