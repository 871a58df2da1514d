package httpadapter_test

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Ensure Allow is truthful: the token endpoint used to announce DELETE,
// GET, PATCH and PUT; a read-only type announced writes. Every method
// Allow names is answered by something other than 405, and a method it
// does not name is 405.
func TestAllowIsTruthful(t *testing.T) {
	e := mustEnv(t)
	tok := e.admin()
	proj := projectFixture(e, tok)
	for _, tc := range []struct{ path, allow string }{
		{"/oauth/token", "OPTIONS, POST"},
		{"/oauth/invitations/abc/accept", "OPTIONS, POST"},
		{"/oauth/authorize", "GET, HEAD, OPTIONS, POST"},
		{"/oauth/authorize/mfa", "OPTIONS, POST"},
		{"/v2/clients", "GET, HEAD, OPTIONS, POST"},
		{"/v2/clients/1", "DELETE, GET, HEAD, OPTIONS, PATCH"},
		{"/acme/v1/approval-steps", "GET, HEAD, OPTIONS, POST"}, // legacy import
		{"/acme/v1/approval-steps/1", "GET, HEAD, OPTIONS"},
		{"/v2/webhook-publications", "GET, HEAD, OPTIONS"},
		{"/acme/v1/projects/" + proj + "/submit", "OPTIONS, POST"},
		{"/acme/v1/projects/" + proj + "/pricing", "GET, HEAD, OPTIONS"},
		{"/acme/v1/projects/" + proj + "/project-services", "GET, HEAD, OPTIONS"},
		{"/acme/v1/account", "GET, HEAD, OPTIONS, PATCH"},
		{"/acme/v1/document-templates/1/file", "GET, HEAD, OPTIONS, PUT"},
		{"/v2/project-documents/1/download", "GET, HEAD, OPTIONS"},
		{"/v1/me", "GET, HEAD, OPTIONS, PATCH"},
		{"/", "GET, HEAD, OPTIONS"},
	} {
		r := e.req(http.MethodOptions, tc.path, "", "")
		require.Contains(t, []int{200, 204}, r.Status, "OPTIONS %s: %s", tc.path, r.Body)
		assert.Equal(t, tc.allow, r.Header.Get("Allow"), "OPTIONS %s", tc.path)
		for _, m := range []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "FROB"} {
			r := e.req(m, tc.path, tok, "")
			allowed := strings.Contains(", "+tc.allow+",", ", "+m+",")
			if allowed {
				assert.NotEqual(t, http.StatusMethodNotAllowed, r.Status, "%s %s is announced but refused", m, tc.path)
				continue
			}
			assert.Equal(t, http.StatusMethodNotAllowed, r.Status, "%s %s: %s", m, tc.path, r.Body)
			assert.Equal(t, tc.allow, r.Header.Get("Allow"), "%s %s", m, tc.path)
		}
	}
}

// Ensure HEAD works wherever GET does: the same status and headers, no
// body (it used to be 405 on every GET route).
func TestHeadLikeGet(t *testing.T) {
	e := mustEnv(t)
	tok := e.admin()
	proj := projectFixture(e, tok)
	for _, path := range []string{"/v2/clients", "/v2/projects/" + proj, "/acme/v1/projects/" + proj + "/pricing",
		"/acme/v1/projects/" + proj + "/project-services", "/v1/me", "/acme/v1/account", "/docs/v1", "/", "/v2/nothing", "/v2/projects/999"} {
		get := e.newRequest(e.srv.URL, http.MethodGet, path, tok, "")
		head := e.newRequest(e.srv.URL, http.MethodHead, path, tok, "")
		gr, err := http.DefaultClient.Do(get)
		require.NoError(t, err)
		gbody, _ := io.ReadAll(gr.Body)
		gr.Body.Close()
		hr, err := http.DefaultClient.Do(head)
		require.NoError(t, err)
		hbody, _ := io.ReadAll(hr.Body)
		hr.Body.Close()
		assert.Equal(t, gr.StatusCode, hr.StatusCode, "HEAD %s", path)
		assert.Empty(t, hbody, "HEAD %s has a body", path)
		assert.NotEmpty(t, bytes.TrimSpace(gbody), "GET %s", path)
		for _, h := range []string{"Content-Type", "Cache-Control", "Allow"} {
			assert.Equal(t, gr.Header.Get(h), hr.Header.Get(h), "HEAD %s: %s", path, h)
		}
	}
	// without a token HEAD is 401 like GET
	r := e.req(http.MethodHead, "/v2/clients", "", "")
	assert.Equal(t, http.StatusUnauthorized, r.Status)
}
