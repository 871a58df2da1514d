package scoping_test

import (
	"context"
	"testing"

	"github.com/scopekit/scopekit/boltstore/bolttest"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/require"
)

// Ensure a first start is one until it is recorded complete, however
// often it is begun again; that a store this start did not create, with
// no account, is no first start (and is left as it was); and that a
// store that holds accounts but no record of its first start (written
// before the record existed) is recorded as past it.
func TestDeploymentFirstStart(t *testing.T) {
	ctx := context.Background()
	svc := scoping.NewService(bolttest.Open(t, scoping.DefaultSchema()))
	first, err := svc.BeginFirstStart(ctx, false)
	require.NoError(t, err)
	require.False(t, first, "an empty store this start did not create")
	for range 2 { // a first start that failed before its end is one again
		first, err = svc.BeginFirstStart(ctx, true)
		require.NoError(t, err)
		require.True(t, first)
	}
	first, err = svc.BeginFirstStart(ctx, false)
	require.NoError(t, err)
	require.True(t, first, "begun: whether the store is new no longer matters")
	require.NoError(t, svc.CompleteFirstStart(ctx))
	first, err = svc.BeginFirstStart(ctx, true)
	require.NoError(t, err)
	require.False(t, first)

	older := scoping.NewService(bolttest.Open(t, scoping.DefaultSchema()))
	require.NoError(t, older.Setup(ctx, func(a *scoping.Admin) error {
		_, err := a.EnsureAccount("acme", "Acme", "USD")
		return err
	}))
	first, err = older.BeginFirstStart(ctx, true)
	require.NoError(t, err)
	require.False(t, first, "a store with accounts is past its first start")
	first, err = older.BeginFirstStart(ctx, true)
	require.NoError(t, err)
	require.False(t, first)
}
