package auth_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/auth"
	"github.com/stretchr/testify/require"
)

// Providers is an in-memory auth.IdentityProviders; Provision adds the
// email to the Directory as an active member.
type Providers struct {
	dir         *Directory
	list        []*auth.IdentityProvider
	provisioned []string
	names       []string // the names Provision was given
	fail        error
}

func (p *Providers) Covering(_ context.Context, accountID, email string) (*auth.IdentityProvider, error) {
	for _, idp := range p.list {
		if idp.AccountID == accountID && idp.Routes(email) {
			return idp, nil
		}
	}
	return nil, scopekit.Errorf(scopekit.ENOTFOUND, "no provider")
}

func (p *Providers) Get(_ context.Context, accountID, id string) (*auth.IdentityProvider, error) {
	for _, idp := range p.list {
		if idp.AccountID == accountID && idp.ID == id {
			return idp, nil
		}
	}
	return nil, scopekit.Errorf(scopekit.ENOTFOUND, "no provider")
}

func (p *Providers) Any(_ context.Context, accountID string) (bool, error) {
	for _, idp := range p.list {
		if idp.AccountID == accountID {
			return true, nil
		}
	}
	return false, nil
}

func (p *Providers) Provision(_ context.Context, idp *auth.IdentityProvider, email, name string) error {
	if p.fail != nil {
		return p.fail
	}
	p.names = append(p.names, name)
	if _, err := p.dir.UserByEmail(context.Background(), email); err == nil {
		return nil
	}
	p.provisioned = append(p.provisioned, email)
	p.dir.AddUser("jit-"+email, email, false, auth.StatusActive, idp.AccountID)
	return nil
}

// withProviders gives the fixture's service acme's provider for acme.test
// (passwords as allowed) and unproven.test, a domain its account has not
// verified, and other's for other.test.
func withProviders(f *Fixture, passwordsAllowed bool) (*Providers, *auth.IdentityProvider) {
	acme := &auth.IdentityProvider{ID: "10", AccountID: "1", Name: "Acme SSO", Issuer: "https://login.acme.test", ClientID: "scopekit",
		ClientSecret: "idp client secret", Domains: []string{"acme.test", "unproven.test"}, Verified: []string{"acme.test"},
		PasswordsAllowed: passwordsAllowed}
	p := &Providers{dir: f.Dir, list: []*auth.IdentityProvider{acme,
		{ID: "20", AccountID: "2", Domains: []string{"other.test"}, Verified: []string{"other.test"}, PasswordsAllowed: true}}}
	f.Svc.Providers = p
	return p, acme
}

// Ensure a provider without passwords takes its domain's users away from
// the password grant and the login page, for its account only, and a
// provider with passwords leaves them be.
func TestSSO_PasswordsRefused(t *testing.T) {
	f := NewFixture(t)
	ctx := context.Background()
	ok, err := f.Svc.OffersSingleSignOn(ctx, "1")
	require.NoError(t, err)
	require.False(t, ok, "no providers configured")
	_, err = f.Svc.IdentityProviderFor(ctx, "1", "ada@acme.test")
	RequireCode(t, err, scopekit.ENOTFOUND)
	_, err = f.Svc.IdentityProvider(ctx, "1", "10")
	RequireCode(t, err, scopekit.ENOTFOUND)

	withProviders(f, false)
	ok, err = f.Svc.OffersSingleSignOn(ctx, "1")
	require.NoError(t, err)
	require.True(t, ok)
	_, err = f.Svc.Token(ctx, PasswordGrant("ada@acme.test", Password))
	RequireOAuthError(t, err, auth.InvalidGrant)
	require.Contains(t, err.Error(), "single sign-on")
	_, err = f.Svc.Token(ctx, PasswordGrant("ada@acme.test", "wrong"))
	RequireOAuthError(t, err, auth.InvalidGrant)
	require.Contains(t, err.Error(), "single sign-on", "the same answer whatever the password")
	_, err = f.Svc.Authorize(ctx, authorizeReq(), "ada@acme.test", Password)
	var le *auth.LoginError
	require.True(t, errors.As(err, &le))
	require.Equal(t, auth.LoginSSORequired, le.Reason)
	// account 2's application: acme's provider is not its concern
	f.MustToken(t, &auth.TokenRequest{GrantType: auth.GrantPassword, ClientID: "other-portal", ClientSecret: OtherSecret,
		Username: "ada@acme.test", Password: Password})

	// a domain its account has not verified keeps its passwords
	_, err = f.Svc.IdentityProviderFor(ctx, "1", "uma@unproven.test")
	RequireCode(t, err, scopekit.ENOTFOUND)
	f.Dir.AddUser("uma", "uma@unproven.test", false, auth.StatusActive, "1")
	require.NoError(t, f.Svc.SetPassword(ctx, "uma", Password))
	f.MustToken(t, PasswordGrant("uma@unproven.test", Password))

	withProviders(f, true)
	f.MustToken(t, PasswordGrant("ada@acme.test", Password))
	f.mustCode(t, authorizeReq())
}

// Ensure AuthorizeSSO issues a code for the active member whose email the
// provider verified, refuses the others as the login page does, and
// provisions a newcomer only when the provider says so.
func TestAuthorizeSSO(t *testing.T) {
	f := NewFixture(t)
	ctx := context.Background()
	p, acme := withProviders(f, false)

	code, err := f.Svc.AuthorizeSSO(ctx, authorizeReq(withPKCE), acme, "Ada@ACME.test", "Ada")
	require.NoError(t, err)
	tok := f.MustToken(t, codeGrant(code, callback, pkceVerifier))
	principal, err := f.Svc.Authenticate(ctx, tok.AccessToken)
	require.NoError(t, err)
	require.Equal(t, "ada", principal.UserID)
	require.Equal(t, auth.ProofSSO, principal.Proof, "a session begun with it records the provider's sign-in")

	other := *acme
	other.AccountID = "2"
	for _, tt := range []struct {
		idp    *auth.IdentityProvider
		email  string
		reason string
	}{
		{acme, "ivy@acme.test", auth.LoginInvited},
		{acme, "dan@acme.test", auth.LoginDeactivated},
		{acme, "bot@acme.test", auth.LoginServiceAccount},
		{acme, "ghost@acme.test", auth.LoginServiceAccount},
		{acme, "newcomer@acme.test", auth.LoginNotMember},
		{acme, "ola@other.test", auth.LoginNotMember}, // a domain acme's provider does not cover
		{acme, "una@unproven.test", auth.LoginNotMember},
		{&other, "ada@acme.test", auth.LoginNotMember}, // another account's provider
		// not one address: refused before any lookup
		{acme, "ada", auth.LoginBadIdentity},
		{acme, "a@b@acme.test", auth.LoginBadIdentity},
		{acme, "Ada <ada@acme.test>", auth.LoginBadIdentity},
		{acme, "ada@acme.test\r\nBcc: eve@evil.test", auth.LoginBadIdentity},
		{acme, "ada\x00@acme.test", auth.LoginBadIdentity},
		{acme, strings.Repeat("a", 250) + "@acme.test", auth.LoginBadIdentity},
	} {
		_, err := f.Svc.AuthorizeSSO(ctx, authorizeReq(), tt.idp, tt.email, "")
		var le *auth.LoginError
		require.True(t, errors.As(err, &le), "%s: %v", tt.email, err)
		require.Equal(t, tt.reason, le.Reason, tt.email)
	}
	require.Empty(t, p.provisioned, "no silent account creation")

	_, err = f.Svc.AuthorizeSSO(ctx, authorizeReq(func(r *auth.AuthorizeRequest) { r.ClientID = "nobody" }), acme, "ada@acme.test", "")
	var ae *auth.AuthorizeError
	require.True(t, errors.As(err, &ae))

	// a member of the account signs in through a domain not verified
	f.Dir.AddUser("uma", "uma@unproven.test", false, auth.StatusActive, "1")
	_, err = f.Svc.AuthorizeSSO(ctx, authorizeReq(), acme, "uma@unproven.test", "")
	require.NoError(t, err)

	acme.JIT = true
	code, err = f.Svc.AuthorizeSSO(ctx, authorizeReq(), acme, "newcomer@acme.test", "New\r\nComer\x00 "+strings.Repeat("x", 300))
	require.NoError(t, err)
	require.NotEmpty(t, code)
	require.Equal(t, []string{"newcomer@acme.test"}, p.provisioned)
	require.Equal(t, []string{auth.CleanName("New Comer " + strings.Repeat("x", 300))}, p.names)
	_, err = f.Svc.AuthorizeSSO(ctx, authorizeReq(), acme, "nobody@unproven.test", "")
	requireLoginReason(t, err, auth.LoginNotMember)
	require.Equal(t, []string{"newcomer@acme.test"}, p.provisioned, "a domain not verified provisions no one")
	p.fail = errors.New("store down")
	_, err = f.Svc.AuthorizeSSO(ctx, authorizeReq(), acme, "another@acme.test", "")
	require.ErrorIs(t, err, p.fail)
}

// Ensure a provider's client secret never prints, and EmailDomain and
// Covers read emails as written by people.
func TestIdentityProvider_Values(t *testing.T) {
	p := &auth.IdentityProvider{ID: "1", ClientSecret: "idp client secret", Domains: []string{"acme.test"}}
	var buf bytes.Buffer
	slog.New(slog.NewJSONHandler(&buf, nil)).Info("provider", "p", p, "secret", p.ClientSecret)
	for _, s := range []string{fmt.Sprint(p.ClientSecret), fmt.Sprintf("%v %+v %#v %s", p, p, p, p.ClientSecret), buf.String()} {
		require.NotContains(t, s, "idp client secret")
	}
	require.Equal(t, "idp client secret", string(p.ClientSecret))
	for email, domain := range map[string]string{"ada@Acme.Test": "acme.test", " ada@acme.test ": "acme.test", "a@b@acme.test": "acme.test", "ada": "", "ada@": ""} {
		require.Equal(t, domain, auth.EmailDomain(email), email)
		require.Equal(t, domain == "acme.test", p.Covers(email), email)
	}
}

// Ensure a provider without passwords tells only a user's email so by
// default (an unknown one gets the spec's answers), and under
// UniformTokenErrors every email of its domain, a user's or not, a
// service account's too, on the password grant and the login page alike.
func TestSSO_UniformErrors(t *testing.T) {
	f := NewFixture(t)
	ctx := context.Background()
	withProviders(f, false)
	sso := f.oauthErr(t, PasswordGrant("ada@acme.test", "wrong password!"))
	require.Contains(t, sso.Description, "single sign-on")
	require.Equal(t, auth.InvalidResourceOwner, f.oauthErr(t, PasswordGrant("who@acme.test", Password)).Code)
	require.Contains(t, f.oauthErr(t, PasswordGrant("bot@acme.test", Password)).Description, "service account")
	_, err := f.Svc.Authorize(ctx, authorizeReq(), "who@acme.test", Password)
	requireLoginReason(t, err, auth.LoginBadCredentials)

	f.Svc.UniformTokenErrors = true
	for _, email := range []string{"ada@acme.test", "who@acme.test", "bot@acme.test", "ivy@acme.test"} {
		require.Equal(t, sso, f.oauthErr(t, PasswordGrant(email, Password)), email)
		_, err := f.Svc.Authorize(ctx, authorizeReq(), email, "wrong password!")
		requireLoginReason(t, err, auth.LoginSSORequired)
	}
	// a domain the provider does not cover keeps the uniform answers
	require.Equal(t, "username or password is incorrect", f.oauthErr(t, PasswordGrant("who@nowhere.test", Password)).Description)
}

// Ensure a sign-in through the identity provider asks for no second
// factor, neither the user's nor the one the account requires
// (docs/auth.md "Single sign-on"), while the password still does.
func TestAuthorizeSSO_NoSecondFactor(t *testing.T) {
	f := NewFixture(t)
	ctx := context.Background()
	f.enrolAda(t)
	f.Dir.RequireMFA("1", true)
	_, acme := withProviders(f, true)
	_, err := f.Svc.Authorize(ctx, authorizeReq(), "ada@acme.test", Password)
	requireSecondFactor(t, err, false, "")
	code, err := f.Svc.AuthorizeSSO(ctx, authorizeReq(), acme, "ada@acme.test", "Ada")
	require.NoError(t, err)
	f.MustToken(t, codeGrant(code, callback, ""))
}

// Ensure a membership made by single sign-on signs in to its account by
// single sign-on only: the person's password (from another account)
// gets invalid_grant and the login page's SSO answer there, whatever it
// is, and still works in the other account.
func TestSSO_ProvisionedSignsInBySSOOnly(t *testing.T) {
	f := NewFixture(t)
	ctx := context.Background()
	_, acme := withProviders(f, true)
	f.Dir.AddUser("neo", "neo@acme.test", false, auth.StatusActive, "1", "2")
	require.NoError(t, f.Svc.SetPassword(ctx, "neo", Password))
	f.MustToken(t, PasswordGrant("neo@acme.test", Password))
	f.Dir.SetSSOOnly("neo", "1")
	for _, pw := range []string{Password, "wrong"} {
		_, err := f.Svc.Token(ctx, PasswordGrant("neo@acme.test", pw))
		RequireOAuthError(t, err, auth.InvalidGrant)
		require.Contains(t, err.Error(), "single sign-on")
		_, err = f.Svc.Authorize(ctx, authorizeReq(), "neo@acme.test", pw)
		var le *auth.LoginError
		require.True(t, errors.As(err, &le))
		require.Equal(t, auth.LoginSSORequired, le.Reason)
	}
	f.MustToken(t, &auth.TokenRequest{GrantType: auth.GrantPassword, ClientID: "other-portal", ClientSecret: OtherSecret,
		Username: "neo@acme.test", Password: Password})
	code, err := f.Svc.AuthorizeSSO(ctx, authorizeReq(withPKCE), acme, "neo@acme.test", "Neo")
	require.NoError(t, err, "single sign-on works")
	f.MustToken(t, codeGrant(code, callback, pkceVerifier))
}
