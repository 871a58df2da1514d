package observe_test

import (
	"context"
	"testing"
	"time"

	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/boltstore/bolttest"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/observe"
	"github.com/scopekit/scopekit/pgstore/pgtest"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// Ensure the wrapped bbolt store keeps what the service finds out about
// it: its schema, its versions (the actor cache) and its transactions'
// own interfaces (shared records, blobs).
func TestStoreKeepsTheStoresInterfaces(t *testing.T) {
	db := bolttest.Open(t, scoping.DefaultSchema())
	tel := observe.New(observe.Config{Metrics: true, Spans: tracetest.NewInMemoryExporter()})
	st := tel.Store(db)

	vs, ok := st.(engine.Versioned)
	require.True(t, ok, "a wrapper hiding TypeVersion turns the actor cache off")
	require.Equal(t, db.TypeVersion("users"), vs.TypeVersion("users"))
	sch, ok := st.(interface{ Schema() *engine.Schema })
	require.True(t, ok)
	require.Same(t, db.Schema(), sch.Schema())
	require.Same(t, db.Schema(), scoping.NewService(st).Schema())

	require.NoError(t, st.View(context.Background(), func(tx engine.Tx) error {
		_, shared := tx.(engine.SharedReader)
		require.True(t, shared, "the store's own Tx is handed to fn")
		return nil
	}))
	require.NoError(t, st.Update(context.Background(), func(tx engine.Tx) error {
		return tx.PutBlob("1", "kind", "1", []byte("x"))
	}))
	require.NoError(t, st.View(context.Background(), func(tx engine.Tx) error {
		b, err := tx.Blob("1", "kind", "1")
		require.Equal(t, "x", string(b))
		return err
	}))
}

// Ensure the service keeps resolved actors over the wrapped store: a
// second resolution of the same actor opens no transaction.
func TestActorCacheStaysOnOverTheWrappedStore(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	views := func() float64 {
		return scrape(t, e.tel.MetricsHandler("")).Value("scopekit_store_transaction_duration_seconds", "kind", "view")
	}
	a, err := e.svc.ActorForAccount(ctx, e.user, e.actor.AccountID())
	require.NoError(t, err)
	require.NotNil(t, a)
	before := views()
	_, err = e.svc.ActorForAccount(ctx, e.user, e.actor.AccountID())
	require.NoError(t, err)
	require.Equal(t, before, views(), "the second resolution was served from the cache")
}

// Ensure the wrapper keeps what the PostgreSQL store offers beyond
// engine.Store: its counts (engine.Versioned) and their sync
// (auth.Syncer), so that the actor cache stays right across instances,
// and its re-runnable reads (engine.Rerunner).
func TestStoreOverPostgresKeepsItsAbilities(t *testing.T) {
	pg := pgtest.Open(t, scoping.DefaultSchema()) // skips without SCOPEKIT_TEST_DATABASE
	st := observe.New(observe.Config{Metrics: true}).Store(pg)
	vs, ok := st.(engine.Versioned)
	require.True(t, ok)
	require.Equal(t, pg.TypeVersion("users"), vs.TypeVersion("users"))
	sy, ok := st.(auth.Syncer)
	require.True(t, ok)
	require.Eventually(t, func() bool { return sy.Sync(context.Background()) == nil }, 10*time.Second, 20*time.Millisecond,
		"the wrapper syncs through the store's listener")
	require.Implements(t, (*engine.Rerunner)(nil), st)
	runs := 0
	require.NoError(t, engine.ViewRerun(context.Background(), st, func(engine.Tx) error { runs++; return nil }))
	require.Equal(t, 1, runs)
	require.Same(t, pg.Schema(), st.(interface{ Schema() *engine.Schema }).Schema())
	require.NoError(t, st.View(context.Background(), func(engine.Tx) error { return nil }))
}

// Ensure telemetry that is off leaves the store as it is.
func TestStoreUnwrappedWhenOff(t *testing.T) {
	db := bolttest.Open(t, scoping.DefaultSchema())
	require.Same(t, engine.Store(db), observe.New(observe.Config{}).Store(db))
}
