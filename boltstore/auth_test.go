package boltstore_test

import (
	"path/filepath"
	"testing"

	"github.com/scopekit/scopekit/auth"
	authstoretest "github.com/scopekit/scopekit/auth/storetest"
	"github.com/scopekit/scopekit/boltstore"
	"github.com/stretchr/testify/require"
)

// Ensure the bbolt auth store passes the auth store conformance suite;
// every handle is checked for consistency when closed.
func TestAuthStoreConformance(t *testing.T) {
	authstoretest.Run(t, func(t *testing.T) func() auth.Store {
		path := filepath.Join(t.TempDir(), "t.db")
		var db *boltstore.DB
		t.Cleanup(func() {
			if db != nil {
				require.NoError(t, db.Close())
			}
		})
		return func() auth.Store {
			if db != nil {
				require.NoError(t, db.Close())
			}
			var err error
			db, err = boltstore.Open(path)
			require.NoError(t, err)
			return db.AuthStore()
		}
	})
}
