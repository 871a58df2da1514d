package httpadapter_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/scopekit/scopekit/auth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

// Users' life cycle (docs/resources.md "users", docs/auth.md "Invitations"):
// invitation, acceptance, deactivation, service accounts and their
// credentials.

// acceptAnswer is an answer of the invitation endpoint.
type acceptAnswer struct {
	Status int
	Header http.Header
	Body   map[string]any
	Raw    string
}

// accept posts to /oauth/invitations/{token}/accept.
func (ae *authEnv) accept(token, contentType, body string) *acceptAnswer {
	ae.t.Helper()
	p := ae.fetch(ae.srv.Client(), http.MethodPost, "/oauth/invitations/"+url.PathEscape(token)+"/accept", contentType, body)
	a := &acceptAnswer{Status: p.Status, Header: p.Header, Raw: p.Body}
	if p.Body != "" {
		require.NoError(ae.t, json.Unmarshal([]byte(p.Body), &a.Body), p.Body)
		require.Equal(ae.t, "application/json", p.Header.Get("Content-Type"))
	}
	return a
}

func formPassword(pw string) string { return url.Values{"password": {pw}}.Encode() }

// invite creates a user through the API and returns its id and token.
func (ae *authEnv) invite(slug, admin, name, email string) (id, token string) {
	ae.t.Helper()
	r := ae.req(http.MethodPost, "/"+slug+"/v1/users", admin, doc("users", "", `{"name":"`+name+`","email":"`+email+`"}`))
	require.Equal(ae.t, http.StatusCreated, r.Status, "%s", r.Body)
	require.Equal(ae.t, "invited", r.attr("status"))
	token, _ = r.meta("invitation-token").(string)
	require.NotEmpty(ae.t, token, "%s", r.Body)
	return r.data()["id"].(string), token
}

// requireAcceptError checks a {"error", "error_description"} answer.
func requireAcceptError(t *testing.T, a *acceptAnswer, status int, code string) {
	t.Helper()
	require.Equal(t, status, a.Status, a.Raw)
	require.Equal(t, code, a.Body["error"], a.Raw)
	require.NotEmpty(t, a.Body["error_description"], a.Raw)
	require.Equal(t, "no-store", a.Header.Get("Cache-Control"))
}

// Ensure creating a user returns its invitation token once in the
// top-level meta, keeps only a digest, and that accepting it with a
// password (form or JSON) activates the user, who can then sign in.
func TestInvitation_Accept(t *testing.T) {
	ae := mustAuthEnv(t, nil)
	admin := ae.admin()
	niaID, token := ae.invite("acme", admin, "Nia", "nia@acme.test")
	digest := sha256.Sum256([]byte(token))

	show := ae.get("/acme/v1/users/"+niaID, admin)
	require.Equal(t, http.StatusOK, show.Status)
	require.Nil(t, show.Doc["meta"], "the token is shown once, by the create call")
	for _, r := range []*resp{show, ae.get("/acme/v1/users", admin), ae.get("/acme/v1/users/"+niaID+"?fields[users]=name", admin)} {
		require.NotContains(t, string(r.Body), token)
		require.NotContains(t, string(r.Body), hex.EncodeToString(digest[:]))
		require.NotContains(t, string(r.Body), "invitation-digest")
		require.NotContains(t, string(r.Body), "accepted")
	}
	_, err := ae.passwordToken("nia@acme.test", "nia's new password")
	grantErr(t, err, auth.InvalidGrant)

	for _, bad := range []string{"nope", "1.2.3", token + "x", token[:len(token)-1], strings.Replace(token, ".", "..", 1),
		ae.accts["globex"] + token[strings.Index(token, "."):]} {
		requireAcceptError(t, ae.accept(bad, "application/x-www-form-urlencoded", formPassword("nia's new password")), http.StatusNotFound, "not_found")
	}
	requireAcceptError(t, ae.accept(token, "application/x-www-form-urlencoded", formPassword("elevenchars")), http.StatusUnprocessableEntity, "invalid_password")
	a := ae.accept(token, "application/x-www-form-urlencoded", formPassword(""))
	requireAcceptError(t, a, http.StatusUnprocessableEntity, "invalid_password")
	require.Contains(t, a.Body["error_description"], "12")
	requireAcceptError(t, ae.accept(token, "application/json", `{"password":"`+strings.Repeat("x", 73)+`"}`), http.StatusUnprocessableEntity, "invalid_password")

	a = ae.accept(token, "application/x-www-form-urlencoded", formPassword("nia's new password"))
	require.Equal(t, http.StatusNoContent, a.Status, a.Raw)
	require.Empty(t, a.Raw)
	requireAcceptError(t, ae.accept(token, "application/x-www-form-urlencoded", formPassword("nia's new password")), http.StatusNotFound, "not_found")
	requireAcceptError(t, ae.accept(token, "application/json", `{"password":"something else entirely"}`), http.StatusNotFound, "not_found")

	require.Equal(t, "active", ae.get("/acme/v1/users/"+niaID, admin).attr("status"))
	tok, err := ae.passwordToken("nia@acme.test", "nia's new password")
	require.NoError(t, err)
	require.Equal(t, niaID, ae.meAs(t, tok.AccessToken))

	// JSON, with a charset parameter and other members ignored
	oliID, oliToken := ae.invite("acme", admin, "Oli", "oli@acme.test")
	a = ae.accept(oliToken, "application/json; charset=utf-8", `{"password":"olí's pässword ✓","note":1}`)
	require.Equal(t, http.StatusNoContent, a.Status, a.Raw)
	tok, err = ae.passwordToken("oli@acme.test", "olí's pässword ✓")
	require.NoError(t, err)
	require.Equal(t, oliID, ae.meAs(t, tok.AccessToken))

	raw := ae.stored()
	for _, secret := range []string{token, oliToken, "nia's new password", "olí's pässword ✓"} {
		require.NotContains(t, string(raw), secret, "stored in clear")
	}
}

// Ensure an invitation of a deactivated membership cannot be accepted,
// restoring it re-opens it, and a service account is never invited.
func TestInvitation_States(t *testing.T) {
	ae := mustAuthEnv(t, nil)
	admin := ae.admin()
	id, token := ae.invite("acme", admin, "Pat", "pat@acme.test")
	require.Equal(t, http.StatusNoContent, ae.req(http.MethodDelete, "/acme/v1/users/"+id, admin, "").Status)
	requireAcceptError(t, ae.accept(token, "application/x-www-form-urlencoded", formPassword("pat's password!")), http.StatusNotFound, "not_found")
	r := ae.patch("/acme/v1/users/"+id, admin, "users", id, `{"active":true}`)
	require.Equal(t, "invited", r.attr("status"))
	require.Equal(t, http.StatusNoContent, ae.accept(token, "application/x-www-form-urlencoded", formPassword("pat's password!")).Status)

	r = ae.req(http.MethodPost, "/acme/v1/users", admin, doc("users", "", `{"name":"Robo","email":"robo@acme.test","user-type":"service"}`))
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	require.Equal(t, "active", r.attr("status"))
	require.Nil(t, r.meta("invitation-token"), "a service account has nothing to accept")

	// converting an invited user drops the invitation
	qid, qToken := ae.invite("acme", admin, "Quin", "quin@acme.test")
	r = ae.req(http.MethodPatch, "/acme/v1/users/"+qid, admin,
		`{"data":{"type":"users","id":"`+qid+`","attributes":{"user-type":"service"}},"meta":{"confirm":true}}`)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Equal(t, "active", r.attr("status"))
	requireAcceptError(t, ae.accept(qToken, "application/x-www-form-urlencoded", formPassword("quin's password")), http.StatusNotFound, "not_found")
}

// Ensure inviting an identity that already has a password (a member of
// another account) cannot be used to take it over: accepting needs that
// password, which is kept.
func TestInvitation_ExistingIdentity(t *testing.T) {
	ae := mustAuthEnv(t, nil)
	globexAdmin := ae.token("globex", "admin@globex.test", "Account Admin")
	id, token := ae.invite("globex", globexAdmin, "Ada", aeAdaEmail)
	require.Equal(t, ae.adaID, id, "one identity across accounts")
	a := ae.accept(token, "application/x-www-form-urlencoded", formPassword("the inviter's choice"))
	requireAcceptError(t, a, http.StatusUnprocessableEntity, "invalid_password")
	require.Contains(t, a.Body["error_description"], "already has a password")
	require.Equal(t, http.StatusNoContent, ae.accept(token, "application/json", `{"password":"`+aePassword+`"}`).Status)
	require.Equal(t, "active", ae.get("/globex/v1/users/"+id, globexAdmin).attr("status"))
	_, err := ae.passwordToken(aeAdaEmail, aePassword)
	require.NoError(t, err, "the password is kept")
	_, err = ae.passwordToken(aeAdaEmail, "the inviter's choice")
	grantErr(t, err, auth.InvalidGrant)
}

// Ensure deactivating (archiving or deleting) a user makes its tokens
// answer 401 at once and new grants invalid_grant, and that restoring it
// does not bring the old tokens back.
func TestDeactivation_RevokesTokens(t *testing.T) {
	for _, how := range []string{"DELETE", "PATCH active false"} {
		t.Run(how, func(t *testing.T) {
			ae := mustAuthEnv(t, nil)
			admin := ae.admin()
			pw, err := ae.passwordToken(aeAdaEmail, aePassword)
			require.NoError(t, err)
			_, ans := ae.signIn(ae.portal(oauth2.AuthStyleInHeader).AuthCodeURL("s"), aeAdaEmail, aePassword)
			code, _ := codeFrom(t, ans)
			byCode, err := ae.portal(oauth2.AuthStyleInHeader).Exchange(ae.ctx(), code)
			require.NoError(t, err)
			_, ans = ae.signIn(ae.portal(oauth2.AuthStyleInHeader).AuthCodeURL("s"), aeAdaEmail, aePassword)
			unusedCode, _ := codeFrom(t, ans)
			botID, botToken := ae.user("acme", "bot@acme.test", "Account Admin")
			for _, tok := range []string{pw.AccessToken, byCode.AccessToken, botToken} {
				require.Equal(t, http.StatusOK, ae.get("/acme/v1/projects", tok).Status)
			}

			for _, id := range []string{ae.adaID, botID} {
				if how == "DELETE" {
					require.Equal(t, http.StatusNoContent, ae.req(http.MethodDelete, "/acme/v1/users/"+id, admin, "").Status)
				} else {
					require.Equal(t, "deactivated", ae.patch("/acme/v1/users/"+id, admin, "users", id, `{"active":false}`).attr("status"))
				}
			}
			for _, tok := range []string{pw.AccessToken, byCode.AccessToken, botToken} {
				for _, path := range []string{"/v1/me", "/acme/v1/projects", "/v2/clients"} {
					r := ae.get(path, tok)
					assertError(t, r, http.StatusUnauthorized, "")
					assert.Empty(t, r.firstError()["detail"])
				}
			}
			_, err = ae.passwordToken(aeAdaEmail, aePassword)
			grantErr(t, err, auth.InvalidGrant)
			_, err = (&clientcredentials.Config{ClientID: "cid-acme-bot@acme.test", ClientSecret: "secret-bot@acme.test",
				TokenURL: ae.srv.URL + "/oauth/token", AuthStyle: oauth2.AuthStyleInParams}).Token(ae.ctx())
			grantErr(t, err, auth.InvalidGrant)
			_, err = ae.portal(oauth2.AuthStyleInHeader).TokenSource(ae.ctx(), &oauth2.Token{RefreshToken: pw.RefreshToken, Expiry: time.Now().Add(-time.Minute)}).Token()
			grantErr(t, err, auth.InvalidGrant)
			form, ans := ae.signIn(ae.portal(oauth2.AuthStyleInHeader).AuthCodeURL("s"), aeAdaEmail, aePassword)
			require.Equal(t, http.StatusOK, form.Status)
			require.Equal(t, http.StatusForbidden, ans.Status)
			require.Contains(t, ans.errorText(), "deactivated")

			// restored: new sign-ins work, what was issued before stays void
			require.Equal(t, "active", ae.patch("/acme/v1/users/"+ae.adaID, admin, "users", ae.adaID, `{"active":true}`).attr("status"))
			for _, tok := range []string{pw.AccessToken, byCode.AccessToken} {
				assertError(t, ae.get("/v1/me", tok), http.StatusUnauthorized, "")
			}
			_, err = ae.portal(oauth2.AuthStyleInHeader).Exchange(ae.ctx(), unusedCode)
			grantErr(t, err, auth.InvalidGrant)
			fresh, err := ae.passwordToken(aeAdaEmail, aePassword)
			require.NoError(t, err)
			require.Equal(t, ae.adaID, ae.meAs(t, fresh.AccessToken))
		})
	}
}

// Ensure POST /users/{id}/credentials issues service-account credentials
// once (201, secret shown once), replaces them when issued again, and is
// refused for other users, other accounts and roles without users manage.
func TestServiceAccountCredentials(t *testing.T) {
	ae := mustAuthEnv(t, nil)
	admin := ae.admin()
	r := ae.req(http.MethodPost, "/acme/v1/users", admin, doc("users", "", `{"name":"Robo","email":"robo@acme.test","user-type":"service"}`))
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	robo := r.data()["id"].(string)

	issue := func(token, path string) *resp {
		return ae.req(http.MethodPost, path, token, "")
	}
	r = issue(admin, "/acme/v1/users/"+robo+"/credentials")
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	require.Equal(t, "service-account-credentials", r.data()["type"])
	clientID, _ := r.attr("client-id").(string)
	secret, _ := r.attr("client-secret").(string)
	require.NotEmpty(t, clientID)
	require.GreaterOrEqual(t, len(secret), 43)
	require.Equal(t, clientID, r.data()["id"])
	require.Regexp(t, `^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$`, r.attr("created-at"))
	require.Equal(t, robo, r.rel("user"))
	require.Equal(t, "no-store", r.Header.Get("Cache-Control"))

	cc := func(id, secret string) *clientcredentials.Config {
		return &clientcredentials.Config{ClientID: id, ClientSecret: secret, TokenURL: ae.srv.URL + "/oauth/token", AuthStyle: oauth2.AuthStyleInHeader}
	}
	tok, err := cc(clientID, secret).Token(ae.ctx())
	require.NoError(t, err)
	require.Equal(t, robo, ae.meAs(t, tok.AccessToken))

	r = issue(admin, "/acme/v1/users/"+robo+"/credentials")
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	secret2 := r.attr("client-secret").(string)
	clientID2 := r.attr("client-id").(string)
	require.NotEqual(t, secret, secret2)
	_, err = cc(clientID, secret).Token(ae.ctx())
	grantErr(t, err, auth.InvalidClient)
	assertError(t, ae.get("/v1/me", tok.AccessToken), http.StatusUnauthorized, "")
	tok2, err := cc(clientID2, secret2).Token(ae.ctx())
	require.NoError(t, err)
	require.Equal(t, robo, ae.meAs(t, tok2.AccessToken))

	first := assertError(t, issue(admin, "/acme/v1/users/"+ae.adaID+"/credentials"), http.StatusConflict, "")
	require.Contains(t, first["detail"], "service")
	assertError(t, issue(admin, "/acme/v1/users/999999/credentials"), http.StatusNotFound, "")
	globexAdmin := ae.token("globex", "admin@globex.test", "Account Admin")
	globexBot := ae.member("globex", "gbot@globex.test", "Read Only", "active", "service")
	assertError(t, issue(admin, "/acme/v1/users/"+globexBot+"/credentials"), http.StatusNotFound, "")
	assertError(t, issue(globexAdmin, "/acme/v1/users/"+robo+"/credentials"), http.StatusForbidden, "")
	assertError(t, issue(globexAdmin, "/globex/v1/users/"+robo+"/credentials"), http.StatusNotFound, "")
	assertError(t, issue(admin, "/v2/users/"+robo+"/credentials"), http.StatusNotFound, "")
	for _, role := range []string{"Sales", "Read Only", "Engineer"} {
		tok := ae.token("acme", strings.ReplaceAll(strings.ToLower(role), " ", "")+"@acme.test", role)
		assertError(t, issue(tok, "/acme/v1/users/"+robo+"/credentials"), http.StatusForbidden, "")
	}
	// the refusals above issued nothing: the last credentials still work
	_, err = cc(clientID2, secret2).Token(ae.ctx())
	require.NoError(t, err)

	raw := ae.stored()
	require.NotContains(t, string(raw), secret)
	require.NotContains(t, string(raw), secret2)
}
