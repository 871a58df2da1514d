package webhook_test

import (
	"testing"
	"time"

	"github.com/scopekit/scopekit/boltstore/bolttest"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/webhook"
	"github.com/scopekit/scopekit/webhook/storetest"
)

// Ensure RecordStore, the webhook.Store over any engine.Store, passes the
// webhook store conformance suite (on the bbolt records).
func TestRecordStoreConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T, now func() time.Time) storetest.Stores {
		db := bolttest.Open(t, scoping.DefaultSchema())
		db.Now = now
		return storetest.Stores{Records: db, Webhook: webhook.RecordStore{Records: db}}
	})
}
