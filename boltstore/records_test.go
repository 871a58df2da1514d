package boltstore_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/scopekit/scopekit/boltstore"
	"github.com/scopekit/scopekit/boltstore/bolttest"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/scoping/storetest"
	webhookstoretest "github.com/scopekit/scopekit/webhook/storetest"
	"github.com/stretchr/testify/require"
)

// mustOpenDB opens a database in a temp dir and, when the test ends, runs
// bbolt's consistency check before closing it.
func mustOpenDB(tb testing.TB) *boltstore.DB { return bolttest.Open(tb, scoping.DefaultSchema()) }

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
	bolttest.OpenFile(t, path, scoping.DefaultSchema())
	start := time.Now()
	_, err := boltstore.Open(path, scoping.DefaultSchema())
	require.ErrorIs(t, err, boltstore.ErrLocked)
	require.Less(t, time.Since(start), 3*time.Second)
	require.Contains(t, err.Error(), path)
}

// Ensure Open without a schema fails and creates no file: the store knows
// no types of its own.
func TestOpenNeedsSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.db")
	_, err := boltstore.Open(path, nil)
	require.ErrorIs(t, err, boltstore.ErrNoSchema)
	_, err = os.Stat(path)
	require.ErrorIs(t, err, os.ErrNotExist)
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
