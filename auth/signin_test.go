package auth_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/internal/seal"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// Ensure a sign-in in progress is found once, by its whole key, until it
// expires; that it is kept sealed under the key's digest (neither the key
// nor the data appears in the file); that a service with another sealing
// key cannot open it; and that without a sealer nothing is kept.
func TestSignInsInProgress(t *testing.T) {
	f := NewFixture(t)
	ctx := context.Background()
	key := auth.SignInKey("state-value", "browser-binding")
	data := []byte(`{"verifier":"pkce-verifier-secret"}`)
	require.NoError(t, f.Svc.SaveSignIn(ctx, key, data, time.Minute))
	require.NoError(t, f.DB.Bolt().View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(_ []byte, b *bolt.Bucket) error {
			return b.ForEach(func(k, v []byte) error {
				for _, secret := range [][]byte{[]byte("pkce-verifier-secret"), []byte("state-value"), []byte(key)} {
					require.False(t, bytes.Contains(k, secret) || bytes.Contains(v, secret), "%s in clear", secret)
				}
				return nil
			})
		})
	}))

	_, err := f.Svc.TakeSignIn(ctx, auth.SignInKey("state-value", "another browser"))
	RequireCode(t, err, scopekit.ENOTFOUND)
	got, err := f.Svc.TakeSignIn(ctx, key)
	require.NoError(t, err)
	require.Equal(t, data, got)
	_, err = f.Svc.TakeSignIn(ctx, key)
	RequireCode(t, err, scopekit.ENOTFOUND)

	require.NoError(t, f.Svc.SaveSignIn(ctx, key, data, time.Minute))
	f.Clock.Add(time.Minute)
	_, err = f.Svc.TakeSignIn(ctx, key)
	RequireCode(t, err, scopekit.ENOTFOUND)

	require.NoError(t, f.Svc.SaveSignIn(ctx, key, data, time.Minute))
	other, err := seal.New(bytes.Repeat([]byte{8}, seal.KeySize))
	require.NoError(t, err)
	stranger := &auth.Service{Store: f.DB.AuthStore(), Sealer: other, Now: f.Clock.Now}
	_, err = stranger.TakeSignIn(ctx, key)
	RequireCode(t, err, scopekit.ENOTFOUND)

	f.Svc.Sealer = nil
	RequireCode(t, f.Svc.SaveSignIn(ctx, key, data, time.Minute), scopekit.EINTERNAL)
}
