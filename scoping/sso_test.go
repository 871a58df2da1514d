package scoping_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/internal/oidctest"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/sso"
	"github.com/stretchr/testify/require"
)

// The sealed client secret's attribute, stored but never served.
const idpSealedAttr = "client-secret-sealed"

// idpAttrs are the attributes of a provider for acme.test, changed by kv.
func idpAttrs(kv ...string) map[string]json.RawMessage {
	m := attrs("name", `"Acme SSO"`, "issuer-url", `"https://login.acme.test"`, "client-id", `"scopekit"`,
		"client-secret", `"the client secret"`, "email-domains", `["Acme.Test"]`, "passwords-allowed", "false")
	for k, v := range attrs(kv...) {
		if string(v) == "" {
			delete(m, k)
		} else {
			m[k] = v
		}
	}
	return m
}

func idpUpdate(svc *scoping.Service, a *engine.Actor, id string, at map[string]json.RawMessage, rels map[string]engine.RelInput) error {
	_, err := svc.Update(context.Background(), a, "identity-providers", id, &engine.Input{Attrs: at, Rels: rels}, engine.Options{})
	return err
}

// ssoService is a service with a sealer, the accounts acme (with its
// system actor; acme.test is its verified domain) and globex, and its
// auth.IdentityProviders.
func ssoService(t *testing.T) (svc *scoping.Service, ps auth.IdentityProviders, acme, globex *engine.Record, sys *engine.Actor) {
	t.Helper()
	svc, _, _ = hookService(t)
	acme, sys = acctAccount(t, svc, "acme")
	globex, _ = acctAccount(t, svc, "globex")
	require.NoError(t, svc.Setup(context.Background(), func(a *scoping.Admin) error {
		_, err := a.VerifyDomain(acme.ID, "acme.test")
		return err
	}))
	return svc, scoping.IdentityProviders(svc), acme, globex, sys
}

// Ensure a provider's client secret is written, never served nor stored
// in clear, and its issuer URL and email domains are checked.
func TestSSOProviderRecords(t *testing.T) {
	ctx := context.Background()
	svc, sealer, _ := hookService(t)
	_, sys := acctAccount(t, svc, "acme")
	idp := acctCreate(t, svc, sys, "identity-providers", idpAttrs(), nil)
	require.NotContains(t, idp.Attrs, "client-secret")
	require.Equal(t, []string{"acme.test"}, idp.Strings("email-domains"))
	sealedSecret := func() string {
		for _, r := range hookStored(t, svc, "identity-providers") {
			if r.ID == idp.ID {
				require.NotContains(t, r.Attrs, "client-secret")
				sealed, err := base64.StdEncoding.DecodeString(r.Str(idpSealedAttr))
				require.NoError(t, err)
				plain, err := sealer.Open(sealed)
				require.NoError(t, err)
				return string(plain)
			}
		}
		t.Fatal("not stored")
		return ""
	}
	require.Equal(t, "the client secret", sealedSecret())
	got, err := svc.Get(ctx, sys, "identity-providers", idp.ID, engine.ListParams{}, engine.Options{})
	require.NoError(t, err)
	require.NotContains(t, got.Records[0].Attrs, "client-secret")

	require.NoError(t, idpUpdate(svc, sys, idp.ID, attrs("name", `"Renamed"`), nil))
	require.Equal(t, "the client secret", sealedSecret(), "kept when not written")
	require.NoError(t, idpUpdate(svc, sys, idp.ID, attrs("client-secret", `"a new secret"`, "issuer-url", `"http://localhost:8080/realms/acme"`), nil))
	require.Equal(t, "a new secret", sealedSecret())

	for _, tt := range []struct {
		kv          [2]string
		field, text string
	}{
		{[2]string{"issuer-url", `"http://login.acme.test"`}, "/data/attributes/issuer-url", "https"},
		{[2]string{"issuer-url", `"ldap://login.acme.test"`}, "/data/attributes/issuer-url", "https"},
		{[2]string{"issuer-url", `"https://login.acme.test#x"`}, "/data/attributes/issuer-url", "fragment"},
		{[2]string{"issuer-url", `"https://user:pw@login.acme.test"`}, "/data/attributes/issuer-url", "absolute"},
		{[2]string{"issuer-url", `"login.acme.test"`}, "/data/attributes/issuer-url", "absolute"},
		{[2]string{"email-domains", `[]`}, "/data/attributes/email-domains", "at least one"},
		{[2]string{"email-domains", `["acme.test","-x.test"]`}, "/data/attributes/email-domains", "not an email domain"},
		{[2]string{"email-domains", `["ac me.test"]`}, "/data/attributes/email-domains", "not an email domain"},
		{[2]string{"client-secret", `""`}, "/data/attributes/client-secret", "blank"},
	} {
		acctRequireErr(t, idpUpdate(svc, sys, idp.ID, attrs(tt.kv[0], tt.kv[1]), nil), scopekit.EINVALID, tt.field, tt.text)
	}
	_, err = svc.Create(ctx, sys, "identity-providers", &engine.Input{Attrs: idpAttrs("client-secret", "", "email-domains", `["other.test"]`)}, engine.Options{})
	acctRequireErr(t, err, scopekit.EINVALID, "/data/attributes/client-secret", "blank")

	// one active provider per domain; duplicates collapse
	_, err = svc.Create(ctx, sys, "identity-providers", &engine.Input{Attrs: idpAttrs("email-domains", `["other.test","ACME.TEST"]`)}, engine.Options{})
	acctRequireErr(t, err, scopekit.EINVALID, "/data/attributes/email-domains", "Renamed")
	off := acctCreate(t, svc, sys, "identity-providers", idpAttrs("email-domains", `["acme.test","acme.test"]`, "active", "false"), nil)
	require.Equal(t, []string{"acme.test"}, off.Strings("email-domains"))
	acctRequireErr(t, idpUpdate(svc, sys, off.ID, attrs("active", "true"), nil), scopekit.EINVALID, "/data/attributes/email-domains", "already covered")

	// settings manage writes; a server without a sealer keeps no secret
	sales := acctMember(t, svc, sys.Account.ID, "sales@acme.test", "Sales")
	require.Equal(t, scopekit.EFORBIDDEN, scopekit.ErrorCode(idpUpdate(svc, sales, idp.ID, attrs("name", `"x"`), nil)))
	svc.Webhooks.Sealer = nil
	_, err = svc.Create(ctx, sys, "identity-providers", &engine.Input{Attrs: idpAttrs("email-domains", `["third.test"]`)}, engine.Options{})
	require.Equal(t, scopekit.EINTERNAL, scopekit.ErrorCode(err))
	_, err = scoping.IdentityProviders(svc).Get(ctx, sys.Account.ID, idp.ID)
	require.Equal(t, scopekit.EINTERNAL, scopekit.ErrorCode(err))
}

// Ensure auth's view of the providers: the active provider covering an
// email's domain, with its secret opened.
func TestSSOProviders(t *testing.T) {
	ctx := context.Background()
	svc, ps, acme, globex, sys := ssoService(t)
	any, err := ps.Any(ctx, acme.ID)
	require.NoError(t, err)
	require.False(t, any)
	idp := acctCreate(t, svc, sys, "identity-providers", idpAttrs("jit-provisioning", "true"), nil)

	got, err := ps.Covering(ctx, acme.ID, "Ada@ACME.test")
	require.NoError(t, err)
	require.Equal(t, &auth.IdentityProvider{ID: idp.ID, AccountID: acme.ID, Name: "Acme SSO", Issuer: "https://login.acme.test",
		ClientID: "scopekit", ClientSecret: "the client secret", Domains: []string{"acme.test"}, Verified: []string{"acme.test"}, JIT: true}, got)
	byID, err := ps.Get(ctx, acme.ID, idp.ID)
	require.NoError(t, err)
	require.Equal(t, got, byID)
	any, err = ps.Any(ctx, acme.ID)
	require.NoError(t, err)
	require.True(t, any)
	// a domain acme has not verified is not routed
	require.NoError(t, idpUpdate(svc, sys, idp.ID, attrs("email-domains", `["acme.test","unproven.test"]`), nil))
	got, err = ps.Get(ctx, acme.ID, idp.ID)
	require.NoError(t, err)
	require.Equal(t, []string{"acme.test", "unproven.test"}, got.Domains)
	require.Equal(t, []string{"acme.test"}, got.Verified)
	for _, miss := range []func() error{
		func() error { _, err := ps.Covering(ctx, acme.ID, "una@unproven.test"); return err },
		func() error { _, err := ps.Covering(ctx, acme.ID, "bo@globex.test"); return err },
		func() error { _, err := ps.Covering(ctx, globex.ID, "ada@acme.test"); return err },
		func() error { _, err := ps.Get(ctx, globex.ID, idp.ID); return err },
	} {
		require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(miss()))
	}
	require.NoError(t, idpUpdate(svc, sys, idp.ID, attrs("active", "false"), nil))
	_, err = ps.Get(ctx, acme.ID, idp.ID)
	require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err))
	_, err = ps.Covering(ctx, acme.ID, "ada@acme.test")
	require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err))
}

// Ensure just-in-time provisioning makes a verified newcomer an active
// member with the provider's default role (Read Only when it names none),
// keeps an identity of another account as it is, and changes nothing for
// a member, a service account, a domain the provider does not cover or a
// provider that does not provision.
func TestSSOProvision(t *testing.T) {
	ctx := context.Background()
	svc, ps, acme, globex, sys := ssoService(t)
	dir := scoping.Directory(svc.Store())
	idp := acctCreate(t, svc, sys, "identity-providers", idpAttrs(), nil)
	p := &auth.IdentityProvider{ID: idp.ID, AccountID: acme.ID}
	member := func(email string) *auth.Membership {
		subj, err := dir.UserByEmail(ctx, email)
		if scopekit.ErrorCode(err) == scopekit.ENOTFOUND {
			return nil
		}
		require.NoError(t, err)
		m, err := dir.Membership(ctx, subj.UserID, acme.ID)
		if scopekit.ErrorCode(err) == scopekit.ENOTFOUND {
			return nil
		}
		require.NoError(t, err)
		return m
	}
	require.NoError(t, ps.Provision(ctx, p, "nia@acme.test", "Nia"))
	require.Nil(t, member("nia@acme.test"), "provisioning off")

	require.NoError(t, idpUpdate(svc, sys, idp.ID, attrs("jit-provisioning", "true"), nil))
	require.NoError(t, ps.Provision(ctx, p, " Nia@Acme.test", ""))
	m := member("nia@acme.test")
	require.Equal(t, auth.StatusActive, m.Status)
	roles := acctRoles(t, svc, sys)
	users, err := svc.List(ctx, sys, "users", engine.ListParams{}, engine.Options{})
	require.NoError(t, err)
	for _, u := range users.Records {
		if u.ID == m.UserID {
			require.Equal(t, "nia@acme.test", u.Str("name"), "the email when the provider gives no name")
			require.Equal(t, []string{roles["Read Only"].ID}, u.Rels["roles"])
		}
	}

	// an identity of another account keeps its id and email; the
	// membership's name is the provider's
	var bo *engine.Record
	require.NoError(t, svc.Setup(ctx, func(a *scoping.Admin) (err error) {
		bo, err = a.EnsureMember(globex.ID, scoping.Member{Email: "bo@acme.test", Name: "Bo", Role: "Sales"})
		return err
	}))
	require.NoError(t, idpUpdate(svc, sys, idp.ID, nil, map[string]engine.RelInput{"default-role": rel("roles", roles["Engineer"].ID)}))
	require.NoError(t, ps.Provision(ctx, p, "bo@acme.test", "Someone Else"))
	got, err := svc.Get(ctx, sys, "users", bo.ID, engine.ListParams{}, engine.Options{})
	require.NoError(t, err)
	require.Equal(t, "Someone Else", got.Records[0].Str("name"))
	require.Equal(t, "bo@acme.test", got.Records[0].Str("email"))
	require.Equal(t, []string{roles["Engineer"].ID}, got.Records[0].Rels["roles"])
	var unheld *engine.Record
	require.NoError(t, svc.Setup(ctx, func(a *scoping.Admin) (err error) {
		unheld, err = a.EnsureRole(acme.ID, "Contractor", nil, "")
		return err
	}))
	require.NoError(t, idpUpdate(svc, sys, idp.ID, nil, map[string]engine.RelInput{"default-role": rel("roles", unheld.ID)}))
	acctRequireErr(t, svc.Delete(ctx, sys, "roles", unheld.ID, engine.Options{}), scopekit.ECONFLICT, "", "default-role")

	// nothing changes for these
	require.NoError(t, svc.Setup(ctx, func(a *scoping.Admin) error {
		_, err := a.EnsureMember(acme.ID, scoping.Member{Email: "dan@acme.test", Name: "Dan", Role: "Sales", Status: "deactivated"})
		if err == nil {
			_, err = a.EnsureMember(globex.ID, scoping.Member{Email: "bot@acme.test", Name: "Bot", Role: "Sales", UserType: "service"})
		}
		return err
	}))
	require.NoError(t, ps.Provision(ctx, p, "dan@acme.test", "Dan"))
	require.Equal(t, auth.StatusDeactivated, member("dan@acme.test").Status)
	require.NoError(t, ps.Provision(ctx, p, "bot@acme.test", "Bot"))
	require.Nil(t, member("bot@acme.test"))
	require.NoError(t, ps.Provision(ctx, p, "eve@elsewhere.test", "Eve"))
	require.Nil(t, member("eve@elsewhere.test"))
	require.NoError(t, idpUpdate(svc, sys, idp.ID, attrs("email-domains", `["acme.test","unproven.test"]`), nil))
	require.NoError(t, ps.Provision(ctx, p, "newt@unproven.test", "Newt"))
	require.Nil(t, member("newt@unproven.test"), "a domain not verified provisions no one")
	require.NoError(t, ps.Provision(ctx, &auth.IdentityProvider{ID: "999999", AccountID: acme.ID}, "zed@acme.test", ""))
	require.Nil(t, member("zed@acme.test"))

	// without a default role, the account's Read Only role must exist
	require.NoError(t, idpUpdate(svc, sys, idp.ID, nil, map[string]engine.RelInput{"default-role": {}}))
	_, err = svc.Update(ctx, sys, "roles", roles["Read Only"].ID, &engine.Input{Attrs: attrs("name", `"Viewer"`)}, engine.Options{})
	require.NoError(t, err)
	acctRequireErr(t, ps.Provision(ctx, p, "zoe@acme.test", "Zoe"), scopekit.ECONFLICT, "", "Read Only")
}

// Ensure an issuer URL is stored in its one form and checked by OpenID
// discovery (a real provider) when a provider is registered or its
// issuer changes, not otherwise: an unreachable one is refused naming
// issuer-url.
func TestSSOIssuerDiscovery(t *testing.T) {
	ctx := context.Background()
	svc, _, _, _, sys := ssoService(t)
	op := oidctest.Start(t, "http://127.0.0.1:9/oauth/sso/callback")
	rp := &sso.RelyingParty{Client: &http.Client{Timeout: 10 * time.Second}} // the provider is on loopback
	var checked []string
	svc.SSO.CheckIssuer = func(ctx context.Context, issuer string) error {
		checked = append(checked, issuer)
		return rp.CheckIssuer(ctx, issuer)
	}
	idp := acctCreate(t, svc, sys, "identity-providers", idpAttrs("issuer-url", `"`+strings.ToUpper(op.Issuer)+`/"`), nil)
	require.Equal(t, op.Issuer, idp.Str("issuer-url"))
	require.Equal(t, []string{op.Issuer}, checked)

	require.NoError(t, idpUpdate(svc, sys, idp.ID, attrs("issuer-url", `"`+op.Issuer+`/"`, "name", `"Renamed"`), nil))
	require.NoError(t, idpUpdate(svc, sys, idp.ID, attrs("name", `"Renamed again"`), nil))
	require.Len(t, checked, 1, "an unchanged issuer is not checked again")
	acctRequireErr(t, idpUpdate(svc, sys, idp.ID, attrs("issuer-url", `"http://127.0.0.1:1"`), nil),
		scopekit.EINVALID, "/data/attributes/issuer-url", "issuer-url cannot be reached")
	acctRequireErr(t, idpUpdate(svc, sys, idp.ID, attrs("issuer-url", `"http://login.acme.test"`), nil),
		scopekit.EINVALID, "/data/attributes/issuer-url", "https")
	require.Len(t, checked, 2, "a URL of the wrong form is not fetched")
	_, err := svc.Create(ctx, sys, "identity-providers", &engine.Input{Attrs: idpAttrs("issuer-url", `"http://127.0.0.1:1/"`,
		"email-domains", `["other.test"]`)}, engine.Options{})
	acctRequireErr(t, err, scopekit.EINVALID, "/data/attributes/issuer-url", "cannot be reached")
}
