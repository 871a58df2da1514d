package storetest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/auth"
	"github.com/stretchr/testify/require"
)

// Ensure second factors round-trip, are replaced and deleted by user,
// survive reopening the store, and that read-modify-write transactions
// on one user's second factor run one after the other (no lost update:
// the replay guard and the failure count rely on it).
func testSecondFactors(t *testing.T, open Opener) {
	reopen := open(t)
	s := reopen()
	ctx := context.Background()
	_, err := s.MFA(ctx, "ada")
	requireCode(t, err, scopekit.ENOTFOUND)
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	m := &auth.MFA{UserID: "ada", SealedSecret: []byte{1, 2, 3}, Recovery: [][]byte{auth.HashSecret("a"), auth.HashSecret("b")},
		LastStep: 42, EnrolledAt: at}
	update(t, s, func(tx auth.Tx) error {
		_, err := tx.MFA("ada")
		requireCode(t, err, scopekit.ENOTFOUND)
		require.NoError(t, tx.DeleteMFA("ada"), "deleting nothing is no error")
		require.NoError(t, tx.PutMFA(m))
		got, err := tx.MFA("ada")
		require.NoError(t, err)
		require.Equal(t, m, got, "a transaction reads its own writes")
		return tx.PutMFA(&auth.MFA{UserID: "bob", SealedSecret: []byte{9}})
	})
	s = reopen()
	got, err := s.MFA(ctx, "ada")
	require.NoError(t, err)
	require.True(t, got.EnrolledAt.Equal(at))
	got.EnrolledAt = at
	require.Equal(t, m, got)

	const n = 8
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			require.NoError(t, s.Update(ctx, func(tx auth.Tx) error {
				m, err := tx.MFA("ada")
				if err != nil {
					return err
				}
				time.Sleep(2 * time.Millisecond) // a window for the others
				m.Failures++
				return tx.PutMFA(m)
			}))
		})
	}
	wg.Wait()
	got, err = s.MFA(ctx, "ada")
	require.NoError(t, err)
	require.Equal(t, n, got.Failures)

	update(t, s, func(tx auth.Tx) error { return tx.DeleteMFA("ada") })
	s = reopen()
	_, err = s.MFA(ctx, "ada")
	requireCode(t, err, scopekit.ENOTFOUND)
	_, err = s.MFA(ctx, "bob")
	require.NoError(t, err, "another user's second factor stays")
}
