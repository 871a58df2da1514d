package pgstore_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/scopekit/scopekit/auth"
	authstoretest "github.com/scopekit/scopekit/auth/storetest"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/pgstore"
	"github.com/scopekit/scopekit/pgstore/pgtest"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/scoping/storetest"
	webhookstoretest "github.com/scopekit/scopekit/webhook/storetest"
	"github.com/stretchr/testify/require"
)

// Ensure the PostgreSQL store passes the store conformance suite.
func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T, now func() time.Time) engine.Store {
		db := pgtest.Open(t, scoping.DefaultSchema())
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
			db, err = pgstore.Open(context.Background(), url, scoping.DefaultSchema())
			require.NoError(t, err)
			return db.AuthStore()
		}
	})
}

// Ensure the PostgreSQL webhook store passes the webhook store conformance
// suite, claims included.
func TestWebhookStoreConformance(t *testing.T) {
	webhookstoretest.Run(t, func(t *testing.T, now func() time.Time) webhookstoretest.Stores {
		db := pgtest.Open(t, scoping.DefaultSchema())
		db.Now = now
		db.Claim = 30 * time.Second
		return webhookstoretest.Stores{Records: db, Webhook: db, Claim: db.Claim}
	})
}

// Ensure Open without a schema fails before it connects: the store knows
// no types of its own.
func TestOpenNeedsSchema(t *testing.T) {
	_, err := pgstore.Open(context.Background(), "postgres://nobody@127.0.0.1:1/none", nil)
	require.ErrorIs(t, err, pgstore.ErrNoSchema)
}

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.DropSchemas()
	os.Exit(code)
}

// Ensure a transaction's queries run under the context of its Update: a
// query waiting for a lock another transaction holds stops when that
// context expires, rather than waiting for the holder, and the Update
// fails with the context's error having kept nothing.
func TestContextStopsQueries(t *testing.T) {
	db := pgtest.Open(t, scoping.DefaultSchema())
	holding, release := make(chan struct{}), make(chan struct{})
	holder := make(chan error, 1)
	go func() {
		holder <- db.Update(context.Background(), func(tx engine.Tx) error {
			r := engine.NewRecord("clients", "1")
			r.Attrs["name"] = "Holder"
			if err := tx.Insert(r); err != nil { // locks account 1 until commit
				return err
			}
			close(holding)
			select { // released by the test, or after 5s should the waiter ignore its context
			case <-release:
			case <-time.After(5 * time.Second):
			}
			return nil
		})
	}()
	<-holding
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := db.Update(ctx, func(tx engine.Tx) error {
		r := engine.NewRecord("clients", "1")
		r.Attrs["name"] = "Waiter"
		return tx.Insert(r) // waits for account 1's lock
	})
	waited := time.Since(start)
	close(release)
	require.NoError(t, <-holder)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.Less(t, waited, 5*time.Second, "the query waited for the lock holder, not for its context")
	var names []string
	require.NoError(t, db.View(context.Background(), func(tx engine.Tx) error {
		recs, _, err := tx.List(&engine.Query{Type: "clients", AccountID: "1"})
		for _, r := range recs {
			names = append(names, r.Str("name"))
		}
		return err
	}))
	require.Equal(t, []string{"Holder"}, names)
}
