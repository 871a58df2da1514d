// Package storetest is the conformance suite of scoping.Store: every
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
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/require"
)

// Opener returns a new, empty store for one test whose clock is now (the
// store calls it for every timestamp it sets). It closes the store when the
// test ends.
type Opener func(t *testing.T, now func() time.Time) scoping.Store

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

func openDefault(t *testing.T, open Opener) scoping.Store {
	now, _ := fixedClock()
	return open(t, now)
}

// Insert stores recs in one transaction.
func Insert(t testing.TB, s scoping.Store, recs ...*scoping.Record) {
	t.Helper()
	require.NoError(t, s.Update(context.Background(), func(tx scoping.Tx) error {
		for _, r := range recs {
			if err := tx.Insert(r); err != nil {
				return err
			}
		}
		return nil
	}))
}

// List runs q in a read transaction.
func List(t testing.TB, s scoping.Store, q *scoping.Query) ([]*scoping.Record, int) {
	t.Helper()
	var recs []*scoping.Record
	var total int
	require.NoError(t, s.View(context.Background(), func(tx scoping.Tx) error {
		var err error
		recs, total, err = tx.List(q)
		return err
	}))
	return recs, total
}

func ids(recs []*scoping.Record) []string {
	out := make([]string, 0, len(recs))
	for _, r := range recs {
		out = append(out, r.ID)
	}
	return out
}

func client(acct, name string) *scoping.Record {
	r := scoping.NewRecord("clients", acct)
	r.Attrs["name"], r.Attrs["active"] = name, true
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
	u := scoping.NewRecord("users", "1")
	u.Attrs["email"] = "u@x.test"
	Insert(t, s, u)
	require.Equal(t, "1", u.ID, "each type has its own sequence")
	require.NoError(t, s.View(context.Background(), func(tx scoping.Tx) error {
		_, err := tx.Get("clients", "1", b.ID)
		require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err), "another account's record")
		got, err := tx.Get("clients", "2", b.ID)
		require.NoError(t, err)
		require.Equal(t, "B", got.Str("name"))
		require.Equal(t, "2", got.AccountID)
		require.Equal(t, "clients", got.Type)
		for _, bad := range []string{"not-a-number", "0", "-1", "", "99"} {
			_, err = tx.Get("clients", "2", bad)
			require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err), bad)
		}
		return nil
	}))
	// a global record (account "") is its own scope
	g := scoping.NewRecord("accounts", "")
	g.Attrs["slug"] = "acme"
	Insert(t, s, g)
	require.NoError(t, s.View(context.Background(), func(tx scoping.Tx) error {
		got, err := tx.Get("accounts", "", g.ID)
		require.NoError(t, err)
		require.Equal(t, "acme", got.Str("slug"))
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
	err := s.Update(context.Background(), func(tx scoping.Tx) error { return tx.Insert(dup) })
	require.Equal(t, scopekit.ECONFLICT, scopekit.ErrorCode(err))
	bad := client("1", "D")
	bad.ID = "x"
	require.Error(t, s.Update(context.Background(), func(tx scoping.Tx) error { return tx.Insert(bad) }))
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
	require.NoError(t, s.Update(context.Background(), func(tx scoping.Tx) error {
		c.Attrs["name"] = "A2"
		c.CreatedAt = "1999-01-01T00:00:00.000000Z" // ignored: CreatedAt is kept
		return tx.Replace(c)
	}))
	require.Equal(t, "2026-01-02T03:04:05.000000Z", c.CreatedAt)
	require.Equal(t, "2026-01-02T04:04:05.000000Z", c.UpdatedAt)
	require.NoError(t, s.View(context.Background(), func(tx scoping.Tx) error {
		got, err := tx.Get("clients", "1", c.ID)
		require.NoError(t, err)
		require.Equal(t, "A2", got.Str("name"))
		require.Equal(t, c.CreatedAt, got.CreatedAt)
		require.Equal(t, c.UpdatedAt, got.UpdatedAt)
		got, err = tx.Get("clients", "1", given.ID)
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
	require.NoError(t, s.Update(ctx, func(tx scoping.Tx) error {
		missing := client("1", "X")
		missing.ID = "42"
		require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(tx.Replace(missing)))
		other := client("2", "Y")
		other.ID = a.ID
		require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(tx.Replace(other)), "same id, other account")
		require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(tx.Delete("clients", "2", a.ID)))
		require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(tx.Delete("clients", "1", "42")))
		return tx.Delete("clients", "1", a.ID)
	}))
	recs, total := List(t, s, &scoping.Query{Type: "clients", AccountID: "1", Where: []scoping.Cond{scoping.Eq("active", "true")}})
	require.Equal(t, 1, total)
	require.Equal(t, []string{b.ID}, ids(recs))
	require.NoError(t, s.View(ctx, func(tx scoping.Tx) error {
		_, err := tx.Get("clients", "1", a.ID)
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
	err := s.Update(context.Background(), func(tx scoping.Tx) error {
		if err := tx.Insert(client("1", "Ghost")); err != nil {
			return err
		}
		kept.Attrs["name"] = "Changed"
		if err := tx.Replace(kept); err != nil {
			return err
		}
		_, n, err := tx.List(&scoping.Query{Type: "clients", AccountID: "1", Where: []scoping.Cond{scoping.Eq("name", "ghost")}})
		require.NoError(t, err)
		require.Equal(t, 1, n, "own writes are visible in the transaction")
		return boom
	})
	require.ErrorIs(t, err, boom)
	recs, total := List(t, s, &scoping.Query{Type: "clients", AccountID: "1"})
	require.Equal(t, 1, total)
	require.Equal(t, "Kept", recs[0].Str("name"))
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
	require.ErrorIs(t, s.View(done, func(scoping.Tx) error { ran = true; return nil }), context.Canceled)
	require.ErrorIs(t, s.Update(done, func(scoping.Tx) error { ran = true; return nil }), context.Canceled)
	require.False(t, ran, "a transaction started for a done context")

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	err := s.Update(ctx, func(tx scoping.Tx) error {
		if err := tx.Insert(client("1", "Ghost")); err != nil {
			return err
		}
		cancel()
		kept.Attrs["name"] = "Changed"
		if err := tx.Replace(kept); err != nil {
			return err
		}
		return nil
	})
	require.ErrorIs(t, err, context.Canceled)
	recs, total := List(t, s, &scoping.Query{Type: "clients", AccountID: "1"})
	require.Equal(t, 1, total, "the insert of a canceled update was kept")
	require.Equal(t, "Kept", recs[0].Str("name"))
}

// Ensure attribute values come back in their canonical JSON forms:
// strings, bools, json.Number integers and decimals, objects and arrays
// (numbers inside as json.Number), and relationships.
func testValuesRoundTrip(t *testing.T, open Opener) {
	s := openDefault(t, open)
	p := scoping.NewRecord("projects", "1")
	p.Attrs["project-name"] = "Ünïcode \"quoted\" ✓"
	p.Attrs["active"] = false
	p.Attrs["mrr-terms"] = int64(12)
	p.Attrs["revenue-adjustment"] = "-12.50"
	p.Attrs["tag-list"] = []any{"a", "b"}
	p.Attrs["user-defined-fields"] = map[string]any{"n": json.Number("1.10"), "list": []any{json.Number("3")}}
	p.Attrs["msa-date"] = nil
	p.SetRel("client", "7")
	p.Rels["teammates"] = []string{"3", "4"}
	Insert(t, s, p)
	require.NoError(t, s.View(context.Background(), func(tx scoping.Tx) error {
		got, err := tx.Get("projects", "1", p.ID)
		require.NoError(t, err)
		require.Equal(t, p.Attrs["project-name"], got.Attrs["project-name"])
		require.Equal(t, false, got.Attrs["active"])
		require.Equal(t, json.Number("12"), got.Attrs["mrr-terms"])
		require.Equal(t, int64(12), got.Int("mrr-terms"))
		require.Equal(t, "-12.50", got.Attrs["revenue-adjustment"])
		require.Equal(t, []any{"a", "b"}, got.Attrs["tag-list"])
		udf := got.Attrs["user-defined-fields"].(map[string]any)
		require.Equal(t, json.Number("1.10"), udf["n"])
		require.Equal(t, []any{json.Number("3")}, udf["list"])
		v, ok := got.Attrs["msa-date"]
		require.True(t, ok)
		require.Nil(t, v)
		require.Equal(t, "7", got.Rel("client"))
		require.Equal(t, []string{"3", "4"}, got.Rels["teammates"])
		return nil
	}))
	// a record without attributes or relationships decodes to empty maps
	bare := scoping.NewRecord("projects", "1")
	bare.Attrs, bare.Rels = nil, nil
	Insert(t, s, bare)
	require.NoError(t, s.View(context.Background(), func(tx scoping.Tx) error {
		got, err := tx.Get("projects", "1", bare.ID)
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
	u := scoping.NewRecord("users", "1")
	u.Attrs["name"], u.Attrs["email"], u.Attrs["title"] = "Ada", "Ada@Example.test", "Chief ENGINEER"
	u.Rels["roles"] = []string{"5", "9"}
	Insert(t, s, u)
	for _, c := range []scoping.Cond{
		scoping.Eq("email", "ada@example.TEST"),
		scoping.Eq("email", "nobody@x", "ADA@EXAMPLE.TEST"),
		scoping.Eq("title", "chief engineer"),
		scoping.Eq("roles", "9"),
		scoping.Eq("roles", "1", "5"),
		scoping.Eq("id", u.ID),
	} {
		recs, total := List(t, s, &scoping.Query{Type: "users", AccountID: "1", Where: []scoping.Cond{c}})
		require.Equal(t, 1, total, "%+v", c)
		require.Equal(t, []string{u.ID}, ids(recs))
	}
	for _, c := range []scoping.Cond{
		scoping.Eq("email", "ada@example"),
		scoping.Eq("roles", "59"),
		scoping.Eq("roles"),
		scoping.Eq("id", "x"),
	} {
		_, total := List(t, s, &scoping.Query{Type: "users", AccountID: "1", Where: []scoping.Cond{c}})
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
		recs, total := List(t, s, &scoping.Query{Type: "clients", AccountID: "1", Where: []scoping.Cond{scoping.Eq("name", tc.value)}})
		require.Equal(t, len(tc.want), total, "%d bytes", len(tc.value))
		require.Equal(t, tc.want, nilIfEmpty(ids(recs)))
	}
	require.NoError(t, s.Update(context.Background(), func(tx scoping.Tx) error {
		r, err := tx.Get("clients", "1", a.ID)
		if err != nil {
			return err
		}
		r.Attrs["name"] = "renamed"
		return tx.Replace(r)
	}))
	_, total := List(t, s, &scoping.Query{Type: "clients", AccountID: "1", Where: []scoping.Cond{scoping.Eq("name", long)}})
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
	var all []*scoping.Record
	for i := range 40 {
		r := scoping.NewRecord("webhook-publications", strconv.Itoa(1+i%3))
		r.Attrs["status"] = "delivered"
		if i%5 == 0 { // an explicit, older creation time
			r.CreatedAt = scoping.FormatTime(now().Add(-time.Duration(i) * time.Hour))
		}
		Insert(t, s, r)
		all = append(all, r)
		advance(time.Minute)
	}
	require.NoError(t, s.Update(context.Background(), func(tx scoping.Tx) error {
		return tx.Delete(all[7].Type, all[7].AccountID, all[7].ID)
	}))
	all = slices.Delete(all, 7, 8)
	for _, bound := range []time.Time{now().Add(-100 * time.Hour), now().Add(-20 * time.Minute), now(), now().Add(time.Hour)} {
		for _, op := range []scoping.Op{scoping.OpLte, scoping.OpGte} {
			c := scoping.Cond{Field: "created-at", Op: op, Values: []string{scoping.FormatTime(bound)}}
			var want []string
			for _, r := range all {
				if c.Match(r) {
					want = append(want, r.AccountID+"/"+r.ID)
				}
			}
			recs, total := List(t, s, &scoping.Query{Type: "webhook-publications", AllAccounts: true, Where: []scoping.Cond{c}})
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
	var all []*scoping.Record
	for i := range 6 {
		u := scoping.NewRecord("users", strconv.Itoa(3-i%3))
		u.Attrs["name"], u.Attrs["email"] = fmt.Sprint("U", i), fmt.Sprintf("u%d@x.test", i%2)
		all = append(all, u)
	}
	Insert(t, s, all...)
	recs, total := List(t, s, &scoping.Query{Type: "users", AllAccounts: true, Where: []scoping.Cond{scoping.Eq("email", "U1@X.test")}})
	require.Equal(t, 3, total)
	require.Equal(t, []string{all[1].ID, all[3].ID, all[5].ID}, ids(recs))
	accts := []string{}
	for _, r := range recs {
		accts = append(accts, r.AccountID)
	}
	require.Equal(t, []string{"2", "3", "1"}, accts, "each record keeps its account")
	recs, total = List(t, s, &scoping.Query{Type: "users", AllAccounts: true, Sort: []scoping.SortKey{{Field: "name", Desc: true}}, Offset: 1, Limit: 2})
	require.Equal(t, 6, total)
	require.Equal(t, []string{all[4].ID, all[3].ID}, ids(recs))
	_, total = List(t, s, &scoping.Query{Type: "users", AccountID: "4", Where: []scoping.Cond{scoping.Eq("email", "u1@x.test")}})
	require.Zero(t, total)
	_, total = List(t, s, &scoping.Query{Type: "users", AccountID: "1"})
	require.Equal(t, 2, total)
}

// Ensure an unknown type is ENOTFOUND from List.
func testUnknownType(t *testing.T, open Opener) {
	s := openDefault(t, open)
	err := s.View(context.Background(), func(tx scoping.Tx) error {
		_, _, err := tx.List(&scoping.Query{Type: "no-such-type", AccountID: "1"})
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
				if err := s.Update(context.Background(), func(tx scoping.Tx) error { return tx.Insert(c) }); err != nil {
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
	_, n1 := List(t, s, &scoping.Query{Type: "clients", AccountID: "1"})
	_, n2 := List(t, s, &scoping.Query{Type: "clients", AccountID: "2"})
	require.Equal(t, writers*each, n1+n2)
}

// Ensure list results equal a brute-force evaluation of the same query
// (scoping.Query.Matches and SortRecords over every record) for indexed and
// unindexed conditions of each operator, array attributes, to-one and
// to-many relationships, text and numeric sorts with nulls, and pages,
// after updates and deletes moved index entries.
func testListMatchesBruteForce(t *testing.T, open Opener) {
	s := openDefault(t, open)
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"alpha", "Beta", "gamma", "ÄPFEL", ""}
	var all []*scoping.Record
	for i := range 240 {
		p := scoping.NewRecord("projects", []string{"7", "8"}[i%7/6])
		p.Attrs["project-name"] = fmt.Sprintf("Project %03d %s", rng.IntN(60), words[i%len(words)])
		p.Attrs["active"] = rng.IntN(4) != 0
		p.Attrs["status"] = []string{"draft", "won", "lost"}[rng.IntN(3)]
		switch rng.IntN(4) {
		case 0: // absent
		case 1:
			p.Attrs["revenue-adjustment"] = nil
		default:
			p.Attrs["revenue-adjustment"] = fmt.Sprintf("%d.%02d", rng.IntN(200)-100, rng.IntN(100))
		}
		if rng.IntN(3) != 0 {
			p.Attrs["mrr-terms"] = int64(rng.IntN(30))
		}
		switch rng.IntN(3) {
		case 0:
			p.Attrs["tag-list"] = []any{"red", words[rng.IntN(3)]}
		case 1:
			p.Attrs["tag-list"] = []any{}
		}
		p.SetRel("client", strconv.Itoa(1+rng.IntN(5)))
		if rng.IntN(2) == 0 {
			p.SetRel("sales-executive", strconv.Itoa(1+rng.IntN(3)))
		}
		var tm []string
		for range rng.IntN(3) {
			tm = append(tm, strconv.Itoa(1+rng.IntN(6)))
		}
		if tm != nil {
			p.Rels["teammates"] = tm
		}
		all = append(all, p)
	}
	Insert(t, s, all...)
	require.NoError(t, s.Update(context.Background(), func(tx scoping.Tx) error {
		for i, r := range all {
			switch {
			case i%10 == 0:
				if err := tx.Delete("projects", r.AccountID, r.ID); err != nil {
					return err
				}
			case i%3 == 0:
				r.Attrs["active"] = !r.Active()
				r.SetRel("client", strconv.Itoa(1+(i%5)))
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
	in, contains := scoping.Eq, func(f, v string) scoping.Cond {
		return scoping.Cond{Field: f, Op: scoping.OpContains, Values: []string{v}}
	}
	gte := func(f, v string) scoping.Cond { return scoping.Cond{Field: f, Op: scoping.OpGte, Values: []string{v}} }
	lte := func(f, v string) scoping.Cond { return scoping.Cond{Field: f, Op: scoping.OpLte, Values: []string{v}} }
	null := func(f string) scoping.Cond { return scoping.Cond{Field: f, Op: scoping.OpNull} }
	notNull := func(f string) scoping.Cond { return scoping.Cond{Field: f, Op: scoping.OpNotNull} }
	byName := []scoping.SortKey{{Field: "project-name"}}
	queries := []*scoping.Query{
		{},
		{Where: []scoping.Cond{in("active", "true")}, Limit: 25, Offset: 50},
		{Where: []scoping.Cond{in("active", "TRUE")}},
		{Where: []scoping.Cond{in("active", "false")}},
		{Where: []scoping.Cond{in("active", "true"), contains("project-name", "BETA")}, Limit: 10},
		{Where: []scoping.Cond{contains("project-name", "äpfel")}},
		{Where: []scoping.Cond{contains("project-name", "")}},
		{Where: []scoping.Cond{{Field: "project-name", Op: scoping.OpContains}}},
		{Where: []scoping.Cond{in("id", all[1].ID, all[2].ID, all[10].ID, "999999", "abc")}},
		{Where: []scoping.Cond{in("status", "WON", "lost"), in("client", "2", "3")}, Sort: byName},
		{Where: []scoping.Cond{in("client", "1"), in("active", "true")}},
		{Where: []scoping.Cond{in("teammates", "2")}},
		{Where: []scoping.Cond{in("teammates", "2", "5"), in("active", "false")}},
		{Where: []scoping.Cond{null("sales-executive")}},
		{Where: []scoping.Cond{notNull("sales-executive")}, Sort: []scoping.SortKey{{Field: "sales-executive", Desc: true}}},
		{Where: []scoping.Cond{null("teammates")}},
		{Where: []scoping.Cond{null("revenue-adjustment")}},
		{Where: []scoping.Cond{notNull("revenue-adjustment")}},
		{Where: []scoping.Cond{null("tag-list")}},
		{Where: []scoping.Cond{in("tag-list", "red,alpha")}},
		{Where: []scoping.Cond{contains("tag-list", "BET")}},
		{Where: []scoping.Cond{in("mrr-terms", "12", "3")}},
		{Where: []scoping.Cond{gte("project-name", "Project 030"), lte("project-name", "Project 045")}},
		{Where: []scoping.Cond{gte("created-at", "2026-01-02"), in("active", "true")}},
		{Where: []scoping.Cond{lte("updated-at", "2000-01-01")}},
		{Where: []scoping.Cond{in("created-at", "2026-01-02T03:04:05.000000z")}, Limit: 3},
		{Where: []scoping.Cond{gte("mrr-terms", "2")}}, // text comparison, as the engine defines it
		{Where: []scoping.Cond{in("nonexistent", "x")}},
		{Where: []scoping.Cond{null("nonexistent")}, Limit: 5},
		{Where: []scoping.Cond{in("active", "true")}, Sort: []scoping.SortKey{{Field: "project-name", Desc: true}}, Limit: 30, Offset: 5},
		{Sort: byName, Offset: 1000},
		{Sort: byName, Offset: 200, Limit: 50},
		{Sort: []scoping.SortKey{{Field: "revenue-adjustment", Numeric: true}}},
		{Sort: []scoping.SortKey{{Field: "revenue-adjustment", Numeric: true, Desc: true}}, Limit: 40},
		{Sort: []scoping.SortKey{{Field: "mrr-terms", Numeric: true}, {Field: "project-name", Desc: true}}},
		{Sort: []scoping.SortKey{{Field: "mrr-terms"}}}, // text sort of numbers: "10" < "2"
		{Sort: []scoping.SortKey{{Field: "status"}, {Field: "revenue-adjustment", Numeric: true, Desc: true}}, Offset: 7, Limit: 70},
		{Sort: []scoping.SortKey{{Field: "tag-list"}}},
		{Sort: []scoping.SortKey{{Field: "client", Desc: true}}},
		{Sort: []scoping.SortKey{{Field: "updated-at", Desc: true}}},
		{Sort: []scoping.SortKey{{Field: "project-name", Numeric: true}}}, // nothing parses: id order
		{AllAccounts: true, Where: []scoping.Cond{in("active", "true")}, Limit: 20, Offset: 10},
		{AllAccounts: true, Sort: byName, Limit: 15},
		{AllAccounts: true},
		{Where: []scoping.Cond{in("active", "true")}, Limit: 1000},
	}
	for i, q := range queries {
		for _, acct := range []string{"7", "8"} {
			if q.AllAccounts && acct == "8" {
				continue
			}
			t.Run(fmt.Sprintf("%d/%s", i, acct), func(t *testing.T) {
				q := *q
				q.Type, q.AccountID = "projects", acct
				var want []*scoping.Record
				for _, r := range alive {
					if (q.AllAccounts || r.AccountID == acct) && q.Matches(r) {
						want = append(want, r)
					}
				}
				slices.SortFunc(want, func(a, b *scoping.Record) int { return scoping.CompareIDs(a.ID, b.ID) })
				q.SortRecords(want)
				wantTotal := len(want)
				want = window(want, q.Offset, q.Limit)
				got, total := List(t, s, &q)
				require.Equal(t, wantTotal, total, "total of %+v", q)
				require.Equal(t, ids(want), ids(got), "page of %+v", q)
				for j, r := range got {
					require.Equal(t, want[j].Attrs["project-name"], r.Attrs["project-name"])
					require.Equal(t, want[j].AccountID, r.AccountID)
				}
			})
		}
	}
}

func window[T any](s []T, offset, limit int) []T {
	if offset >= len(s) {
		return nil
	}
	s = s[offset:]
	if limit > 0 && limit < len(s) {
		s = s[:limit]
	}
	return s
}

// Ensure blobs are kept per account, kind and id, replaced by a second
// put, removed by a delete (a missing one included), rolled back with
// their transaction, returned as the caller's own bytes, and that a
// missing blob is ENOTFOUND.
func testBlobs(t *testing.T, open Opener) {
	s := openDefault(t, open)
	ctx := context.Background()
	big := make([]byte, 3<<20)
	for i := range big {
		big[i] = byte(i * 7)
	}
	blob := func(acct, kind, id string) ([]byte, error) {
		var out []byte
		err := s.View(ctx, func(tx scoping.Tx) error {
			var err error
			out, err = tx.Blob(acct, kind, id)
			return err
		})
		return out, err
	}
	require.NoError(t, s.Update(ctx, func(tx scoping.Tx) error {
		for _, b := range []struct {
			acct, kind, id string
			data           []byte
		}{{"1", "k/file", "5", []byte("one")}, {"2", "k/file", "5", []byte("two")}, {"1", "k/pdf", "5", big}, {"1", "k/file", "5", []byte("one, again")}} {
			if err := tx.PutBlob(b.acct, b.kind, b.id, b.data); err != nil {
				return err
			}
		}
		got, err := tx.Blob("1", "k/file", "5")
		require.NoError(t, err)
		require.Equal(t, "one, again", string(got), "own writes are visible in the transaction")
		return nil
	}))
	for _, tc := range []struct {
		acct, kind, id string
		want           []byte
	}{{"1", "k/file", "5", []byte("one, again")}, {"2", "k/file", "5", []byte("two")}, {"1", "k/pdf", "5", big}} {
		got, err := blob(tc.acct, tc.kind, tc.id)
		require.NoError(t, err)
		require.Equal(t, tc.want, got)
	}
	got, _ := blob("1", "k/file", "5")
	got[0] = 'X' // the caller's copy
	again, _ := blob("1", "k/file", "5")
	require.Equal(t, "one, again", string(again))
	for _, missing := range [][3]string{{"3", "k/file", "5"}, {"1", "k/file", "6"}, {"1", "other", "5"}} {
		_, err := blob(missing[0], missing[1], missing[2])
		require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err), "%v", missing)
	}

	boom := errors.New("boom")
	err := s.Update(ctx, func(tx scoping.Tx) error {
		require.NoError(t, tx.PutBlob("1", "k/file", "7", []byte("ghost")))
		require.NoError(t, tx.DeleteBlob("2", "k/file", "5"))
		return boom
	})
	require.ErrorIs(t, err, boom)
	_, err = blob("1", "k/file", "7")
	require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err), "a rolled-back put leaves nothing")
	_, err = blob("2", "k/file", "5")
	require.NoError(t, err, "a rolled-back delete leaves the blob")

	require.NoError(t, s.Update(ctx, func(tx scoping.Tx) error {
		if err := tx.DeleteBlob("1", "k/pdf", "5"); err != nil {
			return err
		}
		return tx.DeleteBlob("1", "k/pdf", "99") // missing: no error
	}))
	_, err = blob("1", "k/pdf", "5")
	require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err))
	_, err = blob("1", "k/file", "5")
	require.NoError(t, err, "deleting one kind keeps the others")
}
