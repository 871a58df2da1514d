// Package storetest is the conformance suite of engine.Store: every
// behaviour the engine relies on (ids, timestamps, rollback, and each
// filter, sort and paging rule of Tx.List, checked against a brute-force
// evaluation of the same query) so that each store implementation runs the
// same tests.
package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping/views"
	"github.com/stretchr/testify/require"
)

// Opener returns a new, empty store for one test whose clock is now (the
// store calls it for every timestamp it sets). It closes the store when the
// test ends.
type Opener func(t *testing.T, now func() time.Time) engine.Store

// Run runs the whole suite against the stores open returns.
func Run(t *testing.T, open Opener) {
	tests := []struct {
		name string
		fn   func(*testing.T, Opener)
	}{
		{"IDs", testIDs},
		{"ExplicitIDs", testExplicitIDs},
		{"Timestamps", testTimestamps},
		{"ReplaceDelete", testReplaceDelete},
		{"Rollback", testRollback},
		{"CanceledContext", testCanceledContext},
		{"ValuesRoundTrip", testValuesRoundTrip},
		{"CaseInsensitiveIn", testCaseInsensitiveIn},
		{"LongIndexedValues", testLongIndexedValues},
		{"TimeRanges", testTimeRanges},
		{"AllAccounts", testAllAccounts},
		{"ListMatchesBruteForce", testListMatchesBruteForce},
		{"ConcurrentInserts", testConcurrentInserts},
		{"UnknownType", testUnknownType},
		{"Blobs", testBlobs},
		{"PagesFollowWrites", testPagesFollowWrites},
		{"Lifecycle", testLifecycle},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.fn(t, open) })
	}
}

func fixedClock() (func() time.Time, func(time.Duration)) {
	var mu sync.Mutex
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	return func() time.Time {
			mu.Lock()
			defer mu.Unlock()
			return now
		}, func(d time.Duration) {
			mu.Lock()
			now = now.Add(d)
			mu.Unlock()
		}
}

func openDefault(t *testing.T, open Opener) engine.Store {
	now, _ := fixedClock()
	return open(t, now)
}

// Insert stores recs in one transaction.
func Insert(t testing.TB, s engine.Store, recs ...*engine.Record) {
	t.Helper()
	require.NoError(t, s.Update(context.Background(), func(tx engine.Tx) error {
		for _, r := range recs {
			if err := tx.Insert(r); err != nil {
				return err
			}
		}
		return nil
	}))
}

// List runs q in a read transaction.
func List(t testing.TB, s engine.Store, q *engine.Query) ([]*engine.Record, int) {
	t.Helper()
	var recs []*engine.Record
	var total int
	require.NoError(t, s.View(context.Background(), func(tx engine.Tx) error {
		var err error
		recs, total, err = tx.List(q)
		return err
	}))
	return recs, total
}

func ids(recs []*engine.Record) []string {
	out := make([]string, 0, len(recs))
	for _, r := range recs {
		out = append(out, r.ID)
	}
	return out
}

func client(acct, name string) *engine.Record {
	r := engine.NewRecord(views.TypeClients, acct)
	r.Attrs[views.NameName], r.Attrs[views.NameActive] = name, true
	return r
}

// Ensure ids are numbered per type from 1 across accounts and records are
// scoped to their account.
func testIDs(t *testing.T, open Opener) {
	s := openDefault(t, open)
	a, b := client("1", "A"), client("2", "B")
	Insert(t, s, a, b)
	require.Equal(t, "1", a.ID)
	require.Equal(t, "2", b.ID)
	u := engine.NewRecord(views.TypeUsers, "1")
	u.Attrs[views.NameEmail] = "u@x.test"
	Insert(t, s, u)
	require.Equal(t, "1", u.ID, "each type has its own sequence")
	require.NoError(t, s.View(context.Background(), func(tx engine.Tx) error {
		_, err := tx.Get(views.TypeClients, "1", b.ID)
		require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err), "another account's record")
		got, err := tx.Get(views.TypeClients, "2", b.ID)
		require.NoError(t, err)
		require.Equal(t, "B", got.Str(views.NameName))
		require.Equal(t, "2", got.AccountID)
		require.Equal(t, views.TypeClients, got.Type)
		for _, bad := range []string{"not-a-number", "0", "-1", "", "99"} {
			_, err = tx.Get(views.TypeClients, "2", bad)
			require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err), bad)
		}
		return nil
	}))
	// a global record (account "") is its own scope
	g := engine.NewRecord(views.TypeAccounts, "")
	g.Attrs[views.NameSlug] = "acme"
	Insert(t, s, g)
	require.NoError(t, s.View(context.Background(), func(tx engine.Tx) error {
		got, err := tx.Get(views.TypeAccounts, "", g.ID)
		require.NoError(t, err)
		require.Equal(t, "acme", got.Str(views.NameSlug))
		return nil
	}))
}

// Ensure an explicit id is kept, moves the sequence past it, and a second
// insert of the same id is ECONFLICT.
func testExplicitIDs(t *testing.T, open Opener) {
	s := openDefault(t, open)
	a := client("1", "A")
	a.ID = "40"
	Insert(t, s, a)
	b := client("1", "B")
	Insert(t, s, b)
	require.Equal(t, "41", b.ID)
	dup := client("1", "C")
	dup.ID = "40"
	err := s.Update(context.Background(), func(tx engine.Tx) error { return tx.Insert(dup) })
	require.Equal(t, scopekit.ECONFLICT, scopekit.ErrorCode(err))
	bad := client("1", "D")
	bad.ID = "x"
	require.Error(t, s.Update(context.Background(), func(tx engine.Tx) error { return tx.Insert(bad) }))
}

// Ensure Insert sets CreatedAt and UpdatedAt from the clock unless given,
// and Replace keeps CreatedAt and sets UpdatedAt.
func testTimestamps(t *testing.T, open Opener) {
	now, advance := fixedClock()
	s := open(t, now)
	c := client("1", "A")
	Insert(t, s, c)
	require.Equal(t, "2026-01-02T03:04:05.000000Z", c.CreatedAt)
	require.Equal(t, c.CreatedAt, c.UpdatedAt)
	given := client("1", "B")
	given.CreatedAt = "2020-05-06T07:08:09.123456Z"
	Insert(t, s, given)
	require.Equal(t, "2020-05-06T07:08:09.123456Z", given.UpdatedAt)

	advance(time.Hour)
	require.NoError(t, s.Update(context.Background(), func(tx engine.Tx) error {
		c.Attrs[views.NameName] = "A2"
		c.CreatedAt = "1999-01-01T00:00:00.000000Z" // ignored: CreatedAt is kept
		return tx.Replace(c)
	}))
	require.Equal(t, "2026-01-02T03:04:05.000000Z", c.CreatedAt)
	require.Equal(t, "2026-01-02T04:04:05.000000Z", c.UpdatedAt)
	require.NoError(t, s.View(context.Background(), func(tx engine.Tx) error {
		got, err := tx.Get(views.TypeClients, "1", c.ID)
		require.NoError(t, err)
		require.Equal(t, "A2", got.Str(views.NameName))
		require.Equal(t, c.CreatedAt, got.CreatedAt)
		require.Equal(t, c.UpdatedAt, got.UpdatedAt)
		got, err = tx.Get(views.TypeClients, "1", given.ID)
		require.NoError(t, err)
		require.Equal(t, "2020-05-06T07:08:09.123456Z", got.CreatedAt)
		return nil
	}))
}

// Ensure Replace and Delete of a missing record are ENOTFOUND, and a
// deleted record leaves Get and List.
func testReplaceDelete(t *testing.T, open Opener) {
	s := openDefault(t, open)
	a, b := client("1", "A"), client("1", "B")
	Insert(t, s, a, b)
	ctx := context.Background()
	require.NoError(t, s.Update(ctx, func(tx engine.Tx) error {
		missing := client("1", "X")
		missing.ID = "42"
		require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(tx.Replace(missing)))
		other := client("2", "Y")
		other.ID = a.ID
		require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(tx.Replace(other)), "same id, other account")
		require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(tx.Delete(views.TypeClients, "2", a.ID)))
		require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(tx.Delete(views.TypeClients, "1", "42")))
		return tx.Delete(views.TypeClients, "1", a.ID)
	}))
	recs, total := List(t, s, &engine.Query{Type: views.TypeClients, AccountID: "1", Where: []engine.Cond{engine.Eq(views.NameActive, "true")}})
	require.Equal(t, 1, total)
	require.Equal(t, []string{b.ID}, ids(recs))
	require.NoError(t, s.View(ctx, func(tx engine.Tx) error {
		_, err := tx.Get(views.TypeClients, "1", a.ID)
		require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err))
		return nil
	}))
	// the deleted id is not reused
	c := client("1", "C")
	Insert(t, s, c)
	require.Equal(t, "3", c.ID)
}

// Ensure a failed write transaction leaves nothing behind, and what it
// wrote is visible inside it.
func testRollback(t *testing.T, open Opener) {
	s := openDefault(t, open)
	kept := client("1", "Kept")
	Insert(t, s, kept)
	boom := errors.New("boom")
	err := s.Update(context.Background(), func(tx engine.Tx) error {
		if err := tx.Insert(client("1", "Ghost")); err != nil {
			return err
		}
		kept.Attrs[views.NameName] = "Changed"
		if err := tx.Replace(kept); err != nil {
			return err
		}
		_, n, err := tx.List(&engine.Query{Type: views.TypeClients, AccountID: "1", Where: []engine.Cond{engine.Eq(views.NameName, "ghost")}})
		require.NoError(t, err)
		require.Equal(t, 1, n, "own writes are visible in the transaction")
		return boom
	})
	require.ErrorIs(t, err, boom)
	recs, total := List(t, s, &engine.Query{Type: views.TypeClients, AccountID: "1"})
	require.Equal(t, 1, total)
	require.Equal(t, "Kept", recs[0].Str(views.NameName))
}

// Ensure a transaction runs under the context of its View or Update: none
// starts for a done ctx, and an Update whose ctx is canceled while it runs
// fails with the context's error and keeps nothing it wrote.
func testCanceledContext(t *testing.T, open Opener) {
	s := openDefault(t, open)
	kept := client("1", "Kept")
	Insert(t, s, kept)
	done, cancel := context.WithCancel(context.Background())
	cancel()
	ran := false
	require.ErrorIs(t, s.View(done, func(engine.Tx) error { ran = true; return nil }), context.Canceled)
	require.ErrorIs(t, s.Update(done, func(engine.Tx) error { ran = true; return nil }), context.Canceled)
	require.False(t, ran, "a transaction started for a done context")

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	err := s.Update(ctx, func(tx engine.Tx) error {
		if err := tx.Insert(client("1", "Ghost")); err != nil {
			return err
		}
		cancel()
		kept.Attrs[views.NameName] = "Changed"
		if err := tx.Replace(kept); err != nil {
			return err
		}
		return nil
	})
	require.ErrorIs(t, err, context.Canceled)
	recs, total := List(t, s, &engine.Query{Type: views.TypeClients, AccountID: "1"})
	require.Equal(t, 1, total, "the insert of a canceled update was kept")
	require.Equal(t, "Kept", recs[0].Str(views.NameName))
}

// Ensure attribute values come back in their canonical JSON forms:
// strings, bools, json.Number integers and decimals, objects and arrays
// (numbers inside as json.Number), and relationships.
func testValuesRoundTrip(t *testing.T, open Opener) {
	s := openDefault(t, open)
	p := engine.NewRecord(views.TypeProjects, "1")
	p.Attrs[views.NameProjectName] = "Ünïcode \"quoted\" ✓"
	p.Attrs[views.NameActive] = false
	p.Attrs[views.NameMrrTerms] = int64(12)
	p.Attrs[views.NameRevenueAdjustment] = "-12.50"
	p.Attrs[views.NameTagList] = []any{"a", "b"}
	p.Attrs[views.NameUserDefinedFields] = map[string]any{"n": json.Number("1.10"), "list": []any{json.Number("3")}}
	p.Attrs[views.NameMsaDate] = nil
	p.SetRel(views.NameClient, "7")
	p.Rels[views.NameTeammates] = []string{"3", "4"}
	Insert(t, s, p)
	require.NoError(t, s.View(context.Background(), func(tx engine.Tx) error {
		got, err := tx.Get(views.TypeProjects, "1", p.ID)
		require.NoError(t, err)
		require.Equal(t, p.Attrs[views.NameProjectName], got.Attrs[views.NameProjectName])
		require.Equal(t, false, got.Attrs[views.NameActive])
		require.Equal(t, json.Number("12"), got.Attrs[views.NameMrrTerms])
		require.Equal(t, int64(12), got.Int(views.NameMrrTerms))
		require.Equal(t, "-12.50", got.Attrs[views.NameRevenueAdjustment])
		require.Equal(t, []any{"a", "b"}, got.Attrs[views.NameTagList])
		udf := got.Attrs[views.NameUserDefinedFields].(map[string]any)
		require.Equal(t, json.Number("1.10"), udf["n"])
		require.Equal(t, []any{json.Number("3")}, udf["list"])
		v, ok := got.Attrs[views.NameMsaDate]
		require.True(t, ok)
		require.Nil(t, v)
		require.Equal(t, "7", got.Rel(views.NameClient))
		require.Equal(t, []string{"3", "4"}, got.Rels[views.NameTeammates])
		return nil
	}))
	// a record without attributes or relationships decodes to empty maps
	bare := engine.NewRecord(views.TypeProjects, "1")
	bare.Attrs, bare.Rels = nil, nil
	Insert(t, s, bare)
	require.NoError(t, s.View(context.Background(), func(tx engine.Tx) error {
		got, err := tx.Get(views.TypeProjects, "1", bare.ID)
		require.NoError(t, err)
		require.NotNil(t, got.Attrs)
		require.NotNil(t, got.Rels)
		return nil
	}))
}

// Ensure OpIn compares case-insensitively on indexed and unindexed fields
// alike, and on any id of a to-many relationship.
func testCaseInsensitiveIn(t *testing.T, open Opener) {
	s := openDefault(t, open)
	u := engine.NewRecord(views.TypeUsers, "1")
	u.Attrs[views.NameName], u.Attrs[views.NameEmail], u.Attrs[views.NameTitle] = "Ada", "Ada@Example.test", "Chief ENGINEER"
	u.Rels[views.NameRoles] = []string{"5", "9"}
	Insert(t, s, u)
	for _, c := range []engine.Cond{
		engine.Eq(views.NameEmail, "ada@example.TEST"),
		engine.Eq(views.NameEmail, "nobody@x", "ADA@EXAMPLE.TEST"),
		engine.Eq(views.NameTitle, "chief engineer"),
		engine.Eq(views.NameRoles, "9"),
		engine.Eq(views.NameRoles, "1", "5"),
		engine.Eq("id", u.ID),
	} {
		recs, total := List(t, s, &engine.Query{Type: views.TypeUsers, AccountID: "1", Where: []engine.Cond{c}})
		require.Equal(t, 1, total, "%+v", c)
		require.Equal(t, []string{u.ID}, ids(recs))
	}
	for _, c := range []engine.Cond{
		engine.Eq(views.NameEmail, "ada@example"),
		engine.Eq(views.NameRoles, "59"),
		engine.Eq(views.NameRoles),
		engine.Eq("id", "x"),
	} {
		_, total := List(t, s, &engine.Query{Type: views.TypeUsers, AccountID: "1", Where: []engine.Cond{c}})
		require.Zero(t, total, "%+v", c)
	}
}

// Ensure an indexed value of any length is stored and found by equality,
// case-insensitively, and leaves the index when it changes: a store key
// limit (bbolt refuses keys over 32 KiB) must never reach a user.
func testLongIndexedValues(t *testing.T, open Opener) {
	s := openDefault(t, open)
	long := strings.Repeat("Long Name ", 5000) // 50,000 bytes
	a, b, c := client("1", long), client("1", long+"!"), client("1", "short")
	Insert(t, s, a, b, c)
	for _, tc := range []struct {
		value string
		want  []string
	}{{long, []string{a.ID}}, {strings.ToUpper(long), []string{a.ID}}, {long + "!", []string{b.ID}}, {long[:2000], nil}, {"short", []string{c.ID}}} {
		recs, total := List(t, s, &engine.Query{Type: views.TypeClients, AccountID: "1", Where: []engine.Cond{engine.Eq(views.NameName, tc.value)}})
		require.Equal(t, len(tc.want), total, "%d bytes", len(tc.value))
		require.Equal(t, tc.want, nilIfEmpty(ids(recs)))
	}
	require.NoError(t, s.Update(context.Background(), func(tx engine.Tx) error {
		r, err := tx.Get(views.TypeClients, "1", a.ID)
		if err != nil {
			return err
		}
		r.Attrs[views.NameName] = "renamed"
		return tx.Replace(r)
	}))
	_, total := List(t, s, &engine.Query{Type: views.TypeClients, AccountID: "1", Where: []engine.Cond{engine.Eq(views.NameName, long)}})
	require.Zero(t, total)
}

func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

// Ensure range conditions on times (created-at of a type that indexes it,
// the purge of old publications) find exactly the records in range, in
// every account, also after deletes.
func testTimeRanges(t *testing.T, open Opener) {
	now, advance := fixedClock()
	s := open(t, now)
	var all []*engine.Record
	for i := range 40 {
		r := engine.NewRecord(views.TypeWebhookPublications, strconv.Itoa(1+i%3))
		r.Attrs[views.NameStatus] = "delivered"
		if i%5 == 0 { // an explicit, older creation time
			r.CreatedAt = engine.FormatTime(now().Add(-time.Duration(i) * time.Hour))
		}
		Insert(t, s, r)
		all = append(all, r)
		advance(time.Minute)
	}
	require.NoError(t, s.Update(context.Background(), func(tx engine.Tx) error {
		return tx.Delete(all[7].Type, all[7].AccountID, all[7].ID)
	}))
	all = slices.Delete(all, 7, 8)
	for _, bound := range []time.Time{now().Add(-100 * time.Hour), now().Add(-20 * time.Minute), now(), now().Add(time.Hour)} {
		for _, op := range []engine.Op{engine.OpLte, engine.OpGte} {
			c := engine.Cond{Field: views.NameCreatedAt, Op: op, Values: []string{engine.FormatTime(bound)}}
			var want []string
			for _, r := range all {
				if c.Match(r) {
					want = append(want, r.AccountID+"/"+r.ID)
				}
			}
			recs, total := List(t, s, &engine.Query{Type: views.TypeWebhookPublications, AllAccounts: true, Where: []engine.Cond{c}})
			var got []string
			for _, r := range recs {
				got = append(got, r.AccountID+"/"+r.ID)
			}
			slices.Sort(want)
			slices.Sort(got)
			require.Equal(t, want, got, "%v %s", op, bound)
			require.Equal(t, len(want), total)
		}
	}
}

// Ensure AllAccounts searches every account, sorting by id across them,
// and a one-account query sees only its own.
func testAllAccounts(t *testing.T, open Opener) {
	s := openDefault(t, open)
	var all []*engine.Record
	for i := range 6 {
		u := engine.NewRecord(views.TypeUsers, strconv.Itoa(3-i%3))
		u.Attrs[views.NameName], u.Attrs[views.NameEmail] = fmt.Sprint("U", i), fmt.Sprintf("u%d@x.test", i%2)
		all = append(all, u)
	}
	Insert(t, s, all...)
	recs, total := List(t, s, &engine.Query{Type: views.TypeUsers, AllAccounts: true, Where: []engine.Cond{engine.Eq(views.NameEmail, "U1@X.test")}})
	require.Equal(t, 3, total)
	require.Equal(t, []string{all[1].ID, all[3].ID, all[5].ID}, ids(recs))
	accts := []string{}
	for _, r := range recs {
		accts = append(accts, r.AccountID)
	}
	require.Equal(t, []string{"2", "3", "1"}, accts, "each record keeps its account")
	recs, total = List(t, s, &engine.Query{Type: views.TypeUsers, AllAccounts: true, Sort: []engine.SortKey{{Field: views.NameName, Desc: true}}, Offset: 1, Limit: 2})
	require.Equal(t, 6, total)
	require.Equal(t, []string{all[4].ID, all[3].ID}, ids(recs))
	_, total = List(t, s, &engine.Query{Type: views.TypeUsers, AccountID: "4", Where: []engine.Cond{engine.Eq(views.NameEmail, "u1@x.test")}})
	require.Zero(t, total)
	_, total = List(t, s, &engine.Query{Type: views.TypeUsers, AccountID: "1"})
	require.Equal(t, 2, total)
}

// Ensure an unknown type is ENOTFOUND from List.
func testUnknownType(t *testing.T, open Opener) {
	s := openDefault(t, open)
	err := s.View(context.Background(), func(tx engine.Tx) error {
		_, _, err := tx.List(&engine.Query{Type: "no-such-type", AccountID: "1"})
		return err
	})
	require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err))
}

// Ensure concurrent write transactions each get their own ids and all
// commit: ids are unique and every record is present once.
func testConcurrentInserts(t *testing.T, open Opener) {
	s := openDefault(t, open)
	const writers, each = 8, 10
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	got := make(chan string, writers*each)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				c := client(strconv.Itoa(1+w%2), fmt.Sprintf("W%d-%d", w, i))
				if err := s.Update(context.Background(), func(tx engine.Tx) error { return tx.Insert(c) }); err != nil {
					errs <- err
					return
				}
				got <- c.ID
			}
		}()
	}
	wg.Wait()
	close(errs)
	close(got)
	for err := range errs {
		require.NoError(t, err)
	}
	seen := map[string]bool{}
	for id := range got {
		require.False(t, seen[id], "id %s given twice", id)
		seen[id] = true
	}
	require.Len(t, seen, writers*each)
	_, n1 := List(t, s, &engine.Query{Type: views.TypeClients, AccountID: "1"})
	_, n2 := List(t, s, &engine.Query{Type: views.TypeClients, AccountID: "2"})
	require.Equal(t, writers*each, n1+n2)
}
