package boltstore_test

import (
	"path/filepath"
	"testing"

	"github.com/scopekit/scopekit/auth"
	authstoretest "github.com/scopekit/scopekit/auth/storetest"
	"github.com/scopekit/scopekit/boltstore"
	"github.com/scopekit/scopekit/boltstore/bolttest"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/require"
)

// Ensure the bbolt auth store passes the auth store conformance suite;
// every handle is checked for consistency when closed.
func TestAuthStoreConformance(t *testing.T) {
	authstoretest.Run(t, func(t *testing.T) func() auth.Store {
		path := filepath.Join(t.TempDir(), "t.db")
		var db *boltstore.DB
		return func() auth.Store {
			if db != nil {
				require.NoError(t, db.Close())
			}
			db = bolttest.OpenFile(t, path, scoping.DefaultSchema())
			return db.AuthStore()
		}
	})
}
