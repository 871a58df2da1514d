package webapp_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

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
