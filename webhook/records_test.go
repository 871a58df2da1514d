package webhook_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/scopekit/scopekit/boltstore"
	"github.com/scopekit/scopekit/webhook"
	"github.com/scopekit/scopekit/webhook/storetest"
	"github.com/stretchr/testify/require"
)

// Ensure RecordStore, the webhook.Store over any engine.Store, passes the
// webhook store conformance suite (on the bbolt records).
func TestRecordStoreConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T, now func() time.Time) storetest.Stores {
		db, err := boltstore.Open(filepath.Join(t.TempDir(), "t.db"))
		require.NoError(t, err)
		t.Cleanup(func() { require.NoError(t, db.Close()) })
		db.Now = now
		return storetest.Stores{Records: db, Webhook: webhook.RecordStore{Records: db}}
	})
}
