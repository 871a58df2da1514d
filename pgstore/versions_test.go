package pgstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/pgstore"
	"github.com/scopekit/scopekit/pgstore/pgtest"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/scoping/views"
	"github.com/stretchr/testify/require"
)

// two opens two stores on one database, as two instances would.
func two(t *testing.T) (a, b *pgstore.DB) {
	t.Helper()
	url := pgtest.URL(t)
	var err error
	a, err = pgstore.Open(context.Background(), url, scoping.DefaultSchema())
	require.NoError(t, err)
	t.Cleanup(func() { a.Close() })
	b, err = pgstore.Open(context.Background(), url, scoping.DefaultSchema())
	require.NoError(t, err)
	t.Cleanup(func() { b.Close() })
	return a, b
}

func renameUser(t *testing.T, db *pgstore.DB, name string) {
	t.Helper()
	require.NoError(t, db.Update(context.Background(), func(tx engine.Tx) error {
		u, err := tx.Get(views.TypeUsers, "1", "1")
		if err != nil {
			u = engine.NewRecord(views.TypeUsers, "1")
			u.ID = "1"
			u.Attrs[views.NameName] = name
			return tx.Insert(u)
		}
		u.Attrs[views.NameName] = name
		return tx.Replace(u)
	}))
}

// Ensure a count of another instance moves with every write of a
// Versioned type once synced, and only then: whatever a reader derived
// from the records under the count it read before is at least as old as
// that count, and a write committed before a Sync is always counted by
// it (the next request sees it).
func TestVersionsFollowOtherInstances(t *testing.T) {
	a, b := two(t)
	ctx := context.Background()
	renameUser(t, a, "v0")
	for i := range 50 {
		require.NoError(t, b.Sync(ctx))
		before := b.TypeVersion(views.TypeUsers)
		require.Equal(t, before, b.TypeVersion(views.TypeUsers), "a count moves with writes only")
		renameUser(t, a, "v"+string(rune('a'+i%26)))
		require.NoError(t, b.Sync(ctx))
		require.NotEqual(t, before, b.TypeVersion(views.TypeUsers), "write %d, committed before the sync, not counted", i)
	}
	// a write not yet committed moves nothing
	written, release, done := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	go func() {
		done <- a.Update(ctx, func(tx engine.Tx) error {
			u, err := tx.Get(views.TypeUsers, "1", "1")
			if err != nil {
				return err
			}
			u.Attrs[views.NameName] = "slow"
			if err := tx.Replace(u); err != nil {
				return err
			}
			_, _, err = tx.List(&engine.Query{Type: views.TypeUsers, AccountID: "1"}) // the update is sent
			close(written)
			<-release
			return err
		})
	}()
	<-written
	require.NoError(t, b.Sync(ctx))
	before := b.TypeVersion(views.TypeUsers)
	require.NoError(t, b.Sync(context.WithValue(ctx, struct{}{}, 1)))
	require.Equal(t, before, b.TypeVersion(views.TypeUsers), "counted before the commit")
	close(release)
	require.NoError(t, <-done)
	require.NoError(t, b.Sync(context.WithValue(ctx, struct{}{}, 2)))
	require.NotEqual(t, before, b.TypeVersion(views.TypeUsers), "the commit not counted")
	require.Equal(t, b.TypeVersion(views.TypeRoles), b.TypeVersion(views.TypeRoles), "other types' counts stand")
	require.NotEqual(t, b.TypeVersion(views.TypeClients), b.TypeVersion(views.TypeClients), "a type not Versioned cannot tell")

	// the auth data: a new token changes nothing kept; a replaced or
	// removed token and new credentials do
	authVersion := func() uint64 {
		require.NoError(t, b.Sync(ctx))
		v, ok := b.AuthStore().(auth.Versioned).Version()
		require.True(t, ok)
		return v
	}
	tok := &auth.Token{Digest: []byte("digest-1"), Kind: auth.KindAccess, UserID: "1", AccountID: "1", ExpiresAt: time.Now().Add(time.Hour)}
	v := authVersion()
	require.NoError(t, a.AuthStore().PutToken(ctx, tok))
	require.Equal(t, v, authVersion(), "a new token")
	require.NoError(t, a.AuthStore().PutToken(ctx, tok))
	require.NotEqual(t, v, authVersion(), "a replaced token")
	v = authVersion()
	require.NoError(t, a.AuthStore().DeleteToken(ctx, tok.Digest))
	require.NotEqual(t, v, authVersion(), "a removed token")
	v = authVersion()
	require.NoError(t, a.AuthStore().Update(ctx, func(tx auth.Tx) error {
		return tx.PutServiceCredential(&auth.ServiceCredential{ClientID: "c1", AccountID: "1", UserID: "1"})
	}))
	require.NotEqual(t, v, authVersion(), "new credentials")
}

// Ensure a listener that loses its connection makes the counts unable to
// tell (Sync fails, counts are new at every call) until it is back, and
// then moves every count: a write it may have missed meanwhile is never
// served from what was kept before.
func TestVersionsAfterLostNotifications(t *testing.T) {
	a, b := two(t)
	ctx := context.Background()
	require.NoError(t, b.Sync(ctx))
	before := b.TypeVersion(views.TypeUsers)
	// the listening session ends (a restart of the server, a network cut)
	_, err := a.Pool().Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'scopekit listener'`)
	require.NoError(t, err)
	renameUser(t, a, "while down") // its notification reaches no listener of b
	require.Eventually(t, func() bool { return b.Sync(ctx) != nil }, 5*time.Second, 10*time.Millisecond, "the lost connection goes unnoticed")
	// (that no count holds while it is down: TestCountsWhileNotListening;
	// here the listener may be back already)
	require.Eventually(t, func() bool { return b.Sync(ctx) == nil }, 10*time.Second, 20*time.Millisecond, "the listener does not come back")
	require.NotEqual(t, before, b.TypeVersion(views.TypeUsers), "the counts did not move at the reconnection")
}
