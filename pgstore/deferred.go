package pgstore

import (
	"cmp"
	"slices"
	"strings"

	"github.com/scopekit/scopekit/engine"
)

// A record inserted late (engine.LateInserter: its caller writes it again
// right away, as a new project is priced after its insert, its required
// governances and resources with it) is written once, with its final
// values: InsertLate takes the id (nextval) and keeps the row in the
// transaction; a Replace of it changes the kept row and a Delete drops
// it, so that the row and its indexes are not written twice. The row
// goes out before any statement that names its type (a lookup, a write
// of that type: everything that reads or writes records names the
// type, for the partition) and at the latest with the COMMIT; a list of
// all the matches of the type in id order instead adds the kept rows
// that match it to the rows it reads (Query.Matches mirrors the SQL).

// deferredInsert is a row kept by the transaction until it must go out.
type deferredInsert struct {
	key  engine.Key
	lit  string // the type as a SQL literal, as statements name it
	stmt *query
}

// deferInsert keeps the INSERT of the record k for later.
func (t *tx) deferInsert(k engine.Key, stmt *query) {
	t.inserts = append(t.inserts, &deferredInsert{key: k, lit: quoteLiteral(k.Type), stmt: stmt})
}

// deferred returns the kept INSERT of k, or nil.
func (t *tx) deferred(k engine.Key) *deferredInsert {
	for _, d := range t.inserts {
		if d.key == k {
			return d
		}
	}
	return nil
}

// dropDeferred forgets the kept INSERT d (its record was deleted).
func (t *tx) dropDeferred(d *deferredInsert) {
	t.inserts = slices.DeleteFunc(t.inserts, func(e *deferredInsert) bool { return e == d })
}

// flushInserts queues, before qs, the kept INSERTs of the types qs name;
// all of them when all is set (the COMMIT).
func (t *tx) flushInserts(qs []*query, all bool) {
	if len(t.inserts) == 0 {
		return
	}
	keep := t.inserts[:0]
	for _, d := range t.inserts {
		if all || slices.ContainsFunc(qs, func(q *query) bool { return q.merges != d.key.Type && strings.Contains(q.sql, d.lit) }) {
			t.pending = append(t.pending, d.stmt)
		} else {
			keep = append(keep, d)
		}
	}
	clear(t.inserts[len(keep):])
	t.inserts = keep
}

// mergeDeferred adds to res, the rows a list of q (all its matches, in id
// order) read, the kept rows that match q.
func (t *tx) mergeDeferred(q *engine.Query, res *listed) {
	added := false
	for _, d := range t.inserts {
		s := t.cache[d.key]
		if d.key.Type != q.Type || d.key.AccountID != q.AccountID || s == nil {
			continue
		}
		r, err := s.record(q.Type, q.AccountID)
		if err != nil || !q.Matches(r) {
			continue
		}
		res.rows, res.accts, added = append(res.rows, s), append(res.accts, q.AccountID), true
	}
	if !added {
		return
	}
	// one account: the accounts stay as they are
	slices.SortStableFunc(res.rows, func(a, b *stored) int { return cmp.Compare(a.id, b.id) })
}
