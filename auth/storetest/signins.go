package storetest

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/auth"
	"github.com/stretchr/testify/require"
)

// putSignIn stores p in a transaction of its own.
func putSignIn(t *testing.T, s auth.Store, p *auth.PendingSignIn) {
	t.Helper()
	update(t, s, func(tx auth.Tx) error { return tx.PutSignIn(p) })
}

// Ensure sign-ins in progress round-trip (across a reopen), are taken
// once, even by concurrent takers, and DeleteSignInsExpiredBefore removes
// exactly those that expired before the time given.
func testSignIns(t *testing.T, open Opener) {
	reopen := open(t)
	s := reopen()
	ctx := context.Background()
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	signIn := func(name string, expires time.Time) *auth.PendingSignIn {
		return &auth.PendingSignIn{Digest: auth.HashSecret(name), ExpiresAt: expires, Data: []byte("sealed " + name)}
	}
	old, edge, live := signIn("old", at), signIn("edge", at.Add(time.Minute)), signIn("live", at.Add(time.Hour))
	for _, p := range []*auth.PendingSignIn{old, edge, live} {
		putSignIn(t, s, p)
	}
	again := signIn("again", at)
	putSignIn(t, s, again)
	again.ExpiresAt = at.Add(time.Hour)
	putSignIn(t, s, again) // stored again: kept by its later expiry
	s = reopen()
	update(t, s, func(tx auth.Tx) error { return tx.DeleteSignInsExpiredBefore(edge.ExpiresAt) })
	_, err := s.TakeSignIn(ctx, old.Digest)
	requireCode(t, err, scopekit.ENOTFOUND)
	got, err := s.TakeSignIn(ctx, live.Digest)
	require.NoError(t, err)
	require.True(t, got.ExpiresAt.Equal(live.ExpiresAt))
	require.Equal(t, live.Digest, got.Digest)
	require.Equal(t, live.Data, got.Data)
	_, err = s.TakeSignIn(ctx, live.Digest)
	requireCode(t, err, scopekit.ENOTFOUND)
	_, err = s.TakeSignIn(ctx, edge.Digest)
	require.NoError(t, err, "a sign-in expiring at the time given stays")
	update(t, s, func(tx auth.Tx) error { return tx.DeleteSignInsExpiredBefore(at.Add(30 * time.Minute)) })
	_, err = s.TakeSignIn(ctx, again.Digest)
	require.NoError(t, err)
	_, err = s.TakeSignIn(ctx, nil)
	requireCode(t, err, scopekit.ENOTFOUND)

	one := signIn("raced", at.Add(time.Hour))
	putSignIn(t, s, one)
	var wins atomic.Int32
	var wg sync.WaitGroup
	for range 6 {
		wg.Go(func() {
			if _, err := s.TakeSignIn(ctx, one.Digest); err == nil {
				wins.Add(1)
			} else if scopekit.ErrorCode(err) != scopekit.ENOTFOUND {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	require.EqualValues(t, 1, wins.Load())
}
