package scoping_test

import (
	"testing"

	"github.com/scopekit/scopekit/engine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The stored prices' Compute hook on lists whose records the store shares
// with other readers (engine.TypeDef.ComputeCopies).

// Ensure the figures and custom hours a read computes go on copies: the
// records a store keeps for every reader are never changed.
func TestComputeCopiesSharedRecords(t *testing.T) {
	w := newWfWorld(t)
	c := w.ccCatalog()
	p := w.ccProject("Shared", c.table)
	w.create(w.sys, "project-services", nil, map[string]engine.RelInput{"project": rel("projects", p), "service": rel("services", c.design)})

	// every figure stale: the account's price epoch moved behind the
	// writer's back (as a shared input changed by another instance)
	require.NoError(t, w.svc.Store().Update(w.ctx, func(tx engine.Tx) error {
		acct, err := tx.Get("accounts", "", w.acct)
		if err != nil {
			return err
		}
		acct.Attrs["price-epoch"] = int64(1000)
		return tx.Replace(acct)
	}))
	a, err := w.svc.ActorForAccount(w.ctx, w.adminID, w.acct)
	require.NoError(t, err)
	kept := func(typ string) []*engine.Record {
		t.Helper()
		var recs []*engine.Record
		require.NoError(t, w.svc.Store().View(w.ctx, func(tx engine.Tx) error {
			var err error
			recs, _, err = tx.List(&engine.Query{Type: typ, AccountID: w.acct, Limit: 10, Shared: true,
				Where: []engine.Cond{engine.Eq("project", p)}[:boolInt(typ != "projects")]})
			return err
		}))
		require.NotEmpty(t, recs)
		return recs
	}
	for _, typ := range []string{"projects", "project-services"} {
		before := kept(typ)[0]
		snapshot := before.Clone()
		res, err := w.svc.List(w.ctx, a, typ, engine.ListParams{PageSize: 10, PageNumber: 1, Shared: true}, engine.Options{})
		require.NoError(t, err)
		require.NotEmpty(t, res.Records)
		assert.NotSame(t, before, res.Records[0], "%s: computed on a copy", typ)
		assert.Equal(t, snapshot.Attrs, kept(typ)[0].Attrs, "%s: the kept record is unchanged", typ)
		if typ == "project-services" {
			assert.Contains(t, res.Records[0].Attrs, "custom-hours")
			assert.NotContains(t, kept(typ)[0].Attrs, "custom-hours")
		} else {
			assert.NotEmpty(t, res.Records[0].Str("contract-revenue"), "priced again, the figures stale")
		}
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
