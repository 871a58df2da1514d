package auth_test

import (
	"context"
	"testing"

	"github.com/scopekit/scopekit/auth"
	"github.com/stretchr/testify/require"
)

// oauthErr runs the request and returns its *auth.OAuthError.
func (f *Fixture) oauthErr(t *testing.T, r *auth.TokenRequest) auth.OAuthError {
	t.Helper()
	_, err := f.Svc.Token(context.Background(), r)
	require.Error(t, err)
	oe, ok := err.(*auth.OAuthError)
	require.Truef(t, ok, "%v is not an *auth.OAuthError", err)
	return *oe
}

// Ensure an unknown client id and a wrong secret are one refusal, down to
// the description, for applications and service credentials alike.
func TestToken_ClientRefusalsAlike(t *testing.T) {
	f := NewFixture(t)
	unknown := f.oauthErr(t, ClientCredentials("nobody", BotSecret))
	require.Equal(t, auth.InvalidClient, unknown.Code)
	for _, r := range []*auth.TokenRequest{
		ClientCredentials("acme-bot", "wrong"),
		ClientCredentials("acme-bot", PortalSecret),
		ClientCredentials("acme-portal", "wrong"),
		{GrantType: auth.GrantPassword, ClientID: "acme-portal", ClientSecret: "wrong", Username: "ada@acme.test", Password: Password},
		{GrantType: auth.GrantPassword, ClientID: "nobody", ClientSecret: "wrong", Username: "ada@acme.test", Password: Password},
	} {
		require.Equal(t, unknown, f.oauthErr(t, r), "client %s, secret %s", r.ClientID, r.ClientSecret)
	}
}

// Ensure the spec's answers by default (invalid_resource_owner for an
// unknown email), and with UniformTokenErrors the answer of a wrong
// password for every refusal an outsider could provoke without the
// password: an unknown email, a service account, a pending invitation;
// once the password is right the reason is told as before.
func TestToken_UniformErrors(t *testing.T) {
	f := NewFixture(t)
	require.Equal(t, auth.InvalidResourceOwner, f.oauthErr(t, PasswordGrant("who@nowhere.test", Password)).Code)
	require.Contains(t, f.oauthErr(t, PasswordGrant("bot@acme.test", "wrong password!")).Description, "service account")

	f.Svc.UniformTokenErrors = true
	wrong := f.oauthErr(t, PasswordGrant("ada@acme.test", "wrong password!"))
	require.Equal(t, auth.InvalidGrant, wrong.Code)
	for _, r := range []*auth.TokenRequest{
		PasswordGrant("who@nowhere.test", Password),
		PasswordGrant("bot@acme.test", "wrong password!"),
		PasswordGrant("nopw@acme.test", Password),
		PasswordGrant("ivy@acme.test", "wrong password!"),
	} {
		require.Equal(t, wrong, f.oauthErr(t, r), "username %s", r.Username)
	}
	require.Contains(t, f.oauthErr(t, PasswordGrant("bot@acme.test", Password)).Description, "service account")
	require.Contains(t, f.oauthErr(t, PasswordGrant("ivy@acme.test", Password)).Description, "invitation")

	// the login page likewise
	f.Dir.AddUser("ivan", "ivan@acme.test", false, auth.StatusInvited, "1") // invited, no password yet
	for _, email := range []string{"ivan@acme.test", "bot@acme.test", "who@nowhere.test"} {
		_, err := f.Svc.Authorize(context.Background(), authorizeReq(), email, "wrong password!")
		requireLoginReason(t, err, auth.LoginBadCredentials)
	}
	_, err := f.Svc.Authorize(context.Background(), authorizeReq(), "bot@acme.test", Password)
	requireLoginReason(t, err, auth.LoginServiceAccount)
}
