// Package bolttest gives tests an empty boltstore database of their own,
// checked for consistency when the test ends.
package bolttest

import (
	"path/filepath"
	"testing"

	"github.com/scopekit/scopekit/boltstore"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// Open opens a new database file in tb's temp dir. When tb ends it runs
// bbolt's consistency check on the file, then closes it.
func Open(tb testing.TB, opts ...boltstore.Option) *boltstore.DB {
	tb.Helper()
	db, err := boltstore.Open(filepath.Join(tb.TempDir(), "t.db"), opts...)
	require.NoError(tb, err)
	tb.Cleanup(func() {
		require.NoError(tb, db.Bolt().View(func(tx *bolt.Tx) error {
			for err := range tx.Check() {
				return err
			}
			return nil
		}))
		require.NoError(tb, db.Close())
	})
	return db
}
