package boltstore_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/boltstore"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// mustOpenDB opens a database in a temp dir and, when the test ends, runs
// bbolt's consistency check before closing it.
func mustOpenDB(tb testing.TB) *boltstore.DB {
	tb.Helper()
	db, err := boltstore.Open(filepath.Join(tb.TempDir(), "t.db"))
	require.NoError(tb, err)
	tb.Cleanup(func() {
		require.NoError(tb, db.Bolt().View(func(tx *bolt.Tx) error {
			for err := range tx.Check() {
				return err
			}
			return nil
		}))
		require.NoError(tb, db.Close())
	})
	return db
}

func client(acct, name string, active bool) *scoping.Record {
	r := scoping.NewRecord("clients", acct)
	r.Attrs["name"], r.Attrs["active"] = name, active
	return r
}

func insert(t *testing.T, db *boltstore.DB, recs ...*scoping.Record) {
	t.Helper()
	require.NoError(t, db.Update(context.Background(), func(tx scoping.Tx) error {
		for _, r := range recs {
			if err := tx.Insert(r); err != nil {
				return err
			}
		}
		return nil
	}))
}

func list(t *testing.T, db *boltstore.DB, q *scoping.Query) ([]string, int) {
	t.Helper()
	var ids []string
	var total int
	require.NoError(t, db.View(context.Background(), func(tx scoping.Tx) error {
		recs, n, err := tx.List(q)
		for _, r := range recs {
			ids = append(ids, r.Attrs["name"].(string))
		}
		total = n
		return err
	}))
	return ids, total
}

// Ensure ids are numbered per type across accounts and records are scoped
// to their account.
func TestInsertGetAcrossAccounts(t *testing.T) {
	db := mustOpenDB(t)
	a, b := client("1", "A", true), client("2", "B", true)
	insert(t, db, a, b)
	require.Equal(t, "1", a.ID)
	require.Equal(t, "2", b.ID)
	require.NoError(t, db.View(context.Background(), func(tx scoping.Tx) error {
		_, err := tx.Get("clients", "1", b.ID)
		require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err))
		got, err := tx.Get("clients", "2", b.ID)
		require.NoError(t, err)
		require.Equal(t, "B", got.Str("name"))
		_, err = tx.Get("clients", "2", "not-a-number")
		require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err))
		return nil
	}))
}

// Ensure list results equal a brute-force evaluation of the same query,
// for indexed and unindexed conditions, sorts and pages, after updates and
// deletes moved index entries.
func TestListMatchesBruteForce(t *testing.T) {
	db := mustOpenDB(t)
	rng := rand.New(rand.NewPCG(1, 2))
	var all []*scoping.Record
	for i := 0; i < 300; i++ {
		r := client("7", fmt.Sprintf("Client %03d %s", rng.IntN(100), []string{"alpha", "Beta", "gamma"}[i%3]), rng.IntN(4) != 0)
		all = append(all, r)
	}
	insert(t, db, all...)
	// update a third (moving active index entries) and delete a tenth
	require.NoError(t, db.Update(context.Background(), func(tx scoping.Tx) error {
		for i, r := range all {
			switch {
			case i%10 == 0:
				if err := tx.Delete("clients", "7", r.ID); err != nil {
					return err
				}
			case i%3 == 0:
				r.Attrs["active"] = !r.Active()
				if err := tx.Replace(r); err != nil {
					return err
				}
			}
		}
		return nil
	}))
	var alive []*scoping.Record
	for i, r := range all {
		if i%10 != 0 {
			alive = append(alive, r)
		}
	}
	queries := []*scoping.Query{
		{Where: []scoping.Cond{scoping.Eq("active", "true")}, Limit: 25, Offset: 50},
		{Where: []scoping.Cond{scoping.Eq("active", "false")}},
		{Where: []scoping.Cond{scoping.Eq("active", "true"), {Field: "name", Op: scoping.OpContains, Values: []string{"BETA"}}}, Limit: 10},
		{Where: []scoping.Cond{scoping.Eq("id", all[1].ID, all[2].ID, all[10].ID, "999999")}},
		{Where: []scoping.Cond{scoping.Eq("active", "true")}, Sort: []scoping.SortKey{{Field: "name", Desc: true}}, Limit: 30, Offset: 5},
		{Sort: []scoping.SortKey{{Field: "name"}}, Offset: 1000},
		{},
	}
	for i, q := range queries {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			q.Type, q.AccountID = "clients", "7"
			var want []*scoping.Record
			for _, r := range alive {
				if q.Matches(r) {
					want = append(want, r)
				}
			}
			q.SortRecords(want)
			wantTotal := len(want)
			if q.Offset < len(want) {
				want = want[q.Offset:]
			} else {
				want = nil
			}
			if q.Limit > 0 && len(want) > q.Limit {
				want = want[:q.Limit]
			}
			var wantNames []string
			for _, r := range want {
				wantNames = append(wantNames, r.Str("name"))
			}
			got, total := list(t, db, q)
			require.Equal(t, wantTotal, total)
			require.Equal(t, wantNames, got)
		})
	}
}

// Ensure index lookups are case-insensitive and AllAccounts searches every
// account.
func TestIndexCaseAndAllAccounts(t *testing.T) {
	db := mustOpenDB(t)
	u1 := scoping.NewRecord("users", "1")
	u1.Attrs["name"], u1.Attrs["email"] = "Ada", "Ada@Example.test"
	insert(t, db, u1)
	names, total := list(t, db, &scoping.Query{Type: "users", AllAccounts: true, Where: []scoping.Cond{scoping.Eq("email", "ada@example.TEST")}})
	require.Equal(t, 1, total)
	require.Equal(t, []string{"Ada"}, names)
	_, total = list(t, db, &scoping.Query{Type: "users", AccountID: "2", Where: []scoping.Cond{scoping.Eq("email", "ada@example.test")}})
	require.Zero(t, total)
}

// Ensure a failed write transaction leaves nothing behind.
func TestUpdateRollsBack(t *testing.T) {
	db := mustOpenDB(t)
	boom := errors.New("boom")
	err := db.Update(context.Background(), func(tx scoping.Tx) error {
		if err := tx.Insert(client("1", "Ghost", true)); err != nil {
			return err
		}
		return boom
	})
	require.ErrorIs(t, err, boom)
	_, total := list(t, db, &scoping.Query{Type: "clients", AccountID: "1"})
	require.Zero(t, total)
}

// Ensure a second Open of the same file fails fast with ErrLocked.
func TestOpenLockedFailsFast(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.db")
	db, err := boltstore.Open(path)
	require.NoError(t, err)
	defer db.Close()
	start := time.Now()
	_, err = boltstore.Open(path)
	require.ErrorIs(t, err, boltstore.ErrLocked)
	require.Less(t, time.Since(start), 3*time.Second)
	require.Contains(t, err.Error(), path)
}

// Ensure Replace of a missing record is ENOTFOUND and keeps CreatedAt.
func TestReplace(t *testing.T) {
	db := mustOpenDB(t)
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	db.Now = func() time.Time { return now }
	c := client("1", "A", true)
	insert(t, db, c)
	now = now.Add(time.Hour)
	require.NoError(t, db.Update(context.Background(), func(tx scoping.Tx) error {
		c.Attrs["name"] = "B"
		if err := tx.Replace(c); err != nil {
			return err
		}
		missing := client("1", "X", true)
		missing.ID = "42"
		require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(tx.Replace(missing)))
		return nil
	}))
	require.Equal(t, "2026-01-02T03:04:05.000000Z", c.CreatedAt)
	require.Equal(t, "2026-01-02T04:04:05.000000Z", c.UpdatedAt)
	names, _ := list(t, db, &scoping.Query{Type: "clients", AccountID: "1", Where: []scoping.Cond{scoping.Eq("active", "true")}})
	require.True(t, slices.Equal([]string{"B"}, names))
}
