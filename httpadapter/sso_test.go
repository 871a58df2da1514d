package httpadapter_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/scopekit/scopekit/httpadapter"
	"github.com/scopekit/scopekit/internal/oidctest"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/sso"
	"github.com/stretchr/testify/require"
)

// Single sign-on (docs/auth.md "Single sign-on") against a real OpenID
// Connect provider (internal/oidctest): the identity-providers resource,
// the login page's choices and the callback's refusals. The browser flow
// itself is sso_browser_test.go's.

// The people of the provider: Ada is acme's admin, Nia is nobody in
// ScopeKit yet, Eve's email is of a domain acme's provider does not
// cover, Una's email is not verified.
var (
	opAda = oidctest.User{Username: "ada", Password: "ada at the provider", Email: aeAdaEmail, EmailVerified: true, FirstName: "Ada", LastName: "Lovelace"}
	opNia = oidctest.User{Username: "nia", Password: "nia at the provider", Email: "nia@acme.test", EmailVerified: true, FirstName: "Nia", LastName: "Newcomer"}
	opEve = oidctest.User{Username: "eve", Password: "eve at the provider", Email: "eve@elsewhere.test", EmailVerified: true, FirstName: "Eve"}
	opUna = oidctest.User{Username: "una", Password: "una at the provider", Email: "una@acme.test", FirstName: "Una"}
)

// ssoEnv is the auth host with a provider registered as acme's identity
// provider for acme.test (verified by acme; no passwords, no
// provisioning), and the server's log. Issuer URLs are checked by
// discovery through the server's relying party.
type ssoEnv struct {
	*authEnv
	op    *oidctest.Provider
	logs  *oauthSyncBuffer
	admin string // a token of an acme admin
	idp   string // the identity-providers record
}

func mustSSOEnv(t *testing.T) *ssoEnv {
	t.Helper()
	logs := &oauthSyncBuffer{}
	rp := &sso.RelyingParty{Client: &http.Client{Timeout: 10 * time.Second}} // the provider is on loopback
	ae := mustAuthEnv(t, func(s *httpadapter.Server) {
		s.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
		s.SSO = rp
	})
	ae.svc.SSO.CheckIssuer = rp.CheckIssuer // the same guarded client as the sign-ins
	ae.verifyDomain("acme", "acme.test")
	se := &ssoEnv{authEnv: ae, logs: logs, admin: ae.admin(),
		op: oidctest.Start(t, ae.srv.URL+"/oauth/sso/callback", opAda, opNia, opEve, opUna)}
	se.idp = ae.create("/acme/v1/identity-providers", se.admin, "identity-providers", fmt.Sprintf(
		`{"name":"Acme SSO","issuer-url":%q,"client-id":%q,"client-secret":%q,"email-domains":[" ACME.test "],"passwords-allowed":false}`,
		se.op.Issuer, oidctest.ClientID, oidctest.ClientSecret))
	return se
}

// setIDP updates acme's identity provider.
func (se *ssoEnv) setIDP(attrs string, rels ...string) {
	se.t.Helper()
	r := se.patch("/acme/v1/identity-providers/"+se.idp, se.admin, "identity-providers", se.idp, attrs, rels...)
	require.Equal(se.t, http.StatusOK, r.Status, "%s", r.Body)
}

// startSSO posts the login form of authURL with the email and password
// (and the single sign-on button when sso) and returns the browser and
// the answer.
func (se *ssoEnv) startSSO(authURL, email, password string, sso bool) (*http.Client, *page) {
	se.t.Helper()
	c := se.browser()
	form := se.fetch(c, http.MethodGet, authURL, "", "")
	require.Equal(se.t, http.StatusOK, form.Status, form.Body)
	v := form.hidden()
	v.Set("email", email)
	v.Set("password", password)
	if sso {
		v.Set("sso", "1")
	}
	return c, se.fetch(c, http.MethodPost, "/oauth/authorize", "application/x-www-form-urlencoded", v.Encode())
}

// ssoSignIn signs in through the provider as u, as a browser without
// JavaScript, and returns the callback's answer (not followed).
func (se *ssoEnv) ssoSignIn(email string, u oidctest.User) *page {
	se.t.Helper()
	return se.ssoSignInAt(se.op, authorizeURL(goodAuthorize()), email, u)
}

// ssoSignInAt is ssoSignIn through provider op from the login page of
// authURL.
func (se *ssoEnv) ssoSignInAt(op *oidctest.Provider, authURL, email string, u oidctest.User) *page {
	se.t.Helper()
	c, ans := se.startSSO(authURL, email, "", true)
	require.Equal(se.t, http.StatusSeeOther, ans.Status, ans.Body)
	require.True(se.t, strings.HasPrefix(ans.Location, op.Issuer+"/"), ans.Location)
	back := op.SignIn(se.t, ans.Location, u.Username, u.Password)
	return se.fetch(c, http.MethodGet, back.String(), "", "")
}

// requireNoSecret checks that the provider's client secret is nowhere at
// rest nor in the log.
func (se *ssoEnv) requireNoSecret() {
	se.t.Helper()
	require.NotContains(se.t, string(se.stored()), oidctest.ClientSecret, "stored in clear")
	require.NotContains(se.t, se.logs.String(), oidctest.ClientSecret, "logged")
}

// Ensure an identity provider is a settings resource whose client secret
// is written but never served, stored only sealed, and whose rules hold.
func TestIdentityProviders_Resource(t *testing.T) {
	se := mustSSOEnv(t)
	path := "/acme/v1/identity-providers"
	r := se.get(path+"/"+se.idp, se.admin)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Nil(t, r.attr("client-secret"))
	require.Equal(t, []any{"acme.test"}, r.attr("email-domains"))
	require.Equal(t, false, r.attr("jit-provisioning"))
	require.NotContains(t, string(r.Body), "sealed")
	list := se.get(path, se.admin)
	require.Equal(t, []string{se.idp}, list.ids())
	require.NotContains(t, string(list.Body), oidctest.ClientSecret)

	// a new secret is taken, and answered as null
	upd := se.patch(path+"/"+se.idp, se.admin, "identity-providers", se.idp, `{"client-secret":"another secret"}`)
	require.Equal(t, http.StatusOK, upd.Status, "%s", upd.Body)
	require.Nil(t, upd.attr("client-secret"))
	require.NotContains(t, string(se.stored()), "another secret")
	se.setIDP(fmt.Sprintf(`{"client-secret":%q}`, oidctest.ClientSecret))

	for _, tt := range []struct{ attrs, source, detail string }{
		{`{"issuer-url":"http://login.example.test"}`, "/data/attributes/issuer-url", "https"},
		{`{"issuer-url":"https://login.example.test/?tenant=1"}`, "/data/attributes/issuer-url", "query"},
		{`{"email-domains":[]}`, "/data/attributes/email-domains", "at least one"},
		{`{"email-domains":["acme"]}`, "/data/attributes/email-domains", "not an email domain"},
		{`{"email-domains":["@acme.test"]}`, "/data/attributes/email-domains", "not an email domain"},
		{`{"client-secret":" "}`, "/data/attributes/client-secret", "blank"},
		{`{"client-secret":null}`, "/data/attributes/client-secret", ""},
	} {
		e := assertError(t, se.req(http.MethodPatch, path+"/"+se.idp, se.admin, doc("identity-providers", se.idp, tt.attrs)),
			http.StatusUnprocessableEntity, tt.source)
		require.Contains(t, e["detail"], tt.detail, tt.attrs)
	}
	assertError(t, se.req(http.MethodPost, path, se.admin, doc("identity-providers", "",
		`{"name":"No secret","issuer-url":"https://login.example.test","client-id":"x","email-domains":["other.test"]}`)),
		http.StatusUnprocessableEntity, "/data/attributes/client-secret")
	// one active provider per domain
	clash := fmt.Sprintf(`{"name":"Second","issuer-url":%q,"client-id":"x","client-secret":"y","email-domains":["other.test","acme.test"]}`, se.op.Issuer)
	e := assertError(t, se.req(http.MethodPost, path, se.admin, doc("identity-providers", "", clash)), http.StatusUnprocessableEntity, "/data/attributes/email-domains")
	require.Contains(t, e["detail"], "Acme SSO")
	se.create(path, se.admin, "identity-providers", strings.Replace(clash, `"client-id"`, `"active":false,"client-id"`, 1))

	// settings: view reads, manage writes; another account sees nothing
	sales := se.token("acme", "sales@acme.test", "Sales")
	require.Equal(t, http.StatusOK, se.get(path+"/"+se.idp, sales).Status)
	assertError(t, se.req(http.MethodPatch, path+"/"+se.idp, sales, doc("identity-providers", se.idp, `{"name":"x"}`)), http.StatusForbidden, "")
	globex := se.token("globex", "admin@globex.test", "Account Admin")
	require.Empty(t, se.get("/globex/v1/identity-providers", globex).ids())

	// the default role of new members cannot be deleted from under it
	role := se.create("/acme/v1/roles", se.admin, "roles", `{"name":"Newcomer","permissions":{"projects":"view"}}`)
	se.setIDP(`{}`, "default-role", "roles", role)
	e = assertError(t, se.req(http.MethodDelete, "/acme/v1/roles/"+role, se.admin, ""), http.StatusConflict, "")
	require.Contains(t, e["detail"], "Acme SSO")
	se.requireNoSecret()
}

// Ensure the login page offers single sign-on only to an account with a
// provider, sends a covered domain to the provider (a password too when
// the provider allows none), signs in with a password otherwise, and
// that the password grant refuses the users of a provider without
// passwords.
func TestSSO_LoginPage(t *testing.T) {
	se := mustSSOEnv(t)
	form := se.fetch(se.browser(), http.MethodGet, authorizeURL(goodAuthorize()), "", "")
	require.Contains(t, form.Body, `id="sso"`)
	requireSafePage(t, form)
	ctx := context.Background()
	require.NoError(t, se.auth.RegisterApplication(ctx, se.accts["globex"], "Globex Portal", "globex-portal", "globex-secret", []string{aeCallback}))
	other := se.fetch(se.browser(), http.MethodGet, authorizeURL(withParams(goodAuthorize(), "client_id", "globex-portal")), "", "")
	require.Equal(t, http.StatusOK, other.Status)
	require.NotContains(t, other.Body, `id="sso"`)
	require.NotContains(t, other.Body, "button.alt", "the page of an account without a provider is unchanged")

	// no passwords for acme.test: the right password still goes to the provider
	_, ans := se.startSSO(authorizeURL(goodAuthorize()), aeAdaEmail, aePassword, false)
	require.Equal(t, http.StatusSeeOther, ans.Status, ans.Body)
	require.True(t, strings.HasPrefix(ans.Location, se.op.Issuer+"/"), ans.Location)
	require.Contains(t, ans.Header.Get("Set-Cookie"), "HttpOnly")
	require.Contains(t, ans.Header.Get("Set-Cookie"), "Path=/oauth/sso")
	_, err := se.passwordToken(aeAdaEmail, aePassword)
	require.Contains(t, grantErr(t, err, "invalid_grant").ErrorDescription, "single sign-on")

	// a domain the provider does not cover signs in with its password
	_, ans = se.startSSO(authorizeURL(goodAuthorize()), "bo@globex.test", "", true)
	require.Equal(t, http.StatusBadRequest, ans.Status)
	require.Contains(t, ans.errorText(), "not set up")
	bo := se.member("acme", "bo@globex.test", "Sales", "active", "standard")
	require.NoError(t, se.auth.SetPassword(ctx, bo, "bo's password, long enough"))
	_, ans = se.signIn(authorizeURL(goodAuthorize()), "bo@globex.test", "bo's password, long enough")
	codeFrom(t, ans)
	_, ans = se.startSSO(authorizeURL(goodAuthorize()), "", "", true)
	require.Equal(t, http.StatusBadRequest, ans.Status)
	require.Contains(t, ans.errorText(), "Enter your email")

	// passwords allowed: the password signs in, an empty one goes to the provider
	se.setIDP(`{"passwords-allowed":true}`)
	_, ans = se.signIn(authorizeURL(goodAuthorize()), aeAdaEmail, aePassword)
	codeFrom(t, ans)
	_, err = se.passwordToken(aeAdaEmail, aePassword)
	require.NoError(t, err)
	_, ans = se.startSSO(authorizeURL(goodAuthorize()), aeAdaEmail, "", false)
	require.Equal(t, http.StatusSeeOther, ans.Status, ans.Body)

	// an unreachable provider is a page, not a redirect
	gone := oidctest.Start(t, se.srv.URL+"/oauth/sso/callback")
	se.setIDP(fmt.Sprintf(`{"issuer-url":%q}`, gone.Issuer))
	gone.Close()
	_, ans = se.startSSO(authorizeURL(goodAuthorize()), aeAdaEmail, "", true)
	require.Equal(t, http.StatusBadGateway, ans.Status)
	requireSafePage(t, ans)
	se.requireNoSecret()
}

// Ensure the callback signs in only the browser that began the sign-in,
// once, and refuses what the provider refused.
func TestSSO_Callback(t *testing.T) {
	se := mustSSOEnv(t)
	c, ans := se.startSSO(authorizeURL(goodAuthorize()), aeAdaEmail, "", true)
	require.Equal(t, http.StatusSeeOther, ans.Status, ans.Body)
	back := se.op.SignIn(t, ans.Location, opAda.Username, opAda.Password)
	stranger := se.fetch(se.browser(), http.MethodGet, back.String(), "", "")
	require.Equal(t, http.StatusBadRequest, stranger.Status, "another browser")
	require.Contains(t, stranger.errorText(), "did not begin in this browser")
	done := se.fetch(c, http.MethodGet, back.String(), "", "")
	code, state := codeFrom(t, done)
	require.Equal(t, "st", state)
	tok, err := se.portal(0).Exchange(se.ctx(), code)
	require.NoError(t, err)
	require.Equal(t, se.adaID, se.meAs(t, tok.AccessToken))
	again := se.fetch(c, http.MethodGet, back.String(), "", "")
	require.Equal(t, http.StatusBadRequest, again.Status, "a sign-in finishes once")

	// the provider's refusal
	c, ans = se.startSSO(authorizeURL(goodAuthorize()), aeAdaEmail, "", true)
	to, err := url.Parse(ans.Location)
	require.NoError(t, err)
	refused := se.fetch(c, http.MethodGet, "/oauth/sso/callback?error=access_denied&state="+url.QueryEscape(to.Query().Get("state")), "", "")
	require.Equal(t, http.StatusForbidden, refused.Status)
	requireSafePage(t, refused)

	// an email the provider has not verified, or of another domain
	p := se.ssoSignIn(aeAdaEmail, opUna)
	require.Equal(t, http.StatusForbidden, p.Status, p.Body)
	require.Contains(t, p.errorText(), "could not be verified")
	p = se.ssoSignIn(aeAdaEmail, opEve)
	require.Equal(t, http.StatusForbidden, p.Status, p.Body)
	require.Contains(t, p.errorText(), "not a member")

	// a provider made inactive meanwhile
	c, ans = se.startSSO(authorizeURL(goodAuthorize()), aeAdaEmail, "", true)
	back = se.op.SignIn(t, ans.Location, opAda.Username, opAda.Password)
	se.setIDP(`{"active":false}`)
	p = se.fetch(c, http.MethodGet, back.String(), "", "")
	require.Equal(t, http.StatusForbidden, p.Status, p.Body)
	require.Contains(t, p.errorText(), "no longer set up")
	require.Contains(t, se.logs.String(), "email_unverified")
	se.requireNoSecret()
}

// Ensure a member made by single sign-on signs in to that account by
// single sign-on only: Nia's identity got a password through another
// account (globex) before acme verified its domain; her first single
// sign-on to acme provisions her, and that password then opens nothing
// of acme (invalid_grant naming single sign-on, whatever the password),
// though acme allows passwords. Her membership's name is the
// provider's, not the one globex gave her.
func TestSSO_ProvisionedMemberNoPassword(t *testing.T) {
	se := mustSSOEnv(t)
	ctx := context.Background()
	const planted = "a password chosen elsewhere"
	nia := se.member("globex", opNia.Email, "Sales", "active", "standard")
	require.NoError(t, se.auth.SetPassword(ctx, nia, planted))
	require.NoError(t, se.svc.Setup(ctx, func(a *scoping.Admin) error { // globex named her
		_, err := a.EnsureMember(se.accts["globex"], scoping.Member{Email: opNia.Email, Name: "Named By Globex", Role: "Sales"})
		return err
	}))
	se.setIDP(`{"jit-provisioning":true,"passwords-allowed":true}`)

	back := se.ssoSignIn(opNia.Email, opNia)
	require.Equal(t, http.StatusFound, back.Status, back.Body)
	require.Contains(t, back.Location, "code=", "signed in and provisioned")
	r := se.get("/acme/v1/users/"+nia, se.admin)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Equal(t, "Nia Newcomer", r.attr("name"))

	for _, pw := range []string{planted, "wrong"} {
		_, err := se.passwordToken(opNia.Email, pw)
		require.Error(t, err)
		require.Contains(t, err.Error(), "single sign-on")
	}
}
