package pgstore_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/pgstore"
	"github.com/scopekit/scopekit/pgstore/pgtest"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/scoping/views"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Ensure a page read again comes without the text of the rows the page
// cache holds at their version, yet answers what is stored: a row
// changed since is sent and decoded anew, a shared list gets the records
// kept and any other list copies it may change; and a page whose kept
// text is gone meanwhile is read again in full.
func TestPageCache(t *testing.T) {
	db := pgtest.Open(t, scoping.DefaultSchema())
	ctx := context.Background()
	ids := insertClients(t, db, 20)
	page := func(shared bool) []*engine.Record {
		t.Helper()
		var recs []*engine.Record
		require.NoError(t, db.ViewRerun(ctx, func(tx engine.Tx) error {
			var err error
			var total int
			recs, total, err = tx.List(&engine.Query{Type: views.TypeClients, AccountID: "1", Limit: 10, Shared: shared})
			require.Equal(t, 20, total)
			return err
		}))
		require.Len(t, recs, 10)
		return recs
	}
	first := page(true)
	decoded, unsent := pgstore.PageCounts(db)
	assert.Equal(t, [2]int64{10, 0}, [2]int64{decoded, unsent})

	again := page(true)
	decoded, unsent = pgstore.PageCounts(db)
	assert.Equal(t, [2]int64{10, 10}, [2]int64{decoded, unsent}, "no row sent or decoded again")
	for i := range again {
		assert.Same(t, first[i], again[i], "a shared list gets the records kept")
	}
	copies := page(false)
	for i := range copies {
		assert.NotSame(t, first[i], copies[i], "any other list gets copies")
		assert.Equal(t, first[i].Attrs, copies[i].Attrs)
	}
	copies[0].Attrs[views.NameName] = "changed by its reader"
	assert.Equal(t, "client 0", page(true)[0].Str(views.NameName), "a copy changed is not what is kept")

	require.NoError(t, db.Update(ctx, func(tx engine.Tx) error {
		r, err := tx.Get(views.TypeClients, "1", ids[3])
		if err != nil {
			return err
		}
		r.Attrs[views.NameName] = "renamed"
		return tx.Replace(r)
	}))
	_, before := pgstore.PageCounts(db)
	recs := page(true)
	assert.Equal(t, "renamed", recs[3].Str(views.NameName))
	decoded, unsent = pgstore.PageCounts(db)
	assert.Equal(t, int64(11), decoded, "the changed row only")
	assert.Equal(t, before+9, unsent)

	pgstore.ForgetPagesAfterKnown(db)
	recs = page(true)
	for i, r := range recs {
		assert.Equal(t, ids[i], r.ID)
		assert.NotEmpty(t, r.Str(views.NameName), "read again in full: %s", r.ID)
	}
	assert.Equal(t, "renamed", recs[3].Str(views.NameName))
}

// Ensure the page cache never answers a row another writer changed:
// another instance on the same database, a transaction that changed a row
// twice after a list of its own (the row keeps one version, xmin, through
// both), and one that rolled back after listing what it wrote.
func TestPageCacheNeverStale(t *testing.T) {
	a, b := two(t)
	ctx := context.Background()
	ids := insertClients(t, b, 5)
	list := func(tx engine.Tx) ([]*engine.Record, error) {
		recs, _, err := tx.List(&engine.Query{Type: views.TypeClients, AccountID: "1", Limit: 10, Shared: true})
		return recs, err
	}
	name := func(db *pgstore.DB) string {
		t.Helper()
		var got string
		require.NoError(t, db.ViewRerun(ctx, func(tx engine.Tx) error {
			recs, err := list(tx)
			if err == nil {
				got = recs[2].Str(views.NameName)
			}
			return err
		}))
		return got
	}
	rename := func(tx engine.Tx, to string) error {
		r, err := tx.Get(views.TypeClients, "1", ids[2])
		if err != nil {
			return err
		}
		r = r.Clone()
		r.Attrs[views.NameName] = to
		return tx.Replace(r)
	}
	for i := range 3 {
		require.Equal(t, "client 2", name(a)) // a's cache holds it
		to := fmt.Sprintf("renamed by b %d", i)
		require.NoError(t, b.Update(ctx, func(tx engine.Tx) error { return rename(tx, to) }))
		require.Equal(t, to, name(a), "another instance's write")
		require.NoError(t, b.Update(ctx, func(tx engine.Tx) error { return rename(tx, "client 2") }))
	}

	require.NoError(t, a.Update(ctx, func(tx engine.Tx) error {
		if err := rename(tx, "first"); err != nil {
			return err
		}
		if _, err := list(tx); err != nil { // the first value at this version
			return err
		}
		return rename(tx, "second")
	}))
	require.Equal(t, "second", name(a), "a row written twice in one transaction")
	require.Equal(t, "second", name(b))

	failed := fmt.Errorf("rolled back")
	require.ErrorIs(t, a.Update(ctx, func(tx engine.Tx) error {
		if err := rename(tx, "never committed"); err != nil {
			return err
		}
		if _, err := list(tx); err != nil {
			return err
		}
		return failed
	}), failed)
	require.Equal(t, "second", name(a), "a rolled back write")
}

// insertClients inserts n clients of account 1 named "client 0" on, and
// returns their ids.
func insertClients(t *testing.T, db *pgstore.DB, n int) []string {
	t.Helper()
	var ids []string
	require.NoError(t, db.Update(context.Background(), func(tx engine.Tx) error {
		for i := range n {
			r := engine.NewRecord(views.TypeClients, "1")
			r.Attrs[views.NameName] = fmt.Sprintf("client %d", i)
			if err := tx.Insert(r); err != nil {
				return err
			}
			ids = append(ids, r.ID)
		}
		return nil
	}))
	return ids
}
