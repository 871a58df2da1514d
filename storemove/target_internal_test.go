package storemove

import (
	"context"
	"errors"
	"testing"

	"github.com/scopekit/scopekit/pgstore/pgtest"
	"github.com/stretchr/testify/require"
)

// Ensure a move holds its target schema alone: a second move into the
// same schema is refused while the first runs, and one into another
// schema of the same database goes on (another instance's store, or
// tests running side by side).
func TestTargetLockPerSchema(t *testing.T) {
	ctx := context.Background()
	one, other := pgtest.URL(t), pgtest.URL(t)
	first, err := openTarget(ctx, one)
	require.NoError(t, err)
	_, err = openTarget(ctx, one)
	require.True(t, errors.Is(err, ErrRefused), "a second move into the schema: %v", err)
	elsewhere, err := openTarget(ctx, other)
	require.NoError(t, err, "a move into another schema")
	elsewhere.close()
	first.close()
	again, err := openTarget(ctx, one)
	require.NoError(t, err, "the lock is released with the first move's session")
	again.close()
}
