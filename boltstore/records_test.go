package boltstore_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/scopekit/scopekit/boltstore"
	"github.com/scopekit/scopekit/boltstore/bolttest"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping/storetest"
	webhookstoretest "github.com/scopekit/scopekit/webhook/storetest"
	"github.com/stretchr/testify/require"
)

// mustOpenDB opens a database in a temp dir and, when the test ends, runs
// bbolt's consistency check before closing it.
func mustOpenDB(tb testing.TB) *boltstore.DB { return bolttest.Open(tb) }

// Ensure the bbolt store passes the store conformance suite.
func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T, now func() time.Time) engine.Store {
		db := mustOpenDB(t)
		db.Now = now
		return db
	})
}

// Ensure a second Open of the same file fails fast with ErrLocked.
func TestOpenLockedFailsFast(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.db")
	db, err := boltstore.Open(path)
	require.NoError(t, err)
	defer db.Close()
	start := time.Now()
	_, err = boltstore.Open(path)
	require.ErrorIs(t, err, boltstore.ErrLocked)
	require.Less(t, time.Since(start), 3*time.Second)
	require.Contains(t, err.Error(), path)
}

// Ensure the bbolt webhook store passes the webhook store conformance
// suite.
func TestWebhookStoreConformance(t *testing.T) {
	webhookstoretest.Run(t, func(t *testing.T, now func() time.Time) webhookstoretest.Stores {
		db := mustOpenDB(t)
		db.Now = now
		return webhookstoretest.Stores{Records: db, Webhook: db}
	})
}
