package auth_test

import (
	"context"
	"testing"
	"time"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/auth"
	"github.com/stretchr/testify/require"
)

// refreshOf asks acme-portal for a refresh with token.
func refreshOf(token string) *auth.TokenRequest {
	return &auth.TokenRequest{GrantType: auth.GrantRefreshToken, ClientID: "acme-portal", ClientSecret: PortalSecret, RefreshToken: token}
}

// requireRevoked checks that the refresh token is gone from the store.
func requireRevoked(t *testing.T, f *Fixture, token string) {
	t.Helper()
	_, err := f.DB.AuthStore().TokenByDigest(context.Background(), auth.HashSecret(token))
	require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err), "revoked: %v", err)
}

// Ensure a refresh token records how the person signed in and keeps it
// along a rotation, and that a refresh is refused (invalid_grant) once
// the account's sign-in policy asks for more: a second factor the
// sign-in did not give (set up since, revoking the person's tokens in
// every account; or mfa-required turned on, revoked for good by
// RevokeRefreshTokens), or no passwords at all (an identity provider
// covering the email without passwords, whatever the proof).
func TestRefreshPolicy(t *testing.T) {
	ctx := context.Background()

	t.Run("second factor set up since", func(t *testing.T) {
		f := NewFixture(t)
		inAcme := f.MustToken(t, PasswordGrant("ada@acme.test", Password))
		inOther := f.MustToken(t, &auth.TokenRequest{GrantType: auth.GrantPassword, ClientID: "other-portal", ClientSecret: OtherSecret,
			Username: "ada@acme.test", Password: Password})
		rotated := f.MustToken(t, refreshOf(inAcme.RefreshToken)) // still admitted
		secret, _ := f.enrolAda(t)
		requireRevoked(t, f, rotated.RefreshToken)
		requireRevoked(t, f, inOther.RefreshToken)
		_, err := f.Svc.Token(ctx, refreshOf(rotated.RefreshToken))
		RequireOAuthError(t, err, auth.InvalidGrant)

		// a refresh token stored before the revocation ran (or without
		// one) is refused at the refresh all the same
		stale := &auth.Token{Digest: auth.HashSecret("stale-refresh"), Kind: auth.KindRefresh, Grant: auth.GrantPassword,
			Proof: auth.ProofPassword, UserID: "ada", AccountID: "1", ClientID: "acme-portal", CreatedAt: f.Clock.Now(), ExpiresAt: f.Clock.Now().Add(time.Hour)}
		require.NoError(t, f.DB.AuthStore().PutToken(ctx, stale))
		_, err = f.Svc.Token(ctx, refreshOf("stale-refresh"))
		RequireOAuthError(t, err, auth.InvalidGrant)
		require.Contains(t, err.(*auth.OAuthError).Description, "sign-in policy")

		r := PasswordGrant("ada@acme.test", Password)
		r.MFACode = totpCode(t, secret, f.Clock.Now())
		withMFA := f.MustToken(t, r)
		again := f.MustToken(t, refreshOf(withMFA.RefreshToken))
		f.MustToken(t, refreshOf(again.RefreshToken)) // the proof survives rotation
	})

	t.Run("mfa-required turned on", func(t *testing.T) {
		f := NewFixture(t)
		first := f.MustToken(t, PasswordGrant("ada@acme.test", Password))
		old := f.MustToken(t, PasswordGrant("ada@acme.test", Password))
		f.Dir.RequireMFA("1", true)
		_, err := f.Svc.Token(ctx, refreshOf(first.RefreshToken))
		RequireOAuthError(t, err, auth.InvalidGrant)
		n, err := f.Svc.RevokeRefreshTokens(ctx, "1", nil, false)
		require.NoError(t, err)
		require.Equal(t, 2, n)
		requireRevoked(t, f, old.RefreshToken)
		f.Dir.RequireMFA("1", false)
		_, err = f.Svc.Token(ctx, refreshOf(old.RefreshToken))
		RequireOAuthError(t, err, auth.InvalidGrant) // loosening brings nothing back
		n, err = f.Svc.RevokeRefreshTokens(ctx, "1", []string{}, false)
		require.NoError(t, err)
		require.Zero(t, n, "an empty list of users is nobody")
	})

	t.Run("passwords turned off", func(t *testing.T) {
		f := NewFixture(t)
		secret, _ := f.enrolAda(t)
		r := PasswordGrant("ada@acme.test", Password)
		r.MFACode = totpCode(t, secret, f.Clock.Now())
		withMFA := f.MustToken(t, r)
		kept := f.MustToken(t, &auth.TokenRequest{GrantType: auth.GrantPassword, ClientID: "other-portal", ClientSecret: OtherSecret,
			Username: "ola@other.test", Password: Password})
		withProviders(f, false)
		_, err := f.Svc.Token(ctx, refreshOf(withMFA.RefreshToken))
		RequireOAuthError(t, err, auth.InvalidGrant)
		n, err := f.Svc.RevokeRefreshTokens(ctx, "1", []string{"ada"}, true)
		require.NoError(t, err)
		require.Equal(t, 1, n, "the password+mfa token too")
		// another account's provider allows passwords: its tokens refresh
		f.MustToken(t, &auth.TokenRequest{GrantType: auth.GrantRefreshToken, ClientID: "other-portal", ClientSecret: OtherSecret, RefreshToken: kept.RefreshToken})
	})
}
