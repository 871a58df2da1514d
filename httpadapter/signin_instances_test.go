package httpadapter_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"
	"github.com/scopekit/scopekit/httpadapter"
	"github.com/scopekit/scopekit/internal/oidctest"
	"github.com/scopekit/scopekit/sso"
	"github.com/stretchr/testify/require"
)

// No sticky sessions (docs/operations.md "Several instances"): a sign-in
// begun on one instance finishes on another of the same deployment (one
// PostgreSQL database, one secret key), because nothing of it is kept in
// an instance's memory: the login form's CSRF key is derived from the
// secret key, a second step's ticket is sealed with it, and single
// sign-on's state is kept in the store.

// signInPair is two instances serving the auth host on one database,
// each with its own services, relying party and memory; now is the
// clock of both token services (TOTP steps do not turn over mid-test).
type signInPair struct {
	a, b *authEnv
	now  time.Time
}

// mustSignInPair starts the two instances with the secret key (nil: each
// draws its own CSRF key, as a server without one does).
func mustSignInPair(t *testing.T, key []byte) *signInPair {
	t.Helper()
	p := &signInPair{now: time.Now().Truncate(30 * time.Second).Add(10 * time.Second)}
	ea := mustEnv(t, onPG) // skips without SCOPEKIT_TEST_DATABASE
	eb := ea.sibling()
	loopback := &http.Client{Timeout: 10 * time.Second} // the provider is on loopback
	for _, e := range []*testEnv{ea, eb} {
		e.srv.Close()
		e.auth.Now = func() time.Time { return p.now }
		rp := &sso.RelyingParty{Client: loopback, Flows: e.auth}
		e.svc.SSO.CheckIssuer = rp.CheckIssuer
		s := &httpadapter.Server{Svc: e.svc, Auth: e.auth, Key: key, SSO: rp, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
		e.srv = httptest.NewServer(s.Handler())
	}
	p.a, p.b = &authEnv{testEnv: ea}, &authEnv{testEnv: eb}
	ctx := context.Background()
	require.NoError(t, ea.auth.RegisterApplication(ctx, ea.accts["acme"], "Acme Portal", aePortalID, aePortalSecret, []string{aeCallback}))
	p.a.adaID = p.a.member("acme", aeAdaEmail, "Account Admin", "active", "standard")
	p.b.adaID = p.a.adaID
	require.NoError(t, ea.auth.SetPassword(ctx, p.a.adaID, aePassword))
	return p
}

// on returns target (a path or a URL of either instance) on e's address.
func on(e *authEnv, target string) string {
	u, err := url.Parse(target)
	if err != nil || u.Host == "" {
		return e.srv.URL + target
	}
	base, _ := url.Parse(e.srv.URL)
	u.Scheme, u.Host = base.Scheme, base.Host
	return u.String()
}

// post posts the hidden fields of page p, with the fields kv, to path on
// instance e, in browser c.
func post(e *authEnv, c *http.Client, p *page, path string, kv ...string) *page {
	v := p.hidden()
	for i := 0; i+1 < len(kv); i += 2 {
		v.Set(kv[i], kv[i+1])
	}
	return e.fetch(c, http.MethodPost, on(e, path), "application/x-www-form-urlencoded", v.Encode())
}

func (p *signInPair) code(t *testing.T, secret string, steps int) string {
	t.Helper()
	c, err := totp.GenerateCode(secret, p.now.Add(time.Duration(steps)*30*time.Second))
	require.NoError(t, err)
	return c
}

// exchange redeems a code at instance e's token endpoint.
func exchange(t *testing.T, e *authEnv, p *page) {
	t.Helper()
	code, _ := codeFrom(t, p)
	tok, err := e.portal(0).Exchange(e.ctx(), code)
	require.NoError(t, err)
	require.NotEmpty(t, tok.AccessToken)
}

// Ensure a password sign-in with a second factor moves between the two
// instances at every step: the enrolment (form from A, password to A,
// code to B) and the next sign-in (form from B, password to A, code to
// B), each code then redeemed on the other instance.
func TestSignInAcrossInstances_PasswordAndSecondFactor(t *testing.T) {
	p := mustSignInPair(t, testKey)
	a, b := p.a, p.b
	c := a.browser()
	form := a.fetch(c, http.MethodGet, on(a, authorizeURL(goodAuthorize())), "", "")
	require.Equal(t, http.StatusOK, form.Status, form.Body)
	enrol := post(a, c, form, "/oauth/authorize", "email", aeAdaEmail, "password", aePassword, "mfa_setup", "1")
	require.Equal(t, http.StatusOK, enrol.Status, enrol.Body)
	secret, _ := enrolment(t, enrol)
	done := post(b, c, enrol, "/oauth/authorize/mfa", "mfa_code", p.code(t, secret, -1))
	exchange(t, a, done)

	c = b.browser()
	form = b.fetch(c, http.MethodGet, on(b, authorizeURL(goodAuthorize())), "", "")
	step := post(a, c, form, "/oauth/authorize", "email", aeAdaEmail, "password", aePassword)
	require.Equal(t, http.StatusOK, step.Status, step.Body)
	require.Contains(t, step.Body, "Two-step verification")
	wrong := post(b, c, step, "/oauth/authorize/mfa", "mfa_code", "000000")
	require.Equal(t, http.StatusBadRequest, wrong.Status, wrong.Body)
	done = post(a, c, wrong, "/oauth/authorize/mfa", "mfa_code", p.code(t, secret, 0))
	exchange(t, b, done)
}

// Ensure a single sign-on begun on A (the login form posted there sends
// the browser to the provider) is finished by B, to which the provider's
// answer is brought, once: the same answer brought to A again finds
// nothing.
func TestSignInAcrossInstances_SingleSignOn(t *testing.T) {
	p := mustSignInPair(t, testKey)
	a, b := p.a, p.b
	a.verifyDomain("acme", "acme.test")
	op := oidctest.Start(t, a.srv.URL+"/oauth/sso/callback", opAda)
	a.create("/acme/v1/identity-providers", a.admin(), "identity-providers", fmt.Sprintf(
		`{"name":"Acme SSO","issuer-url":%q,"client-id":%q,"client-secret":%q,"email-domains":["acme.test"],"passwords-allowed":false}`,
		op.Issuer, oidctest.ClientID, oidctest.ClientSecret))

	c := a.browser()
	form := a.fetch(c, http.MethodGet, on(a, authorizeURL(goodAuthorize())), "", "")
	require.Equal(t, http.StatusOK, form.Status, form.Body)
	begun := post(a, c, form, "/oauth/authorize", "email", aeAdaEmail, "sso", "1")
	require.Equal(t, http.StatusSeeOther, begun.Status, begun.Body)
	require.True(t, strings.HasPrefix(begun.Location, op.Issuer+"/"), begun.Location)
	back := op.SignIn(t, begun.Location, opAda.Username, opAda.Password)
	done := b.fetch(c, http.MethodGet, on(b, back.String()), "", "")
	exchange(t, a, done)

	again := a.fetch(c, http.MethodGet, on(a, back.String()), "", "")
	require.Equal(t, http.StatusBadRequest, again.Status, again.Body)
	require.Contains(t, again.errorText(), "expired or did not begin in this browser")
}

// Ensure the rule the pair relies on: without a shared key each instance
// draws its own CSRF key, and a form shown by A is refused by B.
func TestSignInAcrossInstances_NeedsTheKey(t *testing.T) {
	p := mustSignInPair(t, nil)
	c := p.a.browser()
	form := p.a.fetch(c, http.MethodGet, on(p.a, authorizeURL(goodAuthorize())), "", "")
	refused := post(p.b, c, form, "/oauth/authorize", "email", aeAdaEmail, "password", aePassword)
	require.Equal(t, http.StatusForbidden, refused.Status, refused.Body)
	require.Contains(t, refused.errorText(), "expired or did not come from this site")
	exchange(t, p.a, post(p.a, c, form, "/oauth/authorize", "email", aeAdaEmail, "password", aePassword))
}
