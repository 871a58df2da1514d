package httpadapter_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/internal/oidctest"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/require"
)

// Accounts are walls for single sign-on (docs/auth.md "Single sign-on"):
// a provider routes and provisions only for its account's verified
// domains, a login page only to its account's providers, and what a
// provider asserts is checked before it becomes part of an account.

// idpDoc is the attributes of an identity provider at issuer for domains.
func idpDoc(issuer, domains string, jit, passwords bool) string {
	return fmt.Sprintf(`{"name":"Provider","issuer-url":%q,"client-id":%q,"client-secret":%q,"email-domains":%s,"jit-provisioning":%t,"passwords-allowed":%t}`,
		issuer, oidctest.ClientID, oidctest.ClientSecret, domains, jit, passwords)
}

// Ensure what a provider asserts is one address with a bounded name
// (docs/auth.md, attack 6 of the outside probe): emails with a second
// "@", CR LF or NUL are a refused sign-in page (no member made, no 500,
// no ERROR line), a 100,000-character name is cut; and an issuer URL with
// a trailing slash is taken in its one form and signs people in.
func TestSSO_OutsideValues(t *testing.T) {
	se := mustSSOEnv(t)
	bad := []oidctest.User{
		{Username: "two-ats", Password: "pw two-ats", Email: "a@b@evil.test", EmailVerified: true, FirstName: "Two"},
		{Username: "crlf", Password: "pw crlf", Email: "eve@evil.test\r\nBcc: boss@evil.test", EmailVerified: true, FirstName: "Crlf"},
		{Username: "nul", Password: "pw nul", Email: "nul\x00@evil.test", EmailVerified: true, FirstName: "Nul"},
		{Username: "named", Password: "pw named", Email: "angle <named@evil.test>", EmailVerified: true, FirstName: "Named"},
	}
	long := oidctest.User{Username: "long", Password: "pw long", Email: "long@evil.test", EmailVerified: true,
		FirstName: strings.Repeat("Ł", 100_000), LastName: "Tail"}
	evil := oidctest.Start(t, se.srv.URL+"/oauth/sso/callback", append(bad, long)...)
	se.verifyDomain("acme", "evil.test")
	created := se.req(http.MethodPost, "/acme/v1/identity-providers", se.admin, doc("identity-providers", "",
		idpDoc(evil.Issuer+"/", `["evil.test"]`, true, true)))
	require.Equal(t, http.StatusCreated, created.Status, "%s", created.Body)
	require.Equal(t, evil.Issuer, created.attr("issuer-url"), "the issuer in its one form")
	e := assertError(t, se.req(http.MethodPost, "/acme/v1/identity-providers", se.admin, doc("identity-providers", "",
		idpDoc("http://127.0.0.1:1/", `["other.test"]`, false, true))), http.StatusUnprocessableEntity, "/data/attributes/issuer-url")
	require.Contains(t, e["detail"], "issuer-url cannot be reached")

	users := func() int { return len(se.get("/acme/v1/users?page[size]=100", se.admin).ids()) }
	before := users()
	for _, u := range bad {
		p := se.ssoSignInAt(evil, authorizeURL(goodAuthorize()), "who@evil.test", u)
		require.Equal(t, http.StatusForbidden, p.Status, "%s: %s", u.Username, p.Body)
		require.Contains(t, p.errorText(), "cannot accept", u.Username)
		requireSafePage(t, p)
	}
	require.Equal(t, before, users(), "no member made of a malformed email")

	p := se.ssoSignInAt(evil, authorizeURL(goodAuthorize()), "long@evil.test", long)
	codeFrom(t, p)
	got := se.get("/acme/v1/users?filter[email]=long@evil.test", se.admin).list()
	require.Len(t, got, 1)
	name := got[0]["attributes"].(map[string]any)["name"].(string)
	require.Equal(t, auth.MaxNameChars, utf8.RuneCountInString(name))
	require.True(t, strings.HasPrefix(name, "ŁŁŁ"))

	require.NotContains(t, se.logs.String(), "level=ERROR")
	require.Contains(t, se.logs.String(), "reason=bad_identity")
	se.requireNoSecret()
}

// Ensure a login page routes only to its own account's providers, for
// the domains that account verified, and that what a single sign-on
// issues acts in the provider's account only; and the second half of
// attack 4: pointing a domain the account has not verified at a provider
// signs no one in without a password, and settings manage alone verifies
// no domain.
func TestSSO_AccountWalls(t *testing.T) {
	se := mustSSOEnv(t)
	ctx := context.Background()
	globex := se.token("globex", "admin@globex.test", "Account Admin")
	require.NoError(t, se.auth.RegisterApplication(ctx, se.accts["globex"], "Globex Portal", "globex-portal", "globex-secret", []string{aeCallback}))
	globexLogin := authorizeURL(withParams(goodAuthorize(), "client_id", "globex-portal"))
	se.verifyDomain("globex", "globex.test")
	se.create("/globex/v1/identity-providers", globex, "identity-providers", idpDoc(se.op.Issuer, `["globex.test"]`, false, false))

	// acme's login page does not send globex's domain to globex's provider
	_, ans := se.startSSO(authorizeURL(goodAuthorize()), "bo@globex.test", "", true)
	require.Equal(t, http.StatusBadRequest, ans.Status)
	require.Contains(t, ans.errorText(), "not set up")
	// nor globex's page acme's domain to acme's provider
	_, ans = se.startSSO(globexLogin, aeAdaEmail, "", true)
	require.Equal(t, http.StatusBadRequest, ans.Status)
	require.Contains(t, ans.errorText(), "not set up")
	// a sign-in through acme's provider is acme's
	code, _ := codeFrom(t, se.ssoSignIn(aeAdaEmail, opAda))
	tok, err := se.portal(0).Exchange(se.ctx(), code)
	require.NoError(t, err)
	me := se.get("/v1/me", tok.AccessToken)
	require.Equal(t, "acme", me.attr("account-slug"))
	assertError(t, se.get("/globex/v1/projects", tok.AccessToken), http.StatusForbidden, "")

	// a domain acme has not verified: its provider takes nothing over
	labID := se.member("acme", "lab@labs.acme.test", "Account Admin", "active", "standard")
	require.NoError(t, se.auth.SetPassword(ctx, labID, aePassword))
	se.create("/acme/v1/identity-providers", se.admin, "identity-providers", idpDoc(se.op.Issuer, `["labs.acme.test"]`, true, false))
	_, ans = se.startSSO(authorizeURL(goodAuthorize()), "lab@labs.acme.test", "", true)
	require.Equal(t, http.StatusBadRequest, ans.Status, "not routed")
	_, ans = se.signIn(authorizeURL(goodAuthorize()), "lab@labs.acme.test", aePassword)
	codeFrom(t, ans) // the password still signs in: passwords-allowed false waits for verification
	require.NoError(t, se.svc.Setup(ctx, func(a *scoping.Admin) error {
		_, err := a.EnsureRole(se.accts["acme"], "Settings Only", map[string]string{"settings": "manage"}, "all")
		return err
	}))
	settingsOnly := se.token("acme", "settings@acme.test", "Settings Only")
	assertError(t, se.req(http.MethodPost, "/acme/v1/verified-domains", settingsOnly,
		doc("verified-domains", "", `{"domain":"labs.acme.test"}`)), http.StatusForbidden, "")
	require.Empty(t, se.get("/acme/v1/verified-domains?filter[domain]=labs.acme.test", se.admin).ids())
}
