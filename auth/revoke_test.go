package auth_test

import (
	"context"
	"testing"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/auth"
	"github.com/stretchr/testify/require"
)

// Ensure a revoked access token authenticates nothing, even once it was
// validated (and cached), and revoking again or a token that is not ours
// is no error.
func TestRevoke(t *testing.T) {
	f := NewFixture(t)
	ctx := context.Background()
	tok := f.MustToken(t, PasswordGrant("ada@acme.test", Password))
	_, err := f.Svc.Authenticate(ctx, tok.AccessToken)
	require.NoError(t, err)
	require.NoError(t, f.Svc.Revoke(ctx, tok.AccessToken))
	_, err = f.Svc.Authenticate(ctx, tok.AccessToken)
	require.Equal(t, scopekit.EUNAUTHORIZED, scopekit.ErrorCode(err))
	require.NoError(t, f.Svc.Revoke(ctx, tok.AccessToken))
	require.NoError(t, f.Svc.Revoke(ctx, "not a token"))
	// the refresh token of the grant is another token: it still works
	f.MustToken(t, &auth.TokenRequest{GrantType: auth.GrantRefreshToken, ClientID: "acme-portal", ClientSecret: PortalSecret,
		RefreshToken: tok.RefreshToken})
}
