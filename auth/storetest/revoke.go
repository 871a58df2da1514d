package storetest

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/auth"
	"github.com/stretchr/testify/require"
)

// testRefreshRevocation checks DeleteRefreshTokens: it removes exactly
// the refresh tokens its filter selects (account, users, proofs; a token
// stored without a proof counts as ""), never an access token, and says
// how many; the removal persists.
func testRefreshRevocation(t *testing.T, open Opener) {
	reopen := open(t)
	s := reopen()
	ctx := context.Background()
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	type tok struct{ name, kind, account, user, proof string }
	all := []tok{
		{"ada-pw", auth.KindRefresh, "1", "ada", auth.ProofPassword},
		{"ada-mfa", auth.KindRefresh, "1", "ada", auth.ProofPasswordMFA},
		{"ada-old", auth.KindRefresh, "1", "ada", ""},
		{"ada-access", auth.KindAccess, "1", "ada", auth.ProofPassword},
		{"ada-2-pw", auth.KindRefresh, "2", "ada", auth.ProofPassword},
		{"bob-pw", auth.KindRefresh, "1", "bob", auth.ProofPassword},
		{"bob-mfa", auth.KindRefresh, "1", "bob", auth.ProofPasswordMFA},
		{"cy-2-mfa", auth.KindRefresh, "2", "cy", auth.ProofPasswordMFA},
	}
	for _, k := range all {
		require.NoError(t, s.PutToken(ctx, &auth.Token{Digest: auth.HashSecret(k.name), Kind: k.kind, Grant: auth.GrantPassword,
			Proof: k.proof, UserID: k.user, AccountID: k.account, ClientID: "portal", CreatedAt: at, ExpiresAt: at.Add(time.Hour)}))
	}
	left := func() []string {
		var names []string
		for _, k := range all {
			_, err := s.TokenByDigest(ctx, auth.HashSecret(k.name))
			if err == nil {
				names = append(names, k.name)
			} else {
				requireCode(t, err, scopekit.ENOTFOUND)
			}
		}
		return names
	}
	revoke := func(f auth.RefreshFilter, want int) {
		t.Helper()
		n, err := s.DeleteRefreshTokens(ctx, f)
		require.NoError(t, err)
		require.Equal(t, want, n, "%+v", f)
	}

	revoke(auth.RefreshFilter{AccountID: "1", Proofs: []string{"", auth.ProofPassword}}, 0) // no user chosen: none
	revoke(auth.RefreshFilter{UserIDs: []string{"ada"}, Proofs: []string{"", auth.ProofPassword}}, 3)
	s = reopen()
	require.Equal(t, []string{"ada-mfa", "ada-access", "bob-pw", "bob-mfa", "cy-2-mfa"}, left())
	revoke(auth.RefreshFilter{AccountID: "1", AnyUser: true, Proofs: []string{auth.ProofPasswordMFA}}, 2)
	require.Equal(t, []string{"ada-access", "bob-pw", "cy-2-mfa"}, left())
	revoke(auth.RefreshFilter{AccountID: "2", UserIDs: []string{"bob", "cy"}, Proofs: []string{"", auth.ProofPassword, auth.ProofPasswordMFA}}, 1)
	got := left()
	require.Equal(t, []string{"ada-access", "bob-pw"}, got)
	require.False(t, slices.Contains(got, "cy-2-mfa"))
}
