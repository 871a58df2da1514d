package boltstore_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping/views"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Ensure a page's records are decoded once while their stored bytes stay
// the same: a shared list gets the very records kept, any other list
// copies it may change without changing what is kept, and a record
// written since is read as written.
func TestPageRecords(t *testing.T) {
	db := mustOpenDB(t)
	ctx := context.Background()
	var ids []string
	require.NoError(t, db.Update(ctx, func(tx engine.Tx) error {
		for i := range 20 {
			r := engine.NewRecord(views.TypeClients, "1")
			r.Attrs[views.NameName] = fmt.Sprintf("client %d", i)
			r.Attrs[views.NameActive] = true
			if err := tx.Insert(r); err != nil {
				return err
			}
			ids = append(ids, r.ID)
		}
		return nil
	}))
	page := func(shared bool) []*engine.Record {
		t.Helper()
		var recs []*engine.Record
		require.NoError(t, db.View(ctx, func(tx engine.Tx) error {
			var err error
			var total int
			recs, total, err = tx.List(&engine.Query{Type: views.TypeClients, AccountID: "1", Limit: 10, Offset: 5, Shared: shared,
				Where: []engine.Cond{engine.Eq(views.NameActive, "true")}})
			assert.Equal(t, 20, total)
			return err
		}))
		require.Len(t, recs, 10)
		return recs
	}
	first, again := page(true), page(true)
	for i := range first {
		assert.Same(t, first[i], again[i], "a shared list gets the records kept")
	}
	copies := page(false)
	for i := range copies {
		assert.NotSame(t, first[i], copies[i])
		assert.Equal(t, first[i].Attrs, copies[i].Attrs)
	}
	copies[0].Attrs[views.NameName] = "changed by its reader"
	copies[0].Rels["x"] = []string{"1"}
	assert.Equal(t, "client 5", page(true)[0].Str(views.NameName))
	assert.Empty(t, page(true)[0].Rels["x"])

	require.NoError(t, db.Update(ctx, func(tx engine.Tx) error {
		r, err := tx.Get(views.TypeClients, "1", ids[6])
		if err != nil {
			return err
		}
		r.Attrs[views.NameName] = "renamed"
		return tx.Replace(r)
	}))
	recs := page(true)
	assert.Equal(t, "renamed", recs[1].Str(views.NameName))
	assert.NotSame(t, first[1], recs[1])
	assert.Same(t, first[2], recs[2], "the others are kept")
}
