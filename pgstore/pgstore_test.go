package pgstore_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/scopekit/scopekit/auth"
	authstoretest "github.com/scopekit/scopekit/auth/storetest"
	"github.com/scopekit/scopekit/pgstore"
	"github.com/scopekit/scopekit/pgstore/pgtest"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/scoping/storetest"
	webhookstoretest "github.com/scopekit/scopekit/webhook/storetest"
	"github.com/stretchr/testify/require"
)

// Ensure the PostgreSQL store passes the store conformance suite.
func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T, now func() time.Time) scoping.Store {
		db := pgtest.Open(t)
		db.Now = now
		return db
	})
}

// Ensure the PostgreSQL auth store passes the auth store conformance
// suite.
func TestAuthStoreConformance(t *testing.T) {
	authstoretest.Run(t, func(t *testing.T) func() auth.Store {
		url := pgtest.URL(t)
		var db *pgstore.DB
		t.Cleanup(func() {
			if db != nil {
				db.Close()
			}
		})
		return func() auth.Store {
			if db != nil {
				db.Close()
			}
			var err error
			db, err = pgstore.Open(context.Background(), url)
			require.NoError(t, err)
			return db.AuthStore()
		}
	})
}

// Ensure the PostgreSQL webhook store passes the webhook store conformance
// suite, claims included.
func TestWebhookStoreConformance(t *testing.T) {
	webhookstoretest.Run(t, func(t *testing.T, now func() time.Time) webhookstoretest.Stores {
		db := pgtest.Open(t)
		db.Now = now
		db.Claim = 30 * time.Second
		return webhookstoretest.Stores{Records: db, Webhook: db, Claim: db.Claim}
	})
}

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.DropSchemas()
	os.Exit(code)
}
