package webapp_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/engine"
	"github.com/stretchr/testify/require"
)

var secretShown = regexp.MustCompile(`<p class="secret" data-once>([^<]+)</p>`)

// shownOnce are the values a page shows once, in order.
func shownOnce(p *page) []string {
	var out []string
	for _, m := range secretShown.FindAllStringSubmatch(p.Body, -1) {
		out = append(out, m[1])
	}
	return out
}

// Ensure a users manager invites a person (whose link, shown once,
// holds the token that accepts the invitation through the API too), changes a role, resets a second factor,
// deactivates a member (whose session ends), creates a service account
// and issues its credentials (shown once, and working), and converts a
// person to a service account: each the API's use case.
func TestSettingsPeople(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	b := e.browser()
	b.signIn("acme", "ada@acme.test")
	roles := b.get("/app/acme/settings/users/new").Body
	sales := regexp.MustCompile(`<option value="(\d+)">Sales</option>`).FindStringSubmatch(roles)[1]

	p := b.createSetting(t, "users", "name", "Pat", "email", "pat@acme.test", "roles", sales, "user-type", "standard")
	require.Equal(t, http.StatusCreated, p.Status, p.Body)
	link := shownOnce(p)
	require.Len(t, link, 1)
	require.Equal(t, "no-store", p.Header.Get("Cache-Control"))
	token := strings.TrimPrefix(link[0], e.srv.URL+"/app/invitations/")
	require.NotEqual(t, link[0], token, "the link is the workspace's invitation page")
	res, err := http.PostForm(e.srv.URL+"/oauth/invitations/"+url.PathEscape(token)+"/accept", url.Values{"password": {password}})
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusNoContent, res.StatusCode)
	pat := e.browser()
	require.Contains(t, pat.signIn("acme", "pat@acme.test").URL, "/app/acme/projects")
	patID := recordID.FindStringSubmatch(b.get("/app/acme/settings/users?q=Pat").Body)[1]

	// a role, a second factor reset, a deactivation
	form := b.get("/app/acme/settings/users/" + patID).hidden()
	readOnly := regexp.MustCompile(`<option value="(\d+)">Read Only</option>`).FindStringSubmatch(roles)[1]
	form.Set("roles", readOnly)
	p = b.post("/app/acme/settings/users/"+patID, form, false)
	require.Equal(t, http.StatusOK, p.Status, p.Body)
	require.Contains(t, pat.get("/app/acme/settings/preferences").Body, "does not let you change it", "Read Only views its preferences")

	store := e.db.AuthStore()
	require.NoError(t, store.Update(ctx, func(tx auth.Tx) error { return tx.PutMFA(&auth.MFA{UserID: patID, SealedSecret: []byte("sealed")}) }))
	csrf := p.csrf(t)
	p = b.post("/app/acme/settings/users/"+patID+"/reset-mfa", formOf("csrf", csrf), false)
	require.Equal(t, http.StatusOK, p.Status, p.Body)
	require.Contains(t, p.Body, "second factor was removed")
	_, err = store.MFA(ctx, patID)
	require.Error(t, err, "reset")
	p = b.post("/app/acme/settings/users/"+patID+"/deactivate", formOf("csrf", csrf), false)
	require.Equal(t, http.StatusOK, p.Status, p.Body)
	require.Equal(t, "deactivated", e.apiRecordAny("acme", "users", patID)["status"])
	require.Contains(t, pat.get("/app/acme/projects").URL, "/oauth/authorize", "the session ended")

	// a service account and its credentials
	p = b.createSetting(t, "users", "name", "Robot", "email", "robot@acme.test", "roles", sales, "user-type", "service")
	require.Equal(t, http.StatusOK, p.Status, p.Body)
	robot := recordID.FindStringSubmatch(p.URL)[1]
	p = b.post("/app/acme/settings/users/"+robot+"/credentials", formOf("csrf", csrf), false)
	require.Equal(t, http.StatusCreated, p.Status, p.Body)
	cred := shownOnce(p)
	require.Len(t, cred, 2)
	tok, err := e.auth.Token(ctx, &auth.TokenRequest{GrantType: auth.GrantClientCredentials, ClientID: cred[0], ClientSecret: cred[1]})
	require.NoError(t, err, "the credentials shown work")
	require.NotEmpty(t, tok.AccessToken)
	require.NotContains(t, b.get("/app/acme/settings/users/"+robot).Body, cred[1], "shown once")

	// a person converted
	cam := e.member("acme", "cam@acme.test", "Cam", "Engineer")
	p = b.post("/app/acme/settings/users/"+cam+"/convert", formOf("csrf", csrf), false)
	require.Equal(t, http.StatusOK, p.Status, p.Body)
	require.Equal(t, "service", e.apiRecord("acme", "users", cam)["user-type"])
}

// Ensure a role's permission grid is stored as the API's permissions
// object, and no one grants more than they hold: a users manager without
// settings cannot make a role with it (403), and nothing is written.
func TestSettingsRoleGrid(t *testing.T) {
	e := newEnv(t)
	b := e.browser()
	b.signIn("acme", "ada@acme.test")
	form := b.get("/app/acme/settings/roles/new").hidden()
	form.Set("name", "Scoper")
	form.Set("project-visibility", "assigned")
	form.Set("perm.projects", "manage")
	form.Set("perm.catalog", "view")
	p := b.post("/app/acme/settings/roles", form, false)
	require.Equal(t, http.StatusOK, p.Status, p.Body)
	id := recordID.FindStringSubmatch(p.URL)[1]
	got := e.apiRecord("acme", "roles", id)
	require.Equal(t, "assigned", got["project-visibility"])
	perms := got["permissions"].(map[string]any)
	require.Equal(t, "manage", perms["projects"])
	require.Equal(t, "view", perms["catalog"])
	require.NotContains(t, []any{"view", "manage"}, perms["settings"], "a permission not granted is none")
	require.Contains(t, p.Body, `name="perm.projects" value="manage" aria-labelledby="r-permissions-projects r-permissions-lv-manage" checked`)

	e.roleMember(t, "People admin", map[string]string{"users": "manage"}, "hal@acme.test")
	h := e.browser()
	h.signIn("acme", "hal@acme.test")
	form = h.get("/app/acme/settings/roles/new").hidden()
	form.Set("name", "Escalated")
	form.Set("perm.settings", "manage")
	p = h.post("/app/acme/settings/roles", form, false)
	require.Equal(t, http.StatusForbidden, p.Status, p.Body)
	require.Equal(t, 0, e.count("acme", "roles", "name", "Escalated"))
	require.Contains(t, p.Body, "no one grants more than they hold")
	require.Contains(t, p.Body, `value="Escalated"`, "the form comes back as sent")
}

// Ensure an identity provider is registered from its form (its secret
// kept when the form leaves it blank), its page shows each email
// domain's verification, and a domain is claimed and verified by DNS
// from the domain's page (refused, with the reason, until the TXT record
// is published).
func TestSettingsIdentityProviders(t *testing.T) {
	e := newEnv(t)
	b := e.browser()
	b.signIn("acme", "ada@acme.test")
	p := b.createSetting(t, "identity-providers", "name", "Corp SSO", "issuer-url", "https://idp.corp.test",
		"client-id", "scopekit", "client-secret", "s3cret-value", "email-domains", "corp.acme.test\nlabs.acme.test",
		"passwords-allowed", "true", "active", "true")
	require.Equal(t, http.StatusOK, p.Status, p.Body)
	require.Contains(t, p.URL, "/oauth/authorize", "the sign-in policy changed: everyone signs in again")
	b.signIn("acme", "ada@acme.test")
	id := recordID.FindStringSubmatch(b.get("/app/acme/settings/identity-providers").Body)[1]
	p = b.get("/app/acme/settings/identity-providers/" + id)
	require.NotContains(t, p.Body, "s3cret-value", "a secret is never shown")
	require.Contains(t, p.Body, "<td>corp.acme.test</td><td><span class=\"status\">Not claimed</span>")
	form := p.formValues("r-form")
	form.Set("name", "Corp single sign-on")
	require.Equal(t, "", form.Get("client-secret"))
	p = b.post("/app/acme/settings/identity-providers/"+id, form, false)
	require.Equal(t, http.StatusOK, p.Status, p.Body)
	require.Equal(t, "Corp single sign-on", e.apiRecord("acme", "identity-providers", id)["name"])
	require.Contains(t, p.URL, "/settings/identity-providers/"+id, "a name is no sign-in policy: the session stays")

	p = b.createSetting(t, "domains", "domain", "corp.acme.test")
	require.Equal(t, http.StatusOK, p.Status, p.Body)
	dom := recordID.FindStringSubmatch(p.URL)[1]
	txt := regexp.MustCompile(`<p class="secret" id="txt-record">([^<]+)</p>`).FindStringSubmatch(p.Body)
	require.NotNil(t, txt, p.Body)
	csrf := p.csrf(t)
	p = b.post("/app/acme/settings/domains/"+dom+"/verify", formOf("csrf", csrf), false)
	require.Equal(t, http.StatusUnprocessableEntity, p.Status, p.Body)
	require.Contains(t, p.Body, "Prove the domain is yours")
	e.dns.publish("corp.acme.test", txt[1])
	p = b.post("/app/acme/settings/domains/"+dom+"/verify", formOf("csrf", csrf), false)
	require.Equal(t, http.StatusOK, p.Status, p.Body)
	require.Contains(t, p.Body, "corp.acme.test is verified")
	require.Contains(t, b.get("/app/acme/settings/identity-providers/"+id).Body, `<span class="status verified">Verified</span>`)
}

// Ensure a users manager sees a member whose role holds more than their
// own read-only: the page says why and offers no form and no action, and
// an action posted anyway is refused (403) and changes nothing; a lesser
// member's page keeps its form and actions.
func TestPeopleAboveYouAreReadOnly(t *testing.T) {
	e := newEnv(t)
	e.roleMember(t, "People admin", map[string]string{"users": "manage"}, "hal@acme.test")
	e.roleMember(t, "Clerk", map[string]string{"users": "view"}, "cle@acme.test")
	h := e.browser()
	p := h.signIn("acme", "hal@acme.test")
	require.Equal(t, http.StatusOK, p.Status)
	require.Contains(t, p.URL, "/app/acme/settings", "a role without projects lands on its settings")
	ada, clerk := e.users["ada@acme.test"], e.users["cle@acme.test"]

	p = h.get("/app/acme/settings/users/" + ada)
	require.Equal(t, http.StatusOK, p.Status)
	require.Contains(t, p.Body, `id="read-only-why"`)
	require.Contains(t, p.Body, "Their role holds more than yours")
	for _, act := range []string{`id="act-deactivate"`, `id="act-reset-mfa"`, `id="act-convert"`, `name="email"`} {
		require.NotContains(t, p.Body, act)
	}
	csrf := h.get("/app/acme/settings/users/" + clerk).csrf(t)
	for _, act := range []string{"deactivate", "reset-mfa", "convert"} {
		r := h.post("/app/acme/settings/users/"+ada+"/"+act, formOf("csrf", csrf), false)
		require.Equal(t, http.StatusForbidden, r.Status, act)
		require.Contains(t, r.Body, "no one manages what holds more than they do", act)
	}
	require.Equal(t, "active", e.apiRecordAny("acme", "users", ada)["status"])
	require.Equal(t, "standard", e.apiRecordAny("acme", "users", ada)["user-type"])

	p = h.get("/app/acme/settings/users/" + clerk)
	require.NotContains(t, p.Body, `id="read-only-why"`)
	require.Contains(t, p.Body, `id="act-deactivate"`)
	require.Contains(t, p.Body, `name="email"`)

	// the Account Admin role, likewise: emptying it would demote every
	// Account Admin
	sys, err := e.svc.SystemActor(context.Background(), e.accts["acme"])
	require.NoError(t, err)
	res, err := e.svc.List(context.Background(), sys, "roles", engine.ListParams{PageSize: 1, PageNumber: 1,
		Filters: map[string]string{"name": "Account Admin"}}, engine.Options{})
	require.NoError(t, err)
	adminRole := res.Records[0]
	p = h.get("/app/acme/settings/roles/" + adminRole.ID)
	require.Equal(t, http.StatusOK, p.Status)
	require.Contains(t, p.Body, "This role holds more than yours")
	require.NotContains(t, p.Body, `name="perm.projects"`)
	form := url.Values{"csrf": {csrf}, "name": {"Account Admin"}, "project-visibility": {"assigned"}}
	r := h.post("/app/acme/settings/roles/"+adminRole.ID, form, false)
	require.Equal(t, http.StatusForbidden, r.Status)
	require.Contains(t, r.Body, "no one manages what holds more than they do")
	require.Equal(t, adminRole.Attrs["permissions"], e.apiRecord("acme", "roles", adminRole.ID)["permissions"], "unchanged")
}

// Ensure a role with users and settings manage, but less than every role
// of the account, is offered no identity provider or domain to create:
// the lists have no New, and the new forms answer 403 saying why.
func TestPeopleProvidersNeedTheTop(t *testing.T) {
	e := newEnv(t)
	e.roleMember(t, "Keeper", map[string]string{"users": "manage", "settings": "manage"}, "kee@acme.test")
	k := e.browser()
	k.signIn("acme", "kee@acme.test")
	for _, key := range []string{"identity-providers", "domains"} {
		p := k.get("/app/acme/settings/" + key)
		require.Equal(t, http.StatusOK, p.Status, key)
		require.NotContains(t, p.Body, `id="new-record"`, key)
		p = k.get("/app/acme/settings/" + key + "/new")
		require.Equal(t, http.StatusForbidden, p.Status, key)
		require.Contains(t, p.Body, "needs as much as every role of the account", key)
	}
	a := e.browser()
	a.signIn("acme", "ada@acme.test")
	require.Contains(t, a.get("/app/acme/settings/domains").Body, `id="new-record"`, "the Account Admin may")
}
