package httpadapter_test

import (
	"encoding/base64"
	"html"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"
	"github.com/scopekit/scopekit/httpadapter"
	"github.com/stretchr/testify/require"
)

// Two-step verification end to end (docs/auth.md "Two-step
// verification"): the login page's second step, the password grant's
// mfa_code, the account's mfa-required and the administrators' reset.

// mfaEnv is an authEnv whose auth service's clock stands still at now,
// so that TOTP steps do not turn over in the middle of a test, and whose
// server logs everything into log.
type mfaEnv struct {
	*authEnv
	now time.Time
	log *oauthSyncBuffer
}

func mustMFAEnv(t *testing.T, edit func(*httpadapter.Server)) *mfaEnv {
	t.Helper()
	me := &mfaEnv{now: time.Now().Truncate(30 * time.Second).Add(10 * time.Second), log: &oauthSyncBuffer{}}
	me.authEnv = mustAuthEnv(t, func(s *httpadapter.Server) {
		s.Auth.Now = func() time.Time { return me.now }
		s.Logger = slog.New(slog.NewTextHandler(me.log, &slog.HandlerOptions{Level: slog.LevelDebug}))
		if edit != nil {
			edit(s)
		}
	})
	return me
}

// code is the authenticator's code for the seed, steps time steps from
// the clock's.
func (me *mfaEnv) code(secret string, steps int) string {
	me.t.Helper()
	c, err := totp.GenerateCode(secret, me.now.Add(time.Duration(steps)*30*time.Second))
	require.NoError(me.t, err)
	return c
}

// password posts the login form in browser c (opening authURL first) and
// returns the answer: a 302, the second step's page or the form again.
func (me *mfaEnv) password(c *http.Client, authURL, email, password string, setUp bool) *page {
	me.t.Helper()
	form := me.fetch(c, http.MethodGet, authURL, "", "")
	require.Equal(me.t, http.StatusOK, form.Status, form.Body)
	require.Contains(me.t, form.Body, `name="mfa_setup"`)
	v := form.hidden()
	v.Set("email", email)
	v.Set("password", password)
	if setUp {
		v.Set("mfa_setup", "1")
	}
	return me.fetch(c, http.MethodPost, "/oauth/authorize", "application/x-www-form-urlencoded", v.Encode())
}

// secondStep posts code with the hidden fields of the second step's page p.
func (me *mfaEnv) secondStep(c *http.Client, p *page, code string) *page {
	me.t.Helper()
	v := p.hidden()
	require.NotEmpty(me.t, v.Get("mfa_ticket"), p.Body)
	v.Set("mfa_code", code)
	return me.fetch(c, http.MethodPost, "/oauth/authorize/mfa", "application/x-www-form-urlencoded", v.Encode())
}

// enrolment reads the enrolment page: the key and the recovery codes.
func enrolment(t *testing.T, p *page) (secret string, recovery []string) {
	t.Helper()
	m := regexp.MustCompile(`<code id="secret">([A-Z2-7 ]+)</code>`).FindStringSubmatch(p.Body)
	require.NotNil(t, m, p.Body)
	for _, r := range regexp.MustCompile(`<li><code>([a-z2-7-]+)</code></li>`).FindAllStringSubmatch(p.Body, -1) {
		recovery = append(recovery, r[1])
	}
	return strings.ReplaceAll(m[1], " ", ""), recovery
}

// enrolAda sets up ada's second factor through the login page (as its
// checkbox asks) and returns the key and recovery codes. The confirming
// code is the previous step's, so that this step's and the next are
// left for the test.
func (me *mfaEnv) enrolAda() (secret string, recovery []string) {
	me.t.Helper()
	c := me.browser()
	p := me.password(c, authorizeURL(goodAuthorize()), aeAdaEmail, aePassword, true)
	require.Equal(me.t, http.StatusOK, p.Status, p.Body)
	secret, recovery = enrolment(me.t, p)
	codeFrom(me.t, me.secondStep(c, p, me.code(secret, -1)))
	return secret, recovery
}

// Ensure the enrolment page shows the QR code (a PNG the page's CSP
// admits), the key and ten recovery codes, safely; that a wrong code
// shows it again with the same codes; and that the right one signs in.
func TestMFA_EnrolmentPage(t *testing.T) {
	me := mustMFAEnv(t, nil)
	c := me.browser()
	p := me.password(c, authorizeURL(goodAuthorize()), aeAdaEmail, "not the password", true)
	require.Equal(t, http.StatusBadRequest, p.Status, "the password comes first")
	p = me.password(c, authorizeURL(goodAuthorize()), aeAdaEmail, aePassword, true)
	require.Equal(t, http.StatusOK, p.Status, p.Body)
	requireSafePage(t, p)
	require.Contains(t, p.Header.Get("Content-Security-Policy"), "; img-src data:")
	require.Contains(t, p.Body, "Set up two-step verification")
	src := regexp.MustCompile(`<img id="qr" src="data:image/png;base64,([^"]+)"`).FindStringSubmatch(p.Body)
	require.NotNil(t, src, p.Body)
	png, err := base64.StdEncoding.DecodeString(html.UnescapeString(src[1]))
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(png), "\x89PNG\r\n"))
	secret, recovery := enrolment(t, p)
	require.Len(t, secret, 32)
	require.Len(t, recovery, 10)
	h := p.hidden()
	require.Equal(t, "st", h.Get("state"))
	require.Equal(t, aeCallback, h.Get("redirect_uri"))
	require.NotContains(t, p.Body, aePassword)

	again := me.secondStep(c, p, "000000")
	require.Equal(t, http.StatusBadRequest, again.Status)
	require.Contains(t, again.errorText(), "not right")
	s2, r2 := enrolment(t, again)
	require.Equal(t, secret, s2)
	require.Equal(t, recovery, r2)

	code, state := codeFrom(t, me.secondStep(c, again, me.code(secret, 0)))
	require.Equal(t, "st", state)
	tok, err := me.portal(0).Exchange(me.ctx(), code)
	require.NoError(t, err)
	require.Equal(t, me.adaID, me.meAs(t, tok.AccessToken))
}

// Ensure an enrolled user gets the code form after the password (a plain
// page: no image allowed), and that a wrong code, a replayed code and a
// used recovery code are refused while the right ones sign in; the
// checks are in the page's form answers, an expired ticket ends on an
// error page, and a form without its CSRF token is refused.
func TestMFA_CodeStep(t *testing.T) {
	me := mustMFAEnv(t, nil)
	secret, recovery := me.enrolAda()
	step := func(code string) *page {
		t.Helper()
		c := me.browser()
		p := me.password(c, authorizeURL(goodAuthorize()), aeAdaEmail, aePassword, false)
		require.Equal(t, http.StatusOK, p.Status, p.Body)
		require.Contains(t, p.Body, "Two-step verification")
		require.NotContains(t, p.Body, "<img")
		require.NotContains(t, p.Header.Get("Content-Security-Policy"), "img-src")
		requireSafePage(t, p)
		return me.secondStep(c, p, code)
	}
	wrong := step("123456")
	require.Equal(t, http.StatusBadRequest, wrong.Status)
	require.Contains(t, wrong.errorText(), "not right")
	require.NotEmpty(t, wrong.hidden().Get("mfa_ticket"), "the form again")

	now := me.code(secret, 0)
	codeFrom(t, step(now))
	require.Equal(t, http.StatusBadRequest, step(now).Status, "replayed")
	codeFrom(t, step(me.code(secret, 1)))
	codeFrom(t, step(recovery[0]))
	require.Equal(t, http.StatusBadRequest, step(recovery[0]).Status, "used already")
	codeFrom(t, step(strings.ToUpper(recovery[1])))

	// a ticket serves its own sign-in only
	c := me.browser()
	p := me.password(c, authorizeURL(goodAuthorize()), aeAdaEmail, aePassword, false)
	v := p.hidden()
	v.Set("state", "another")
	v.Set("mfa_code", me.code(secret, 1))
	other := me.fetch(c, http.MethodPost, "/oauth/authorize/mfa", "application/x-www-form-urlencoded", v.Encode())
	require.Equal(t, http.StatusBadRequest, other.Status)
	requireSafePage(t, other)
	require.Contains(t, other.errorText(), "Start signing in again")

	// the CSRF token is checked as on the login form
	v = p.hidden()
	v.Set("csrf_token", strings.Repeat("A", 43))
	v.Set("mfa_code", me.code(secret, 1))
	forged := me.fetch(c, http.MethodPost, "/oauth/authorize/mfa", "application/x-www-form-urlencoded", v.Encode())
	require.Equal(t, http.StatusForbidden, forged.Status)
	codeFrom(t, me.secondStep(c, p, recovery[2])) // the steps near now are used up
}

// Ensure the password grant answers mfa_required once the password is
// right, then takes the code in mfa_code (not twice), and refuses a
// repeated mfa_code parameter.
func TestMFA_PasswordGrantHTTP(t *testing.T) {
	me := mustMFAEnv(t, nil)
	secret, recovery := me.enrolAda()
	_, err := me.passwordToken(aeAdaEmail, "not the password")
	grantErr(t, err, "invalid_grant")
	_, err = me.passwordToken(aeAdaEmail, aePassword)
	re := grantErr(t, err, "mfa_required")
	require.Contains(t, re.ErrorDescription, "mfa_code")

	post := func(code ...string) (int, map[string]any) {
		t.Helper()
		form := url.Values{"grant_type": {"password"}, "client_id": {aePortalID}, "client_secret": {aePortalSecret},
			"username": {aeAdaEmail}, "password": {aePassword}, "mfa_code": code}
		status, _, body := me.tokenPost(t, form, "")
		return status, body
	}
	now := me.code(secret, 0)
	status, body := post(now)
	require.Equal(t, http.StatusOK, status, body)
	require.NotEmpty(t, body["refresh_token"])
	status, body = post(now)
	require.Equal(t, http.StatusBadRequest, status)
	require.Equal(t, "invalid_grant", body["error"])
	status, body = post(recovery[2])
	require.Equal(t, http.StatusOK, status, body)
	status, body = post(me.code(secret, 1), me.code(secret, 1))
	require.Equal(t, http.StatusBadRequest, status)
	require.Equal(t, "invalid_request", body["error"])
}

// Ensure an administrator requires a second factor of everyone with
// PATCH /{slug}/v1/account (settings manage only): a user without one
// sets it up at the next sign-in and the password grant refuses until
// then. And that POST /users/{id}/reset-mfa (users manage) removes it.
func TestMFA_RequiredForAllAndReset(t *testing.T) {
	me := mustMFAEnv(t, nil)
	admin := me.admin()
	require.Equal(t, false, me.get("/acme/v1/account", admin).attr("mfa-required"))
	sales := me.token("acme", "sid@acme.test", "Sales")
	r := me.req(http.MethodPatch, "/acme/v1/account", sales, doc("accounts", me.accts["acme"], `{"mfa-required":true}`))
	require.Equal(t, http.StatusForbidden, r.Status, "%s", r.Body)
	r = me.req(http.MethodPatch, "/acme/v1/account", admin, doc("accounts", me.accts["acme"], `{"name":"Acme 2"}`))
	require.Equal(t, http.StatusBadRequest, r.Status, "%s", r.Body)
	r = me.req(http.MethodPatch, "/acme/v1/account", "", doc("accounts", me.accts["acme"], `{"mfa-required":true}`))
	require.Equal(t, http.StatusUnauthorized, r.Status)
	r = me.patch("/acme/v1/account", admin, "accounts", me.accts["acme"], `{"mfa-required":true}`)
	require.Equal(t, true, r.attr("mfa-required"))
	require.Equal(t, "acme", r.attr("slug"))
	require.Equal(t, false, me.get("/globex/v1/account", me.token("globex", "admin@globex.test", "Account Admin")).attr("mfa-required"))

	_, err := me.passwordToken(aeAdaEmail, aePassword)
	re := grantErr(t, err, "invalid_grant")
	require.Contains(t, re.ErrorDescription, "login page")
	c := me.browser()
	p := me.password(c, authorizeURL(goodAuthorize()), aeAdaEmail, aePassword, false)
	require.Equal(t, http.StatusOK, p.Status, p.Body)
	require.Contains(t, p.Body, "Set up two-step verification", "no choice: the account requires it")
	secret, _ := enrolment(t, p)
	codeFrom(t, me.secondStep(c, p, me.code(secret, 0)))
	_, err = me.passwordToken(aeAdaEmail, aePassword)
	grantErr(t, err, "mfa_required")

	reset := "/acme/v1/users/" + me.adaID + "/reset-mfa"
	require.Equal(t, http.StatusForbidden, me.req(http.MethodPost, reset, sales, "").Status)
	require.Equal(t, http.StatusNotFound, me.req(http.MethodPost, "/acme/v1/users/999999/reset-mfa", admin, "").Status)
	r = me.req(http.MethodPost, reset, admin, "")
	require.Equal(t, http.StatusNoContent, r.Status, "%s", r.Body)
	require.Empty(t, r.Body)
	_, err = me.passwordToken(aeAdaEmail, aePassword)
	grantErr(t, err, "invalid_grant") // required, and gone: set it up again
	me.patch("/acme/v1/account", admin, "accounts", me.accts["acme"], `{"mfa-required":false}`)
	_, err = me.passwordToken(aeAdaEmail, aePassword)
	require.NoError(t, err)
	require.Contains(t, me.log.String(), "second factor reset")
}

// Ensure the second step is throttled per address like the login form.
func TestMFA_Throttled(t *testing.T) {
	me := mustMFAEnv(t, func(s *httpadapter.Server) { s.Throttle = httpadapter.Throttle{Rate: 0.001, Burst: 3} })
	c := me.browser()
	p := me.password(c, authorizeURL(goodAuthorize()), aeAdaEmail, aePassword, true) // 1
	require.Equal(t, http.StatusOK, p.Status, p.Body)
	require.Equal(t, http.StatusBadRequest, me.secondStep(c, p, "000000").Status) // 2
	require.Equal(t, http.StatusBadRequest, me.secondStep(c, p, "000001").Status) // 3
	over := me.secondStep(c, p, "000002")
	require.Equal(t, http.StatusTooManyRequests, over.Status)
	require.NotEmpty(t, over.Header.Get("Retry-After"))
}

// Ensure neither the seed, nor a recovery code, nor a code, nor a ticket
// is kept in clear in the store, or reaches the log (which has every
// line, Debug included).
func TestMFA_SecretsNotKept(t *testing.T) {
	me := mustMFAEnv(t, nil)
	c := me.browser()
	p := me.password(c, authorizeURL(goodAuthorize()), aeAdaEmail, aePassword, true)
	secret, recovery := enrolment(t, p)
	ticket := p.hidden().Get("mfa_ticket")
	wrong := me.secondStep(c, p, "654321")
	codeFrom(t, me.secondStep(c, wrong, me.code(secret, -1)))
	used := me.code(secret, 0)
	p = me.password(c, authorizeURL(goodAuthorize()), aeAdaEmail, aePassword, false)
	codeFrom(t, me.secondStep(c, p, used))
	status, _, _ := me.tokenPost(t, url.Values{"grant_type": {"password"}, "client_id": {aePortalID}, "client_secret": {aePortalSecret},
		"username": {aeAdaEmail}, "password": {aePassword}, "mfa_code": {recovery[5]}}, "")
	require.Equal(t, http.StatusOK, status)

	secrets := append([]string{secret, strings.ToLower(secret), ticket, used, "654321", p.hidden().Get("mfa_ticket")}, recovery...)
	for _, rc := range recovery {
		secrets = append(secrets, strings.ReplaceAll(rc, "-", ""))
	}
	raw := string(me.stored())
	logs := me.log.String()
	require.Contains(t, logs, "second factor refused", "the log has the second step")
	for _, s := range secrets {
		require.NotContains(t, raw, s, "stored in clear")
		require.NotContains(t, logs, s, "logged")
	}
}
