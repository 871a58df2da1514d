package httpadapter_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The attacks of an outside probe of two accounts on one server, each
// answered 200 or 201 before accounts were walls (docs/auth.md "Accounts
// are walls").

// tokenForm posts a form to the token endpoint and decodes the answer.
func (e *testEnv) tokenForm(form url.Values) (int, map[string]any) {
	e.t.Helper()
	res, err := http.Post(e.srv.URL+"/oauth/token", "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
	require.NoError(e.t, err)
	defer res.Body.Close()
	var out map[string]any
	require.NoError(e.t, json.NewDecoder(res.Body).Decode(&out))
	return res.StatusCode, out
}

// portalGrant is a password grant through acme's application.
func portalGrant(username string) url.Values {
	return url.Values{"grant_type": {"password"}, "client_id": {wallsPortal}, "client_secret": {wallsPortalSecret},
		"username": {username}, "password": {wallsPassword}}
}

// Ensure a person who belongs to two accounts cannot skip one account's
// sign-in policy through the other's application: the token of acme's
// application reads acme only; globex's slug is 403 though globex requires
// a second factor the person never gave.
func TestWallsAttackOtherAccountsPolicy(t *testing.T) {
	e := mustEnv(t)
	_, tok := dualMember(t, e)
	globexAdmin := e.token("globex", "admin@globex.test", "Account Admin")
	r := e.req(http.MethodPatch, "/globex/v1/account", globexAdmin, doc("accounts", e.accts["globex"], `{"mfa-required":true}`))
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	e.seed("globex", "projects", `{"project-name":"Globex only"}`, "client", "clients", e.seed("globex", "clients", `{"name":"Initech"}`))

	status, body := e.tokenForm(portalGrant("pat@both.test"))
	require.Equal(t, http.StatusOK, status, "%v", body)
	viaAcme := body["access_token"].(string)
	for _, path := range []string{"/globex/v1/projects", "/globex/v1/users", "/globex/v1/account"} {
		assertError(t, e.get(path, viaAcme), http.StatusForbidden, "")
		assertError(t, e.get(path, tok), http.StatusForbidden, "")
	}
	r = e.get("/v2/projects", viaAcme)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Empty(t, r.list(), "v2 is acme's: no project")
	assert.Equal(t, "acme", e.get("/v1/me", viaAcme).attr("account-slug"))
}

// Ensure one account cannot change a person who is a member of another
// too: no conversion to a service account, no reset of the second factor,
// no service credentials (409 naming how many other memberships, not
// which); the person's sign-in to the other account keeps working.
func TestWallsAttackSharedPerson(t *testing.T) {
	e := mustEnv(t)
	pat, _ := dualMember(t, e)
	acmeAdmin := e.admin()
	for _, r := range []*resp{
		e.req(http.MethodPatch, "/acme/v1/users/"+pat, acmeAdmin,
			`{"data":{"type":"users","id":"`+pat+`","attributes":{"user-type":"service"}},"meta":{"confirm":true}}`),
		e.req(http.MethodPost, "/acme/v1/users/"+pat+"/reset-mfa", acmeAdmin, ""),
		e.req(http.MethodPost, "/acme/v1/users/"+pat+"/credentials", acmeAdmin, ""),
		e.req(http.MethodPatch, "/acme/v1/users/"+pat, acmeAdmin, doc("users", pat, `{"email":"pat@acme.test"}`)),
	} {
		detail := assertError(t, r, http.StatusConflict, "")["detail"].(string)
		assert.Contains(t, detail, "member of 1 other account(s)")
		assert.NotContains(t, detail, "globex")
	}
	globexAdmin := e.token("globex", "admin@globex.test", "Account Admin")
	r := e.get("/globex/v1/users/"+pat, globexAdmin)
	assert.Equal(t, "standard", r.attr("user-type"))
	assert.Equal(t, "pat@both.test", r.attr("email"))
	require.NoError(t, e.auth.RegisterApplication(t.Context(), e.accts["globex"], "Globex", "globex-portal", "globex-portal-secret", nil))
	status, body := e.tokenForm(url.Values{"grant_type": {"password"}, "client_id": {"globex-portal"}, "client_secret": {"globex-portal-secret"},
		"username": {"pat@both.test"}, "password": {wallsPassword}})
	assert.Equal(t, http.StatusOK, status, "%v", body)
}

// Ensure a role with settings manage cannot make itself Account Admin: an
// identity provider needs users manage as well, and its default role (like
// any role written or given) may not exceed the writer's permissions.
func TestWallsAttackSelfPromotion(t *testing.T) {
	e := mustEnv(t)
	admin := e.admin()
	roles := map[string]string{}
	for _, r := range e.get("/acme/v1/roles", admin).list() {
		roles[r["attributes"].(map[string]any)["name"].(string)] = r["id"].(string)
	}
	e.create("/acme/v1/roles", admin, "roles", `{"name":"Settings","permissions":{"settings":"manage"}}`)
	e.create("/acme/v1/roles", admin, "roles", `{"name":"Keeper","permissions":{"settings":"manage","users":"manage"}}`)
	settingsID, settings := e.user("acme", "set@acme.test", "Settings")
	keeperID, keeper := e.user("acme", "keep@acme.test", "Keeper")
	idp := `{"name":"Mine","issuer-url":"https://login.acme.test","client-id":"x","client-secret":"y","email-domains":["acme.test"],"jit-provisioning":true}`
	adminRole := []string{"default-role", "roles", roles["Account Admin"]}

	assertError(t, e.req(http.MethodPost, "/acme/v1/identity-providers", settings, doc("identity-providers", "", idp, adminRole...)), http.StatusForbidden, "")
	detail := assertError(t, e.req(http.MethodPost, "/acme/v1/identity-providers", keeper, doc("identity-providers", "", idp, adminRole...)), http.StatusForbidden, "")["detail"]
	assert.Contains(t, detail, "more than your own")
	assertError(t, e.req(http.MethodPost, "/acme/v1/roles", keeper, doc("roles", "", `{"name":"Boss","permissions":{"settings":"manage","users":"manage","projects":"manage"}}`)),
		http.StatusForbidden, "")
	asAdmin := `"relationships":{"roles":{"data":[{"type":"roles","id":"` + roles["Account Admin"] + `"}]}}`
	for _, id := range []string{settingsID, keeperID} {
		r := e.req(http.MethodPatch, "/acme/v1/users/"+id, keeper, `{"data":{"type":"users","id":"`+id+`",`+asAdmin+`}}`)
		assertError(t, r, http.StatusForbidden, "")
	}
	assertError(t, e.req(http.MethodPost, "/acme/v1/users", keeper, `{"data":{"type":"users","attributes":{"name":"Mal","email":"mal@acme.test"},`+asAdmin+`}}`),
		http.StatusForbidden, "")
	assertError(t, e.req(http.MethodPost, "/acme/v1/identity-providers", keeper, doc("identity-providers", "", idp)), http.StatusForbidden, "")
	assert.Empty(t, e.get("/acme/v1/identity-providers", admin).list())
	assert.Len(t, e.get("/acme/v1/roles", admin).list(), 6, "the four built-in roles and the two made here")
}

// Ensure a users manager cannot manage what holds more than they do: an
// Account Admin's email, role and status, their second factor and their
// credentials, the role they hold, an identity provider that would sign
// them in and a verified domain are refused with 403 naming the rule, and
// nothing changes;
// a lesser member is still theirs to manage.
func TestWallsAttackManageTheAdmin(t *testing.T) {
	e := mustEnv(t)
	adminID, admin := e.user("acme", "admin@acme.test", "Account Admin")
	e.create("/acme/v1/roles", admin, "roles", `{"name":"Keeper","permissions":{"settings":"manage","users":"manage"}}`)
	e.create("/acme/v1/roles", admin, "roles", `{"name":"Clerk","permissions":{"users":"view"}}`)
	_, keeper := e.user("acme", "keep@acme.test", "Keeper")
	clerkID, _ := e.user("acme", "clerk@acme.test", "Clerk")
	before := e.get("/acme/v1/users/"+adminID, admin).data()

	for _, r := range []*resp{
		e.req(http.MethodPatch, "/acme/v1/users/"+adminID, keeper, doc("users", adminID, `{"email":"mal@evil.test"}`)),
		e.req(http.MethodPatch, "/acme/v1/users/"+adminID, keeper, doc("users", adminID, `{"name":"Mal"}`)),
		e.req(http.MethodDelete, "/acme/v1/users/"+adminID, keeper, ""),
		e.req(http.MethodPost, "/acme/v1/users/"+adminID+"/reset-mfa", keeper, ""),
		e.req(http.MethodPost, "/acme/v1/users/"+adminID+"/credentials", keeper, ""),
	} {
		detail := assertError(t, r, http.StatusForbidden, "")["detail"]
		assert.Contains(t, detail, "no one manages what holds more than they do")
	}
	assert.Equal(t, before, e.get("/acme/v1/users/"+adminID, admin).data(), "the Account Admin is unchanged")

	// nor the role they hold (emptying it would demote every Account
	// Admin at once), nor any role that holds more
	roles := map[string]map[string]any{}
	for _, r := range e.get("/acme/v1/roles", admin).list() {
		roles[r["attributes"].(map[string]any)["name"].(string)] = r
	}
	for _, name := range []string{"Account Admin", "Sales"} {
		id := roles[name]["id"].(string)
		r := e.req(http.MethodPatch, "/acme/v1/roles/"+id, keeper, doc("roles", id, `{"permissions":{},"project-visibility":"assigned"}`))
		assert.Contains(t, assertError(t, r, http.StatusForbidden, "")["detail"], "no one manages what holds more than they do")
		assertError(t, e.req(http.MethodDelete, "/acme/v1/roles/"+id, keeper, ""), http.StatusForbidden, "")
		assert.Equal(t, roles[name], e.get("/acme/v1/roles/"+id, admin).data(), "%s unchanged", name)
	}
	// nor an identity provider, which would sign them in, nor a verified
	// domain, which decides how they sign in
	idp := `{"name":"Mine","issuer-url":"https://login.acme.test","client-id":"x","client-secret":"y","email-domains":["acme.test"]}`
	r := e.req(http.MethodPost, "/acme/v1/identity-providers", keeper, doc("identity-providers", "", idp))
	assert.Contains(t, assertError(t, r, http.StatusForbidden, "")["detail"], "writing one needs as much as every role of the account")
	claim := e.create("/acme/v1/verified-domains", admin, "verified-domains", `{"domain":"acme.test"}`)
	for _, r := range []*resp{
		e.req(http.MethodPost, "/acme/v1/verified-domains", keeper, doc("verified-domains", "", `{"domain":"acme.example"}`)),
		e.req(http.MethodDelete, "/acme/v1/verified-domains/"+claim, keeper, ""),
		e.req(http.MethodPost, "/acme/v1/verified-domains/"+claim+"/verify", keeper, ""),
	} {
		assert.Contains(t, assertError(t, r, http.StatusForbidden, "")["detail"], "a verified domain decides how the account's people")
	}
	assert.Equal(t, http.StatusOK, e.get("/acme/v1/verified-domains/"+claim, admin).Status, "the claim stays")

	e.patch("/acme/v1/users/"+clerkID, keeper, "users", clerkID, `{"title":"Clerk"}`) // 200
}

// Ensure a refresh token issued before the account turned mfa-required on
// stops refreshing (invalid_grant), and stays void once it is off again.
func TestWallsAttackStaleRefresh(t *testing.T) {
	e := mustEnv(t)
	dualMember(t, e)
	admin := e.admin()
	status, body := e.tokenForm(portalGrant("pat@both.test"))
	require.Equal(t, http.StatusOK, status, "%v", body)
	refresh := body["refresh_token"].(string)
	status, body = e.tokenForm(url.Values{"grant_type": {"refresh_token"}, "client_id": {wallsPortal}, "client_secret": {wallsPortalSecret}, "refresh_token": {refresh}})
	require.Equal(t, http.StatusOK, status, "%v", body)
	refresh = body["refresh_token"].(string)

	for _, on := range []string{"true", "false"} {
		r := e.req(http.MethodPatch, "/acme/v1/account", admin, doc("accounts", e.accts["acme"], `{"mfa-required":`+on+`}`))
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		status, body = e.tokenForm(url.Values{"grant_type": {"refresh_token"}, "client_id": {wallsPortal}, "client_secret": {wallsPortalSecret}, "refresh_token": {refresh}})
		assert.Equal(t, http.StatusBadRequest, status, "mfa-required %s: %v", on, body)
		assert.Equal(t, "invalid_grant", body["error"])
	}
}

// Ensure an invitation gives no password to a person of another account:
// the admin of one account (globex), holding the link of an invitation
// they made, accepts it with a password of their choosing; were it
// stored, they would sign in to acme as that person. For a person of acme
// without a password (single sign-on), active or deactivated there (it may
// be restored), and for an email of a domain acme has verified that has
// no account yet (its first single sign-on would find the password): 409
// password_elsewhere, nothing stored, the invitation still pending. Nor
// can globex move one of its own people into (or out of) acme's domain.
func TestWallsAttackInvitationPassword(t *testing.T) {
	ae := mustAuthEnv(t, nil)
	ae.verifyDomain("acme", "acme.test")
	acmeAdmin := ae.token("acme", "admin@acme.test", "Account Admin")
	globexAdmin := ae.token("globex", "boss@globex.test", "Account Admin")
	const chosen = "attacker's chosen password"

	gil := ae.member("acme", "gil@sso.test", "Account Admin", "active", "standard") // no password: single sign-on
	del := ae.member("acme", "del@sso.test", "Account Admin", "active", "standard")
	require.Equal(t, http.StatusNoContent, ae.req(http.MethodDelete, "/acme/v1/users/"+del, acmeAdmin, "").Status)
	for _, tc := range []struct{ name, email, says string }{
		{"a person of acme without a password", "gil@sso.test", "has no password"},
		{"a person deactivated in acme", "del@sso.test", "has no password"},
		{"an email of acme's verified domain, no one's yet", "future@acme.test", "the domain acme.test is verified by another account"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, token := ae.invite("globex", globexAdmin, "Target", tc.email)
			a := ae.accept(token, "application/x-www-form-urlencoded", formPassword(chosen))
			require.Equal(t, http.StatusConflict, a.Status, "%s", a.Raw)
			require.Equal(t, "password_elsewhere", a.Body["error"])
			require.Contains(t, a.Body["error_description"], tc.says)
			_, err := ae.svc.Invitation(context.Background(), token)
			require.NoError(t, err, "the invitation is still pending")
			_, err = ae.passwordToken(tc.email, chosen)
			require.Error(t, err, "no password was stored")
		})
	}
	require.Equal(t, "active", ae.get("/acme/v1/users/"+gil, acmeAdmin).attr("status"))

	// globex's own person, with a password globex's admin chose, cannot
	// be renamed into acme's domain (nor out of it)
	x, token := ae.invite("globex", globexAdmin, "X", "x@globex.test")
	require.Equal(t, http.StatusNoContent, ae.accept(token, "application/x-www-form-urlencoded", formPassword(chosen)).Status)
	r := ae.req(http.MethodPatch, "/globex/v1/users/"+x, globexAdmin, doc("users", x, `{"email":"dee@acme.test"}`))
	assert.Contains(t, assertError(t, r, http.StatusConflict, "")["detail"], "the domain acme.test is verified by another account")
	y, _ := ae.invite("globex", globexAdmin, "Y", "y@acme.test") // invited, never accepted
	r = ae.req(http.MethodPatch, "/globex/v1/users/"+y, globexAdmin, doc("users", y, `{"email":"y@globex.test"}`))
	assert.Contains(t, assertError(t, r, http.StatusConflict, "")["detail"], "the email of its people changes only there")
}

// Ensure a pending invitation from another account does not take from
// an account what it may change of its own people: globex invites acme's
// admin and never accepts; acme still changes the admin's email and
// resets their second factor.
func TestWallsPendingInvitationElsewhere(t *testing.T) {
	ae := mustAuthEnv(t, nil)
	acmeAdmin := ae.token("acme", "admin@acme.test", "Account Admin")
	globexAdmin := ae.token("globex", "boss@globex.test", "Account Admin")
	ae.invite("globex", globexAdmin, "Ada", aeAdaEmail)
	assert.Equal(t, http.StatusNoContent, ae.req(http.MethodPost, "/acme/v1/users/"+ae.adaID+"/reset-mfa", acmeAdmin, "").Status)
	r := ae.req(http.MethodPatch, "/acme/v1/users/"+ae.adaID, acmeAdmin, doc("users", ae.adaID, `{"email":"ada2@acme.test"}`))
	assert.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
}

// Ensure one account cannot squat another's people with service
// accounts: a service account with an email of a domain acme verified
// (acme's future person could then never sign in nor be invited), or
// with the email of a person of acme, is refused with 409, and nothing is
// created.
func TestWallsAttackServiceAccountSquat(t *testing.T) {
	ae := mustAuthEnv(t, nil)
	ae.verifyDomain("acme", "acme.test")
	globexAdmin := ae.token("globex", "boss@globex.test", "Account Admin")
	for _, tc := range []struct{ email, says string }{
		{"zed@acme.test", "the domain acme.test is verified by another account"},
		{aeAdaEmail, "a service account is a user of one account"},
	} {
		r := ae.req(http.MethodPost, "/globex/v1/users", globexAdmin, doc("users", "", `{"name":"Bot","email":"`+tc.email+`","user-type":"service"}`))
		assert.Contains(t, assertError(t, r, http.StatusConflict, "")["detail"], tc.says, tc.email)
	}
	emails := map[string]bool{}
	for _, u := range ae.get("/globex/v1/users", globexAdmin).list() {
		emails[u["attributes"].(map[string]any)["email"].(string)] = true
	}
	assert.False(t, emails["zed@acme.test"] || emails[aeAdaEmail], "nothing created: %v", emails)
	// acme's own service account in its domain is acme's to make
	acmeAdmin := ae.token("acme", "admin@acme.test", "Account Admin")
	r := ae.req(http.MethodPost, "/acme/v1/users", acmeAdmin, doc("users", "", `{"name":"Bot","email":"zed@acme.test","user-type":"service"}`))
	assert.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
}
