package webapp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/scopekit/scopekit/webapp"
	"github.com/stretchr/testify/require"
)

// Ensure document generation is throttled per account as the API's is:
// past the burst, 429 with Retry-After and a message, and nothing queued.
func TestGenerationThrottled(t *testing.T) {
	e := newEnv(t)
	ws, err := webapp.New(webapp.Config{Svc: e.svc, Auth: e.auth, BaseURL: e.srv.URL, Key: testKey, DocumentRate: 0.001, DocumentBurst: 1})
	require.NoError(t, err)
	token, sess, err := e.svc.StartSession(context.Background(), e.accts["acme"], e.users["ada@acme.test"])
	require.NoError(t, err)
	pid := e.seeded["acme"].ProjectID
	generate := func(once string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, "/app/acme/projects/"+pid+"/documents",
			strings.NewReader(formOf("document-type", "pricing", "once", once).Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("X-CSRF-Token", sess.CSRF)
		req.AddCookie(&http.Cookie{Name: "scopekit_session", Value: token})
		rec := httptest.NewRecorder()
		ws.Handler().ServeHTTP(rec, req)
		return rec
	}
	require.Equal(t, http.StatusSeeOther, generate(strings.Repeat("a", 20)).Code)
	rec := generate(strings.Repeat("b", 20))
	require.Equal(t, http.StatusTooManyRequests, rec.Code)
	require.NotEmpty(t, rec.Header().Get("Retry-After"))
	require.Contains(t, rec.Body.String(), "Too many documents")
	require.Equal(t, 1, e.count("acme", "project-documents", "project", pid))
}
