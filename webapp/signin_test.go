package webapp_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/scopekit/scopekit/webapp"
	"github.com/stretchr/testify/require"
)

// Ensure a person signs in through the login page and lands on the
// account's projects, with a session cookie that is HttpOnly and
// SameSite=Lax, and the pages carry the strict headers.
func TestSignIn(t *testing.T) {
	e := newEnv(t)
	b := e.browser()
	p := b.signIn("acme", "ada@acme.test")
	require.Equal(t, http.StatusOK, p.Status, p.Body)
	require.True(t, strings.HasSuffix(p.URL, "/app/acme/projects"), p.URL)
	require.Contains(t, p.Body, "Globex firewall refresh")
	csp := p.Header.Get("Content-Security-Policy")
	require.Contains(t, csp, "script-src 'self'")
	require.Contains(t, csp, "frame-ancestors 'none'")
	require.NotContains(t, csp, "unsafe-inline")
	require.Equal(t, "same-origin", p.Header.Get("Referrer-Policy"))
	require.NotContains(t, p.Body, "<script>", "no inline script")

	u, _ := url.Parse(e.srv.URL)
	var found bool
	for _, c := range b.c.Jar.Cookies(u) {
		if c.Name == "scopekit_session" {
			found = true
		}
	}
	require.True(t, found)
}

// Ensure over TLS (an https base URL) the cookies take the __Host- prefix
// and are Secure, HttpOnly and SameSite=Lax, with the path /.
func TestCookiesOverTLS(t *testing.T) {
	e := newEnv(t)
	ws, err := webapp.New(webapp.Config{Svc: e.svc, Auth: e.auth, BaseURL: "https://scope.example.com", Key: testKey})
	require.NoError(t, err)
	rec := httptest.NewRecorder()
	ws.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "https://scope.example.com/app/signin?account=acme", nil))
	require.Equal(t, http.StatusSeeOther, rec.Code)
	require.True(t, strings.HasPrefix(rec.Header().Get("Location"), "https://scope.example.com/oauth/authorize?"), rec.Header().Get("Location"))
	loc, _ := url.Parse(rec.Header().Get("Location"))
	require.Equal(t, "https://scope.example.com/app/callback", loc.Query().Get("redirect_uri"))
	require.Equal(t, "S256", loc.Query().Get("code_challenge_method"))
	cookies := rec.Result().Cookies()
	require.Len(t, cookies, 1)
	c := cookies[0]
	require.Equal(t, "__Host-scopekit_signin", c.Name)
	require.True(t, c.Secure && c.HttpOnly)
	require.Equal(t, http.SameSiteLaxMode, c.SameSite)
	require.Equal(t, "/", c.Path)
}

// Ensure a service account cannot sign in to the workspace (the login
// page refuses it, and no session begins), an unknown account is told,
// and a callback without the sign-in's state is refused.
func TestSignInRefusals(t *testing.T) {
	e := newEnv(t)
	b := e.browser()
	p := b.signIn("acme", "bot@acme.test")
	require.Equal(t, http.StatusForbidden, p.Status)
	require.Contains(t, p.Body, "Service accounts cannot sign in")
	require.Contains(t, b.get("/app/acme/projects").URL, "/oauth/authorize", "no session")

	p = b.get("/app/signin?account=nobody")
	require.Equal(t, http.StatusNotFound, p.Status)
	require.Contains(t, p.Body, "no account with that short name")

	p = b.get("/app/callback?code=x&state=y")
	require.Equal(t, http.StatusBadRequest, p.Status)
	require.Contains(t, p.Body, "expired or began in another browser")

	// a state of this browser with a code that is not the server's
	login := b.get("/app/signin?account=acme")
	state := login.hidden().Get("state")
	p = b.get("/app/callback?code=forged&state=" + url.QueryEscape(state))
	require.Equal(t, http.StatusForbidden, p.Status)
	require.Contains(t, p.Body, "could not be completed")
	require.Contains(t, b.get("/app/acme/projects").URL, "/oauth/authorize", "no session")

	// an htmx change without a session is told where to sign in
	p = b.post("/app/acme/projects/1/lines/services/1", formOf("quantity", "2"), true)
	require.Equal(t, http.StatusUnauthorized, p.Status)
	require.Contains(t, p.Header.Get("HX-Redirect"), "/app/signin?account=acme")
}
