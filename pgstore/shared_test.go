package pgstore_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/pgstore"
	"github.com/scopekit/scopekit/pgstore/pgtest"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/scoping/views"
	"github.com/stretchr/testify/require"
)

// getName reads the client id of account 1 as a request does (a read the
// store may run again) and returns its name.
func getName(ctx context.Context, db *pgstore.DB, id string) (string, error) {
	var name string
	err := db.ViewRerun(ctx, func(tx engine.Tx) error {
		r, err := tx.Get(views.TypeClients, "1", id)
		if err != nil {
			return err
		}
		name = r.Str(views.NameName)
		return nil
	})
	return name, err
}

// Ensure a record read by id rides on the listener's round trip: no
// pooled connection is taken, the read is counted as the request's
// statement, and concurrent reads each get their own record; so does a
// list page, while a list of all matches takes a pooled connection.
func TestSharedReadsTakeNoConnection(t *testing.T) {
	c := &pgtest.Counter{}
	db, err := pgstore.Open(context.Background(), pgtest.URL(t), scoping.DefaultSchema(), pgstore.WithTracer(c))
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	ids := make([]string, 40)
	require.NoError(t, db.Update(context.Background(), func(tx engine.Tx) error {
		for i := range ids {
			r := engine.NewRecord(views.TypeClients, "1")
			r.Attrs[views.NameName] = fmt.Sprintf("client %d", i)
			if err := tx.Insert(r); err != nil {
				return err
			}
			ids[i] = r.ID
		}
		return nil
	}))

	acquired := db.Pool().Stat().AcquireCount()
	c.Reset()
	name, err := getName(c.Mark(context.Background()), db, ids[3])
	require.NoError(t, err)
	require.Equal(t, "client 3", name)
	trips, stmts := c.Counts()
	require.Equal(t, 1, trips, "%q", stmts)
	require.Equal(t, acquired, db.Pool().Stat().AcquireCount(), "a pooled connection was taken")

	// a page of an account with few matches rides too; a list of all
	// matches, whose cost grows with the data, keeps to a pooled connection
	list := func(q *engine.Query) int {
		var total int
		require.NoError(t, db.ViewRerun(context.Background(), func(tx engine.Tx) error {
			_, n, err := tx.List(q)
			total = n
			return err
		}))
		return total
	}
	require.Equal(t, len(ids), list(&engine.Query{Type: views.TypeClients, AccountID: "1", Limit: 5}))
	require.Equal(t, acquired, db.Pool().Stat().AcquireCount(), "a page took a pooled connection")
	require.Equal(t, len(ids), list(&engine.Query{Type: views.TypeClients, AccountID: "1"}))
	require.Greater(t, db.Pool().Stat().AcquireCount(), acquired, "a list of all rode on the listener")

	_, err = getName(context.Background(), db, "999999")
	require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err), "%v", err)

	var wg sync.WaitGroup
	errs := make(chan error, 64*len(ids))
	for g := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range ids {
				i := (g + j) % len(ids)
				name, err := getName(context.Background(), db, ids[i])
				if err == nil && name != fmt.Sprintf("client %d", i) {
					err = fmt.Errorf("read %s, got %q", ids[i], name)
				}
				if err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// Ensure a shared read sees every write committed before it, by any
// instance, and that reads go on (on pooled connections) while the
// listener is down.
func TestSharedReadsAreFresh(t *testing.T) {
	a, b := two(t)
	ctx := context.Background()
	var id string
	require.NoError(t, a.Update(ctx, func(tx engine.Tx) error {
		r := engine.NewRecord(views.TypeClients, "1")
		r.Attrs[views.NameName] = "v0"
		err := tx.Insert(r)
		id = r.ID
		return err
	}))
	rename := func(db *pgstore.DB, name string) {
		require.NoError(t, db.Update(ctx, func(tx engine.Tx) error {
			r, err := tx.Get(views.TypeClients, "1", id)
			if err != nil {
				return err
			}
			r.Attrs[views.NameName] = name
			return tx.Replace(r)
		}))
	}
	for i := range 100 {
		want := fmt.Sprintf("v%d", i+1)
		rename(a, want)
		for _, db := range []*pgstore.DB{a, b} {
			name, err := getName(ctx, db, id)
			require.NoError(t, err)
			require.Equal(t, want, name, "read after write %d", i+1)
		}
	}

	_, err := b.Pool().Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'scopekit listener'`)
	require.NoError(t, err)
	for i := range 20 {
		want := fmt.Sprintf("down %d", i)
		rename(a, want)
		name, err := getName(ctx, b, id)
		require.NoError(t, err)
		require.Equal(t, want, name)
	}
}

// Ensure a shared read whose statement fails is sent again on its own
// (ErrNotShared) and leaves the listener connected: its caches stay.
func TestSharedReadFailureKeepsListener(t *testing.T) {
	db := pgtest.Open(t, scoping.DefaultSchema())
	live, gen := pgstore.ListenerState(db)
	require.True(t, live)
	_, err := pgstore.SharedRead(db, "SELECT 1 / $1::int", 0)
	require.ErrorIs(t, err, pgstore.ErrNotShared)
	rows, err := pgstore.SharedRead(db, "SELECT $1::int", 7)
	require.NoError(t, err)
	require.Equal(t, [][][]byte{{{0, 0, 0, 7}}}, rows)
	live, gen2 := pgstore.ListenerState(db)
	require.True(t, live)
	require.Equal(t, gen, gen2, "the listener reconnected")
}

// Ensure the pages of an account with many matches stop riding on the
// listener once a page has counted them.
func TestSharedPagesOfLargeAccounts(t *testing.T) {
	db := pgtest.Open(t, scoping.DefaultSchema())
	ctx := context.Background()
	require.NoError(t, db.Update(ctx, func(tx engine.Tx) error {
		for i := range 2001 {
			r := engine.NewRecord(views.TypeClients, "1")
			r.Attrs[views.NameName] = fmt.Sprintf("client %d", i)
			if err := tx.Insert(r); err != nil {
				return err
			}
		}
		return nil
	}))
	page := func() {
		require.NoError(t, db.ViewRerun(ctx, func(tx engine.Tx) error {
			recs, total, err := tx.List(&engine.Query{Type: views.TypeClients, AccountID: "1", Limit: 10})
			require.Len(t, recs, 10)
			require.Equal(t, 2001, total)
			return err
		}))
	}
	acquired := db.Pool().Stat().AcquireCount()
	page()
	require.Equal(t, acquired, db.Pool().Stat().AcquireCount(), "the first page took a pooled connection")
	page()
	require.Greater(t, db.Pool().Stat().AcquireCount(), acquired, "the page of a large account rode on the listener")
}

// Ensure a shared statement that runs past the listener's statement
// timeout ends, is sent again on its own, and leaves the listener
// connected.
func TestSharedReadTimeout(t *testing.T) {
	db := pgtest.Open(t, scoping.DefaultSchema())
	_, gen := pgstore.ListenerState(db)
	_, err := pgstore.SharedRead(db, "SELECT pg_sleep(0.4)")
	require.ErrorIs(t, err, pgstore.ErrNotShared)
	live, gen2 := pgstore.ListenerState(db)
	require.True(t, live)
	require.Equal(t, gen, gen2, "the listener reconnected")
}
