package main

import (
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Ensure the example server serves the workspace at /app/: the demo's
// admin signs in there through the login page, with the banner's
// credentials, and sees the demo project.
func TestWorkspaceMounted(t *testing.T) {
	s := startServer(t, "", nil)
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	c := &http.Client{Jar: jar}
	get := func(u string) (*http.Response, string) {
		t.Helper()
		res, err := c.Get(u)
		require.NoError(t, err)
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		require.NoError(t, err)
		return res, string(b)
	}
	res, body := get(s.URL + "/app/")
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.Contains(t, body, "Sign in to the workspace")

	res, body = get(s.URL + "/app/signin?account=demo")
	require.Equal(t, http.StatusOK, res.StatusCode, body)
	require.Equal(t, "/oauth/authorize", res.Request.URL.Path)
	form := url.Values{"email": {demoAdminEmail}, "password": {demoAdminPassword}}
	for _, m := range regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`).FindAllStringSubmatch(body, -1) {
		form.Set(html.UnescapeString(m[1]), html.UnescapeString(m[2]))
	}
	res, err = c.Post(s.URL+"/oauth/authorize", "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
	require.NoError(t, err)
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode, string(b))
	require.Equal(t, "/app/demo/projects", res.Request.URL.Path)
	require.Contains(t, string(b), demoProjectName)
}
