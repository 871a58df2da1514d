package webapp_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/scopekit/scopekit/engine"
	"github.com/stretchr/testify/require"
)

// invite has ada create a standard user of acme with the Sales role
// and returns the invitation link the users page shows once.
func (e *env) invite(t *testing.T, name, email string) string {
	t.Helper()
	b := e.browser()
	b.signIn("acme", "ada@acme.test")
	roles := b.get("/app/acme/settings/users/new").Body
	sales := regexp.MustCompile(`<option value="(\d+)">Sales</option>`).FindStringSubmatch(roles)[1]
	p := b.createSetting(t, "users", "name", name, "email", email, "roles", sales, "user-type", "standard")
	require.Equal(t, http.StatusCreated, p.Status, p.Body)
	link := shownOnce(p)
	require.Len(t, link, 1)
	require.True(t, strings.HasPrefix(link[0], e.srv.URL+"/app/invitations/"), "an absolute link of the workspace: %s", link[0])
	return link[0]
}

// invitationText is what every link that names no pending invitation
// answers, whatever the reason.
const invitationText = "This invitation link does not work"

// Ensure the invitation link opens a page that accepts the invitation
// with the password chosen (twice), through the API route's use case,
// and sends the person to sign in, where the password works; that the
// page refuses a form without its CSRF token, two different passwords
// and a short one without accepting; that a used, an unknown and a
// revoked link get the same 404 page; that the page sends no Referer
// and is not cached; and that no token reaches the server's log.
func TestInvitationPage(t *testing.T) {
	e := newEnv(t)
	link := e.invite(t, "Pat", "pat@acme.test")
	token := strings.TrimPrefix(link, e.srv.URL+"/app/invitations/")
	path := "/app/invitations/" + token

	pat := e.browser()
	p := pat.get(link)
	require.Equal(t, http.StatusOK, p.Status, p.Body)
	require.Equal(t, "no-referrer", p.Header.Get("Referrer-Policy"))
	require.Equal(t, "no-store", p.Header.Get("Cache-Control"))
	require.Contains(t, p.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'")
	require.Contains(t, p.Body, "pat@acme.test")
	require.Contains(t, p.Body, "Acme IT")
	require.Contains(t, p.Body, "At least 12 characters")
	form := p.hidden()
	require.NotEmpty(t, form.Get("csrf"))

	invited := func() string { return e.apiRecordAny("acme", "users", e.userID(t, "pat@acme.test"))["status"].(string) }
	refused := []struct {
		name     string
		form     url.Values
		status   int
		contains string
	}{
		{"no CSRF token", formOf("password", password, "password-again", password), http.StatusForbidden, "This form has expired"},
		{"another CSRF token", formOf("csrf", "x"+form.Get("csrf"), "password", password, "password-again", password), http.StatusForbidden, "This form has expired"},
		{"two passwords", formOf("csrf", form.Get("csrf"), "password", password, "password-again", password+"!"), http.StatusUnprocessableEntity,
			`<p class="field-error" id="password-again-error">The two passwords differ.`},
		{"short", formOf("csrf", form.Get("csrf"), "password", "too short", "password-again", "too short"), http.StatusUnprocessableEntity,
			`<p class="field-error" id="password-error">password must be at least 12 characters`},
		{"repeated", formOf("csrf", form.Get("csrf"), "password", password, "password", password, "password-again", password), http.StatusBadRequest,
			"Enter your password in both fields."},
	}
	for _, c := range refused {
		p = pat.post(path, c.form, false)
		require.Equal(t, c.status, p.Status, c.name)
		require.Contains(t, p.Body, c.contains, c.name)
		require.Equal(t, "invited", invited(), c.name)
	}
	// the form from another browser's page does not work in this one
	other := e.browser().get(path).hidden()
	p = pat.post(path, formOf("csrf", other.Get("csrf"), "password", password, "password-again", password), false)
	require.Equal(t, http.StatusForbidden, p.Status)

	p = pat.post(path, formOf("csrf", pat.get(path).hidden().Get("csrf"), "password", password, "password-again", password), false)
	require.Equal(t, http.StatusOK, p.Status, p.Body)
	require.Contains(t, p.URL, "/oauth/authorize", "sent to sign in")
	require.Equal(t, "active", invited())
	require.Contains(t, pat.signIn("acme", "pat@acme.test").URL, "/app/acme/projects")

	// used, unknown, malformed and revoked links: one page, one text
	revokedLink := e.invite(t, "Quinn", "quinn@acme.test")
	ada := e.browser()
	ada.signIn("acme", "ada@acme.test")
	quinn := e.userID(t, "quinn@acme.test")
	p = ada.post("/app/acme/settings/users/"+quinn+"/deactivate", formOf("csrf", ada.get("/app/acme/settings/users/"+quinn).csrf(t)), false)
	require.Equal(t, http.StatusOK, p.Status, p.Body)
	var bodies []string
	for _, l := range []string{link, revokedLink, e.srv.URL + "/app/invitations/" + e.accts["acme"] + ".1.nothing", e.srv.URL + "/app/invitations/x"} {
		fresh := e.browser()
		p = fresh.get(l)
		require.Equal(t, http.StatusNotFound, p.Status, l)
		require.Contains(t, p.Body, invitationText)
		require.Equal(t, "no-referrer", p.Header.Get("Referrer-Policy"))
		bodies = append(bodies, p.Body)
		p = fresh.post(strings.TrimPrefix(l, e.srv.URL), formOf("csrf", "x", "password", password, "password-again", password), false)
		require.Equal(t, http.StatusNotFound, p.Status, l)
		require.Equal(t, bodies[0], p.Body, "no oracle: %s", l)
	}
	for _, b := range bodies {
		require.Equal(t, bodies[0], b, "no oracle")
	}
	for _, secret := range []string{token, strings.TrimPrefix(revokedLink, e.srv.URL+"/app/invitations/"), password} {
		require.NotContains(t, e.logged.String(), secret, "logged")
	}
	require.Contains(t, e.logged.String(), "request", "the log was captured")
}

// Ensure an email that already signs in to another account accepts an
// invitation with the password it has, which is kept: another password
// is refused (and the page says why), as the API's route refuses it.
func TestInvitationExistingIdentity(t *testing.T) {
	e := newEnv(t)
	link := e.invite(t, "Gus", "gus@globex.test")
	gus := e.browser()
	path := strings.TrimPrefix(link, e.srv.URL)
	csrf := gus.get(path).hidden().Get("csrf")
	p := gus.post(path, formOf("csrf", csrf, "password", "a brand new password", "password-again", "a brand new password"), false)
	require.Equal(t, http.StatusUnprocessableEntity, p.Status)
	require.Contains(t, p.Body, "already has a password")
	p = gus.post(path, formOf("csrf", csrf, "password", password, "password-again", password), false)
	require.Contains(t, p.URL, "/oauth/authorize", p.Body)
	require.Contains(t, gus.signIn("acme", "gus@globex.test").URL, "/app/acme/projects")
}

// Ensure the page is throttled with the API's accept route, from one
// bucket per address: past it the page answers 429 with Retry-After and
// the API's route is throttled too.
func TestInvitationThrottled(t *testing.T) {
	e := newEnv(t)
	b := e.browser()
	var p *page
	for i := 0; i < 100; i++ {
		if p = b.get("/app/invitations/1.1.guess"); p.Status != http.StatusNotFound {
			break
		}
	}
	require.Equal(t, http.StatusTooManyRequests, p.Status)
	require.NotEmpty(t, p.Header.Get("Retry-After"))
	require.Contains(t, p.Body, "Too many attempts")
	res, err := http.PostForm(e.srv.URL+"/oauth/invitations/1.1.guess/accept", url.Values{"password": {password}})
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusTooManyRequests, res.StatusCode, "one bucket")
	require.Contains(t, e.logged.String(), "auth host throttled")
	require.NotContains(t, e.logged.String(), "1.1.guess", "the throttle logs the route, not the path that holds the token")
}

// userID is the id of acme's user of email.
func (e *env) userID(t *testing.T, email string) string {
	t.Helper()
	sys, err := e.svc.SystemActor(context.Background(), e.accts["acme"])
	require.NoError(t, err)
	res, err := e.svc.List(context.Background(), sys, "users", engine.ListParams{PageSize: 1, PageNumber: 1,
		Filters: map[string]string{"email": email}}, engine.Options{})
	require.NoError(t, err)
	require.Len(t, res.Records, 1, email)
	return res.Records[0].ID
}

// Ensure the page gives no password to a person who already signs in to
// another account without one (single sign-on): whoever holds the link
// could otherwise sign in there as them. It answers 409 saying why, and
// the invitation stays pending.
func TestInvitationNoPasswordForAnotherAccountsPerson(t *testing.T) {
	e := newEnv(t)
	e.member("globex", "sso@globex.test", "Sso", "Sales") // active, no password
	link := e.invite(t, "Sso", "sso@globex.test")
	b := e.browser()
	path := strings.TrimPrefix(link, e.srv.URL)
	csrf := b.get(path).hidden().Get("csrf")
	p := b.post(path, formOf("csrf", csrf, "password", "a brand new password", "password-again", "a brand new password"), false)
	require.Equal(t, http.StatusConflict, p.Status, p.Body)
	require.Contains(t, p.Body, "a person of another account who has no password")
	require.Equal(t, http.StatusOK, b.get(path).Status, "still pending")
}
