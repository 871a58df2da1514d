package httpadapter_test

import (
	"context"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/scopekit/scopekit/httpadapter"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2"
)

// The login page of the authorization code flow and the auth host's
// refusal of bad input (docs/auth.md "GET /oauth/authorize").

func authorizeURL(q url.Values) string { return "/oauth/authorize?" + q.Encode() }

func goodAuthorize() url.Values {
	return url.Values{"response_type": {"code"}, "client_id": {aePortalID}, "redirect_uri": {aeCallback}, "state": {"st"}}
}

func withParams(v url.Values, kv ...string) url.Values {
	c := url.Values{}
	for k, vs := range v {
		c[k] = append([]string(nil), vs...)
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == "" {
			c.Del(kv[i])
		} else {
			c.Set(kv[i], kv[i+1])
		}
	}
	return c
}

// requireSafePage checks the headers every page of the auth host carries.
func requireSafePage(t *testing.T, p *page) {
	t.Helper()
	require.Equal(t, "text/html; charset=utf-8", p.Header.Get("Content-Type"))
	require.Equal(t, "no-store", p.Header.Get("Cache-Control"))
	require.Equal(t, "DENY", p.Header.Get("X-Frame-Options"))
	require.Equal(t, "nosniff", p.Header.Get("X-Content-Type-Options"))
	require.Equal(t, "no-referrer", p.Header.Get("Referrer-Policy"))
	csp := p.Header.Get("Content-Security-Policy")
	require.Contains(t, csp, "default-src 'none'")
	require.Contains(t, csp, "frame-ancestors 'none'")
	require.NotContains(t, p.Body, "<script")
	require.Empty(t, p.Location)
	require.True(t, strings.HasPrefix(p.Body, "<!doctype html>"), p.Body)
}

// Ensure the login page is a real, safe page: escaped output, a CSRF
// cookie and token, the request in hidden fields, no secrets.
func TestAuthorizePage(t *testing.T) {
	ae := mustAuthEnv(t, nil)
	ctx := context.Background()
	const evilName = `<script>alert("name")</script> & Co`
	require.NoError(t, ae.auth.RegisterApplication(ctx, ae.accts["acme"], evilName, aePortalID, aePortalSecret,
		[]string{aeCallback, "http://127.0.0.1:9999/cb?app=1"}))
	evilState := `"><script>alert('state')</script>`
	p := ae.fetch(ae.browser(), http.MethodGet, authorizeURL(withParams(goodAuthorize(), "state", evilState)), "", "")
	require.Equal(t, http.StatusOK, p.Status, p.Body)
	requireSafePage(t, p)
	require.Contains(t, p.Body, "&lt;script&gt;alert(&#34;name&#34;)&lt;/script&gt; &amp; Co")
	require.NotContains(t, p.Body, aePortalSecret)
	require.Contains(t, p.Body, `<form method="post" action="authorize"`)
	require.Contains(t, p.Body, `name="email"`)
	require.Contains(t, p.Body, `type="password"`)
	h := p.hidden()
	require.Equal(t, evilState, h.Get("state"), "round-trips escaped")
	require.Equal(t, aeCallback, h.Get("redirect_uri"))
	require.Equal(t, aePortalID, h.Get("client_id"))
	require.Len(t, h.Get("csrf_token"), 43)
	cookie := p.Header.Get("Set-Cookie")
	require.Contains(t, cookie, "scopekit_csrf=")
	require.Contains(t, cookie, "HttpOnly")
	require.Contains(t, cookie, "SameSite=Lax")
	require.NotContains(t, cookie, h.Get("csrf_token"), "the form token is not the cookie")

	_, ans := ae.signIn(authorizeURL(withParams(goodAuthorize(), "state", evilState)), aeAdaEmail, aePassword)
	_, state := codeFrom(t, ans)
	require.Equal(t, evilState, state)
	require.Equal(t, "no-store", ans.Header.Get("Cache-Control"))

	// a registered URI with a query keeps it
	_, ans = ae.signIn(authorizeURL(withParams(goodAuthorize(), "redirect_uri", "http://127.0.0.1:9999/cb?app=1")), aeAdaEmail, aePassword)
	require.Equal(t, http.StatusFound, ans.Status, ans.Body)
	require.True(t, strings.HasPrefix(ans.Location, "http://127.0.0.1:9999/cb?app=1&code="), ans.Location)
	require.True(t, strings.HasSuffix(ans.Location, "&state=st"), ans.Location)
}

// Ensure a request whose client or redirect URI cannot be trusted gets an
// error page and never a redirect, and other bad requests are sent back
// to the (verified) redirect URI with error and state.
func TestAuthorizePage_BadRequests(t *testing.T) {
	ae := mustAuthEnv(t, nil)
	ae.user("acme", "bot@acme.test", "Account Admin")
	for _, tt := range []struct {
		name  string
		query string
	}{
		{"unregistered redirect_uri", authorizeURL(withParams(goodAuthorize(), "redirect_uri", "https://evil.test/callback"))},
		{"redirect_uri with a trailing slash", authorizeURL(withParams(goodAuthorize(), "redirect_uri", aeCallback+"/"))},
		{"redirect_uri with another port", authorizeURL(withParams(goodAuthorize(), "redirect_uri", "http://127.0.0.1:9998/callback"))},
		{"redirect_uri missing", authorizeURL(withParams(goodAuthorize(), "redirect_uri", ""))},
		{"unknown client", authorizeURL(withParams(goodAuthorize(), "client_id", "nobody"))},
		{"service-account client id", authorizeURL(withParams(goodAuthorize(), "client_id", "cid-acme-bot@acme.test"))},
		{"client_id missing", authorizeURL(withParams(goodAuthorize(), "client_id", ""))},
		{"repeated redirect_uri", authorizeURL(goodAuthorize()) + "&redirect_uri=https%3A%2F%2Fevil.test%2F"},
		{"repeated client_id", authorizeURL(goodAuthorize()) + "&client_id=" + aePortalID},
		{"repeated state", authorizeURL(goodAuthorize()) + "&state=2"},
		{"malformed query", "/oauth/authorize?client_id=%zz&redirect_uri=" + url.QueryEscape(aeCallback)},
		{"semicolons", "/oauth/authorize?client_id=" + aePortalID + ";redirect_uri=" + url.QueryEscape(aeCallback)},
		{"no query", "/oauth/authorize"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := ae.fetch(ae.browser(), http.MethodGet, tt.query, "", "")
			require.Equal(t, http.StatusBadRequest, p.Status, p.Body)
			requireSafePage(t, p)
			require.NotEmpty(t, p.errorText())
			require.NotContains(t, p.Body, "<form")
		})
	}
	for _, tt := range []struct {
		name, code string
		query      url.Values
	}{
		{"response_type token", "unsupported_response_type", withParams(goodAuthorize(), "response_type", "token")},
		{"response_type missing", "unsupported_response_type", withParams(goodAuthorize(), "response_type", "")},
		{"plain PKCE", "invalid_request", withParams(goodAuthorize(), "code_challenge", oauth2.S256ChallengeFromVerifier(oauth2.GenerateVerifier()), "code_challenge_method", "plain")},
		{"challenge without method", "invalid_request", withParams(goodAuthorize(), "code_challenge", oauth2.S256ChallengeFromVerifier(oauth2.GenerateVerifier()))},
		{"malformed challenge", "invalid_request", withParams(goodAuthorize(), "code_challenge", "short", "code_challenge_method", "S256")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := ae.fetch(ae.browser(), http.MethodGet, authorizeURL(tt.query), "", "")
			require.Equal(t, http.StatusFound, p.Status, p.Body)
			u, err := url.Parse(p.Location)
			require.NoError(t, err)
			require.Equal(t, aeCallback, u.Scheme+"://"+u.Host+u.Path)
			require.Equal(t, tt.code, u.Query().Get("error"))
			require.NotEmpty(t, u.Query().Get("error_description"))
			require.Equal(t, "st", u.Query().Get("state"))
			require.Empty(t, u.Query().Get("code"))
		})
	}
}

// Ensure service accounts, invited and deactivated users, members of
// other accounts and wrong passwords get the form back with an error and
// no code.
func TestAuthorizePage_LoginRefused(t *testing.T) {
	ae := mustAuthEnv(t, nil)
	ctx := context.Background()
	admin := ae.admin()
	bot := ae.member("acme", "robot@acme.test", "Account Admin", "active", "service")
	require.NoError(t, ae.auth.SetPassword(ctx, bot, "a robot's password"))
	ae.invite("acme", admin, "Ivy", "ivy@acme.test")
	dan := ae.member("acme", "dan@acme.test", "Sales", "active", "standard")
	require.NoError(t, ae.auth.SetPassword(ctx, dan, "dan's password!!"))
	require.Equal(t, http.StatusNoContent, ae.req(http.MethodDelete, "/acme/v1/users/"+dan, admin, "").Status)
	ola := ae.member("globex", "ola@globex.test", "Account Admin", "active", "standard")
	require.NoError(t, ae.auth.SetPassword(ctx, ola, "ola's password!!"))
	for _, tt := range []struct {
		name, email, password string
		status                int
		mention               string
	}{
		{"wrong password", aeAdaEmail, "not the password", http.StatusBadRequest, "incorrect"},
		{"unknown email", "who@nowhere.test", aePassword, http.StatusBadRequest, "incorrect"},
		{"service account", "robot@acme.test", "a robot's password", http.StatusForbidden, "Service accounts"},
		{"invited", "ivy@acme.test", "whatever it is", http.StatusForbidden, "invitation"},
		{"deactivated", "dan@acme.test", "dan's password!!", http.StatusForbidden, "deactivated"},
		{"member of another account", "ola@globex.test", "ola's password!!", http.StatusForbidden, "not a member"},
		{"email missing", "", aePassword, http.StatusBadRequest, "Enter your email"},
		{"password missing", aeAdaEmail, "", http.StatusBadRequest, "Enter your email"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, ans := ae.signIn(authorizeURL(goodAuthorize()), tt.email, tt.password)
			require.Equal(t, tt.status, ans.Status, ans.Body)
			requireSafePage(t, ans)
			require.Contains(t, ans.errorText(), tt.mention)
			require.Contains(t, ans.Body, "<form", "the form is shown again")
			if tt.email != "" {
				require.Contains(t, ans.Body, `value="`+tt.email+`"`, "the email is kept")
			}
			if tt.password != "" {
				require.NotContains(t, ans.Body, tt.password, "the password is not")
			}
		})
	}
}

// Ensure the login form is refused without a CSRF token that goes with
// the browser's cookie.
func TestAuthorizePage_CSRF(t *testing.T) {
	ae := mustAuthEnv(t, nil)
	c := ae.browser()
	form := ae.fetch(c, http.MethodGet, authorizeURL(goodAuthorize()), "", "")
	require.Equal(t, http.StatusOK, form.Status)
	good := form.hidden()
	good.Set("email", aeAdaEmail)
	good.Set("password", aePassword)
	other := ae.fetch(ae.browser(), http.MethodGet, authorizeURL(goodAuthorize()), "", "").hidden().Get("csrf_token")

	post := func(c *http.Client, v url.Values) *page {
		return ae.fetch(c, http.MethodPost, "/oauth/authorize", "application/x-www-form-urlencoded", v.Encode())
	}
	for name, v := range map[string]url.Values{
		"token missing":                              withParams(good, "csrf_token", ""),
		"token of another browser":                   withParams(good, "csrf_token", other),
		"token tampered":                             withParams(good, "csrf_token", strings.ToUpper(good.Get("csrf_token"))),
		"token with the cookie's length but garbage": withParams(good, "csrf_token", strings.Repeat("A", 43)),
	} {
		t.Run(name, func(t *testing.T) {
			p := post(c, v)
			require.Equal(t, http.StatusForbidden, p.Status, p.Body)
			requireSafePage(t, p)
			require.Contains(t, p.errorText(), "expired")
		})
	}
	t.Run("no cookie", func(t *testing.T) {
		p := post(ae.browser(), good)
		require.Equal(t, http.StatusForbidden, p.Status, p.Body)
		require.Empty(t, p.Location)
	})
	t.Run("repeated token", func(t *testing.T) {
		p := ae.fetch(c, http.MethodPost, "/oauth/authorize", "application/x-www-form-urlencoded", good.Encode()+"&csrf_token="+good.Get("csrf_token"))
		require.Equal(t, http.StatusBadRequest, p.Status, p.Body)
	})
	t.Run("the right token", func(t *testing.T) {
		codeFrom(t, post(c, good))
		codeFrom(t, post(c, good)) // the form may be sent again (back button)
	})
}

// Ensure no bad input to the auth host answers 5xx: malformed forms and
// queries, repeated parameters, oversized bodies, wrong content types and
// methods, on every route of the auth host, then random garbage.
func TestAuthHost_BadInputNever500(t *testing.T) {
	ae := mustAuthEnv(t, func(s *httpadapter.Server) { s.Throttle.Disabled = true })
	admin := ae.admin()
	_, invitation := ae.invite("acme", admin, "Vic", "vic@acme.test")
	c := ae.browser()
	form := ae.fetch(c, http.MethodGet, authorizeURL(goodAuthorize()), "", "")
	login := form.hidden()
	login.Set("email", aeAdaEmail)
	login.Set("password", aePassword)
	const formType, jsonType = "application/x-www-form-urlencoded", "application/json"
	big := strings.Repeat("x", 70<<10)
	acceptPath := "/oauth/invitations/" + invitation + "/accept"
	type req struct {
		method, path, contentType, body string
		status                          int
	}
	rows := []req{
		// the token endpoint through the whole server (throttle included)
		{"POST", "/oauth/token", formType, "grant_type=password&grant_type=password", 400},
		{"POST", "/oauth/token", jsonType, `{"grant_type":"client_credentials"}`, 400},
		{"POST", "/oauth/token", formType, "grant_type=authorization_code&code=%zz", 400},
		{"POST", "/oauth/token", formType, "grant_type=client_credentials&pad=" + big, 413},
		{"POST", "/oauth/token", formType, url.Values{"grant_type": {"authorization_code"}, "client_id": {aePortalID},
			"client_secret": {aePortalSecret}, "code": {"x"}, "redirect_uri": {aeCallback}, "code_verifier": {"bad"}}.Encode(), 400},
		{"DELETE", "/oauth/token", "", "", 405},
		// the login form
		{"POST", "/oauth/authorize", "text/plain", login.Encode(), 415},
		{"POST", "/oauth/authorize", "", login.Encode(), 415},
		{"POST", "/oauth/authorize", "multipart/form-data; boundary=x", login.Encode(), 415},
		{"POST", "/oauth/authorize", "application/x-www-form-urlencoded; ;;", login.Encode(), 415},
		{"POST", "/oauth/authorize", formType, login.Encode() + "&pad=" + big, 413},
		{"POST", "/oauth/authorize", formType, "email=%zz", 400},
		{"POST", "/oauth/authorize", formType, login.Encode() + "&email=x@y.test", 400},
		{"POST", "/oauth/authorize", formType, login.Encode() + "&password=x", 400},
		{"POST", "/oauth/authorize", formType, login.Encode() + "&redirect_uri=https%3A%2F%2Fevil.test", 400},
		{"POST", "/oauth/authorize", formType, withParams(login, "redirect_uri", "https://evil.test").Encode(), 400},
		{"POST", "/oauth/authorize", formType, withParams(login, "client_id", "").Encode(), 400},
		{"POST", "/oauth/authorize", formType, withParams(login, "code_challenge_method", "S256").Encode(), 302},
		{"POST", "/oauth/authorize", formType, "", 400},
		{"PUT", "/oauth/authorize", formType, login.Encode(), 405},
		{"GET", "/oauth/authorize?" + strings.Repeat("%", 100), "", "", 400},
		{"GET", "/oauth/authorize?client_id=" + url.QueryEscape(big), "", "", 400},
		// invitations
		{"POST", acceptPath, "text/plain", "password=long+enough+password", 415},
		{"POST", acceptPath, "", "password=long+enough+password", 415},
		{"POST", acceptPath, "application/vnd.api+json", `{"password":"long enough password"}`, 415},
		{"POST", acceptPath, formType, "password=a&password=b", 400},
		{"POST", acceptPath, formType, "pass=word", 400},
		{"POST", acceptPath, formType, "password=%zz", 400},
		{"POST", acceptPath, formType, "password=" + big, 413},
		{"POST", acceptPath, jsonType, `{"password":"long enough password","password":"another long one"}`, 400},
		{"POST", acceptPath, jsonType, `{"password":12345678901234}`, 400},
		{"POST", acceptPath, jsonType, `{"password":null}`, 400},
		{"POST", acceptPath, jsonType, `["password"]`, 400},
		{"POST", acceptPath, jsonType, `"password"`, 400},
		{"POST", acceptPath, jsonType, `{"password":"long enough password"`, 400},
		{"POST", acceptPath, jsonType, `{"password":"long enough password"} {}`, 400},
		{"POST", acceptPath, jsonType, ``, 400},
		{"POST", acceptPath, jsonType, `{}`, 400},
		{"POST", acceptPath, jsonType, "{\"password\":\"\xff\xfe long enough\"}", 204},
		{"GET", acceptPath, "", "", 405},
		{"PATCH", acceptPath, jsonType, `{"password":"long enough password"}`, 405},
		{"POST", "/oauth/invitations/" + strings.Repeat("9", 5000) + "/accept", formType, "password=long+enough+password", 404},
		{"POST", "/oauth/invitations/%00/accept", formType, "password=long+enough+password", 404},
		{"POST", "/oauth/invitations/a.b.c/accept", formType, "password=long+enough+password", 404},
		{"POST", "/oauth/invitations//accept", formType, "password=long+enough+password", 404},
		{"POST", "/oauth/invitations/x/accept/more", formType, "", 404},
		{"POST", "/oauth/nothing", formType, "", 404},
	}
	for _, r := range rows {
		t.Run(r.method+" "+r.path[:min(len(r.path), 60)]+" "+r.contentType+" "+r.body[:min(len(r.body), 40)], func(t *testing.T) {
			p := ae.fetch(c, r.method, r.path, r.contentType, r.body)
			require.Equal(t, r.status, p.Status, p.Body[:min(len(p.Body), 500)])
		})
	}

	rng := rand.New(rand.NewPCG(1, 2))
	garbage := func() string {
		const alphabet = "abc=&%;+ \x00\xff{}[]\":,.\\/?#é"
		n := rng.IntN(200)
		var b strings.Builder
		for range n {
			b.WriteByte(alphabet[rng.IntN(len(alphabet))])
		}
		return b.String()
	}
	types := []string{"", formType, jsonType, "text/html", "application/x-www-form-urlencoded; charset=%", "multipart/form-data"}
	paths := []string{"/oauth/token", "/oauth/authorize", acceptPath, "/oauth/invitations/1.1.x/accept"}
	for i := range 600 {
		method := []string{"GET", "POST", "PUT", "DELETE"}[rng.IntN(4)]
		path := paths[i%len(paths)]
		body := garbage()
		if method == "GET" && path == "/oauth/authorize" {
			path += "?" + url.PathEscape(garbage())
		}
		req, err := http.NewRequest(method, ae.srv.URL+path, strings.NewReader(body))
		require.NoError(t, err)
		if ct := types[rng.IntN(len(types))]; ct != "" {
			req.Header["Content-Type"] = []string{ct}
		}
		res, err := c.Do(req)
		require.NoError(t, err)
		res.Body.Close()
		assert.Less(t, res.StatusCode, 500, "%s %s %q %q", method, path, req.Header.Get("Content-Type"), body)
	}
}
