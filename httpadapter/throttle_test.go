package httpadapter_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/scopekit/scopekit/httpadapter"
	"github.com/stretchr/testify/require"
)

// Throttling of the auth host with tiny limits (docs/auth.md "Throttling on the
// auth host"); each test finishes in a few seconds.

// tokenPost posts a token request from the given X-Forwarded-For ("" for
// none) and returns the answer.
func (ae *authEnv) tokenPost(t *testing.T, form url.Values, xff string) (int, http.Header, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, ae.srv.URL+"/oauth/token", strings.NewReader(form.Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if xff != "" {
		req.Header.Set("X-Forwarded-For", xff)
	}
	res, err := ae.srv.Client().Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	var body map[string]any
	require.NoError(t, json.NewDecoder(res.Body).Decode(&body))
	require.Equal(t, "application/json", res.Header.Get("Content-Type"))
	return res.StatusCode, res.Header, body
}

var badClient = url.Values{"grant_type": {"client_credentials"}, "client_id": {"nobody"}, "client_secret": {"x"}}

func botForm() url.Values {
	return url.Values{"grant_type": {"client_credentials"}, "client_id": {"cid-acme-bot@acme.test"}, "client_secret": {"secret-bot@acme.test"}}
}

// requireThrottled checks a 429 answer: an integer Retry-After of at
// least one second and an error object.
func requireThrottled(t *testing.T, status int, h http.Header, body map[string]any) int {
	t.Helper()
	require.Equal(t, http.StatusTooManyRequests, status, body)
	secs, err := strconv.Atoi(h.Get("Retry-After"))
	require.NoError(t, err, "Retry-After %q is an integer", h.Get("Retry-After"))
	require.GreaterOrEqual(t, secs, 1)
	require.Equal(t, "slow_down", body["error"])
	require.NotEmpty(t, body["error_description"])
	require.Equal(t, "no-store", h.Get("Cache-Control"))
	return secs
}

// Ensure an IP over its bucket gets 429 with Retry-After, an IP that
// keeps looping gets 403 without Retry-After for the block duration (on
// every POST of the auth host), and the API is never throttled.
func TestThrottle_PerIPAndBlock(t *testing.T) {
	ae := mustAuthEnv(t, func(s *httpadapter.Server) {
		s.Throttle = httpadapter.Throttle{Rate: 1, Burst: 2, BlockAfter: 3, BlockWindow: time.Minute, BlockFor: 2 * time.Second}
	})
	_, apiToken := ae.user("acme", "bot@acme.test", "Account Admin")
	for range 2 {
		status, _, body := ae.tokenPost(t, badClient, "")
		require.Equal(t, http.StatusUnauthorized, status, body)
	}
	for range 3 {
		status, h, body := ae.tokenPost(t, badClient, "")
		require.Equal(t, 1, requireThrottled(t, status, h, body))
	}
	start := time.Now()
	status, h, body := ae.tokenPost(t, botForm(), "")
	require.Equal(t, http.StatusForbidden, status, body)
	require.Empty(t, h.Get("Retry-After"))
	require.Equal(t, "access_denied", body["error"])

	// the block covers the login form and invitations, not the login page
	// nor the API
	c := ae.browser()
	form := ae.fetch(c, http.MethodGet, authorizeURL(goodAuthorize()), "", "")
	require.Equal(t, http.StatusOK, form.Status)
	v := form.hidden()
	v.Set("email", aeAdaEmail)
	v.Set("password", aePassword)
	p := ae.fetch(c, http.MethodPost, "/oauth/authorize", "application/x-www-form-urlencoded", v.Encode())
	require.Equal(t, http.StatusForbidden, p.Status, p.Body)
	require.Empty(t, p.Header.Get("Retry-After"))
	require.Contains(t, p.errorText(), "blocked")
	a := ae.accept("1.1.x", "application/x-www-form-urlencoded", formPassword("long enough password"))
	require.Equal(t, http.StatusForbidden, a.Status)
	for range 100 {
		require.Equal(t, http.StatusOK, ae.get("/v1/me", apiToken).Status)
	}

	time.Sleep(2*time.Second - time.Since(start) + 100*time.Millisecond)
	status, _, body = ae.tokenPost(t, botForm(), "")
	require.Equal(t, http.StatusOK, status, body)
}

// Ensure the 429 of the login form is a page with Retry-After.
func TestThrottle_LoginForm(t *testing.T) {
	ae := mustAuthEnv(t, func(s *httpadapter.Server) {
		s.Throttle = httpadapter.Throttle{Rate: 0.25, Burst: 1}
	})
	c := ae.browser()
	v := ae.fetch(c, http.MethodGet, authorizeURL(goodAuthorize()), "", "").hidden()
	v.Set("email", aeAdaEmail)
	v.Set("password", "wrong password")
	p := ae.fetch(c, http.MethodPost, "/oauth/authorize", "application/x-www-form-urlencoded", v.Encode())
	require.Equal(t, http.StatusBadRequest, p.Status)
	p = ae.fetch(c, http.MethodPost, "/oauth/authorize", "application/x-www-form-urlencoded", v.Encode())
	require.Equal(t, http.StatusTooManyRequests, p.Status)
	require.Equal(t, "4", p.Header.Get("Retry-After"), "a quarter request per second: 4 s, rounded up")
	require.Equal(t, "text/html; charset=utf-8", p.Header.Get("Content-Type"))
	require.NotEmpty(t, p.errorText())
}

// Ensure the global ceiling counts minted tokens only: a refused request
// gives its reservation back, and a minted one uses it up.
func TestThrottle_GlobalCeiling(t *testing.T) {
	ae := mustAuthEnv(t, func(s *httpadapter.Server) {
		s.Throttle = httpadapter.Throttle{Rate: 1000, Burst: 1000, GlobalRate: 1}
	})
	ae.user("acme", "bot@acme.test", "Account Admin")
	status, _, body := ae.tokenPost(t, badClient, "")
	require.Equal(t, http.StatusUnauthorized, status, body)
	start := time.Now()
	status, _, body = ae.tokenPost(t, botForm(), "")
	require.Equal(t, http.StatusOK, status, body)
	status, h, body := ae.tokenPost(t, botForm(), "")
	require.Equal(t, 1, requireThrottled(t, status, h, body))
	require.Contains(t, body["error_description"], "server")

	time.Sleep(time.Second - time.Since(start) + 100*time.Millisecond)
	status, _, body = ae.tokenPost(t, botForm(), "")
	require.Equal(t, http.StatusOK, status, body)
}

// Ensure X-Forwarded-For names the client only when the server trusts a
// proxy, and then its last entry.
func TestThrottle_ClientIP(t *testing.T) {
	limits := httpadapter.Throttle{Rate: 0.01, Burst: 1}
	t.Run("not trusted", func(t *testing.T) {
		ae := mustAuthEnv(t, func(s *httpadapter.Server) { s.Throttle = limits })
		status, _, _ := ae.tokenPost(t, badClient, "203.0.113.1")
		require.Equal(t, http.StatusUnauthorized, status)
		status, h, body := ae.tokenPost(t, badClient, "203.0.113.2")
		requireThrottled(t, status, h, body)
	})
	t.Run("trusted", func(t *testing.T) {
		trusted := limits
		trusted.TrustProxy = true
		ae := mustAuthEnv(t, func(s *httpadapter.Server) { s.Throttle = trusted })
		for _, ip := range []string{"203.0.113.1", "203.0.113.2", "198.51.100.7, 203.0.113.3"} {
			status, _, body := ae.tokenPost(t, badClient, ip)
			require.Equal(t, http.StatusUnauthorized, status, body)
		}
		status, h, body := ae.tokenPost(t, badClient, "203.0.113.3, 203.0.113.1")
		require.Equal(t, 100, requireThrottled(t, status, h, body))
		status, _, body = ae.tokenPost(t, badClient, "") // no header: the connection's address
		require.Equal(t, http.StatusUnauthorized, status, body)
	})
}
