package pgstore_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/pgstore"
	"github.com/scopekit/scopekit/pgstore/pgtest"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/scoping/views"
	"github.com/stretchr/testify/require"
)

// Ensure a record inserted late is written once, with the values it has
// at commit: the transaction's lists see it meanwhile, a Delete drops
// it, a failed transaction leaves nothing, and the next transaction
// reads what was committed.
func TestInsertLateWritesOnce(t *testing.T) {
	c := &pgtest.Counter{}
	db, err := pgstore.Open(context.Background(), pgtest.URL(t), scoping.DefaultSchema(), pgstore.WithTracer(c))
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	ctx := c.Mark(context.Background())
	byProject := &engine.Query{Type: views.TypeProjectResources, AccountID: "1", Where: []engine.Cond{engine.Eq(views.NameProject, "7")}}
	line := func(name string) *engine.Record {
		r := engine.NewRecord(views.TypeProjectResources, "1")
		r.SetRel(views.NameProject, "7")
		r.Attrs[views.NameName] = name
		return r
	}
	var kept string
	require.NoError(t, db.Update(ctx, func(tx engine.Tx) error {
		a, b := line("a"), line("b")
		require.NoError(t, engine.InsertLate(tx, a))
		require.NoError(t, engine.InsertLate(tx, b))
		a.Attrs[views.NameName] = "a2"
		require.NoError(t, tx.Replace(a))
		recs, total, err := tx.List(byProject)
		require.NoError(t, err)
		require.Equal(t, 2, total)
		require.Equal(t, []string{a.ID, b.ID}, []string{recs[0].ID, recs[1].ID})
		require.Equal(t, "a2", recs[0].Str(views.NameName))
		require.NoError(t, tx.Delete(b.Type, b.AccountID, b.ID))
		kept = a.ID
		return nil
	}))
	_, stmts := c.Counts()
	writes := 0
	for _, s := range stmts {
		if strings.HasPrefix(s, "INSERT") || strings.HasPrefix(s, "UPDATE") || strings.HasPrefix(s, "DELETE") {
			writes++
		}
	}
	require.Equal(t, 1, writes, "one row written once:\n%s", strings.Join(stmts, "\n"))

	failed := errors.New("failed")
	require.ErrorIs(t, db.Update(context.Background(), func(tx engine.Tx) error {
		require.NoError(t, engine.InsertLate(tx, line("c")))
		return failed
	}), failed)

	require.NoError(t, db.View(context.Background(), func(tx engine.Tx) error {
		recs, _, err := tx.List(byProject)
		require.NoError(t, err)
		require.Len(t, recs, 1)
		require.Equal(t, kept, recs[0].ID)
		require.Equal(t, "a2", recs[0].Str(views.NameName))
		return nil
	}))
}

// Ensure ids reserved ahead number the inserts that follow, in order, with
// no round trip of their own (a batch of 600 goes out in a few), that the
// transaction reads them back, that inserts past the reserved ids take
// theirs one by one, and that a failed transaction keeps none of them.
func TestReserveIDs(t *testing.T) {
	c := &pgtest.Counter{}
	db, err := pgstore.Open(context.Background(), pgtest.URL(t), scoping.DefaultSchema(), pgstore.WithTracer(c))
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	ctx := c.Mark(context.Background())
	phase := func(i int) *engine.Record {
		r := engine.NewRecord(views.TypePhases, "1")
		r.Attrs[views.NameName] = "Phase " + strconv.Itoa(i)
		return r
	}
	all := &engine.Query{Type: views.TypePhases, AccountID: "1"}
	var ids []string
	require.NoError(t, db.Update(ctx, func(tx engine.Tx) error {
		require.NoError(t, tx.Insert(phase(0))) // before: its id by itself
		c.Reset()
		require.NoError(t, engine.ReserveIDs(tx, views.TypePhases, 600))
		for i := 1; i <= 601; i++ { // one more than reserved
			r := phase(i)
			require.NoError(t, tx.Insert(r))
			ids = append(ids, r.ID)
		}
		trips, _ := c.Counts()
		require.LessOrEqual(t, trips, 1+600/256+1, "the reserve, the full batches, the last insert's own id")
		recs, total, err := tx.List(all)
		require.NoError(t, err)
		require.Equal(t, 602, total)
		require.Equal(t, "Phase 601", recs[601].Str(views.NameName))
		return nil
	}))
	for i := 1; i < len(ids); i++ {
		prev, _ := strconv.Atoi(ids[i-1])
		cur, _ := strconv.Atoi(ids[i])
		require.Less(t, prev, cur, "ids in the order of the inserts")
	}
	require.NoError(t, db.View(context.Background(), func(tx engine.Tx) error {
		r, err := tx.Get(views.TypePhases, "1", ids[299])
		require.NoError(t, err)
		require.Equal(t, "Phase 300", r.Str(views.NameName))
		_, total, err := tx.List(all)
		require.NoError(t, err)
		require.Equal(t, 602, total)
		return nil
	}))

	failed := errors.New("failed")
	require.ErrorIs(t, db.Update(context.Background(), func(tx engine.Tx) error {
		require.NoError(t, engine.ReserveIDs(tx, views.TypePhases, 10))
		for i := range 10 {
			require.NoError(t, tx.Insert(phase(1000+i)))
		}
		return failed
	}), failed)
	require.NoError(t, db.View(context.Background(), func(tx engine.Tx) error {
		_, total, err := tx.List(all)
		require.NoError(t, err)
		require.Equal(t, 602, total, "nothing of the failed transaction")
		return nil
	}))
}
