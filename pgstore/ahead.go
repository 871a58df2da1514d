package pgstore

import (
	"fmt"
	"slices"
	"strings"

	"github.com/scopekit/scopekit/engine"
)

// Reading ahead (engine.Prefetcher): the records and lists a caller says
// it will need go out with the transaction's next round trip, and are
// answered from memory when asked for. In a write transaction the records
// stay known until the transaction writes them (its locks keep others
// from doing so), and a list by ids of records it knows is answered
// without a statement.

// aheadList is a list to read with the next round trip.
type aheadList struct {
	key  string
	stmt *query
	res  *listed
}

// Prefetch implements engine.Prefetcher: the records keys are read with
// the next statement the transaction sends.
func (t *tx) Prefetch(keys ...engine.Key) {
	for _, k := range keys {
		if _, ok := parseID(k.ID); !ok {
			continue
		}
		if _, ok := t.cache[k]; ok || slices.Contains(t.ahead, k) {
			continue
		}
		t.ahead = append(t.ahead, k)
	}
}

// PrefetchVia implements engine.Prefetcher: the records vias name are
// read with the next statement the transaction sends.
func (t *tx) PrefetchVia(vias ...engine.Via) {
	for _, v := range vias {
		if _, ok := parseID(v.From.ID); !ok || slices.Contains(t.aheadVias, v) || t.viaDone[v] {
			continue
		}
		t.aheadVias = append(t.aheadVias, v)
	}
}

// viaStatement reads the records vias name, into the transaction's cache
// (a join of two primary key lookups each).
func (t *tx) viaStatement(vias []engine.Via) (*query, func()) {
	var u strings.Builder
	var args []any
	for i, v := range vias {
		if i > 0 {
			u.WriteString(" UNION ALL ")
		}
		fid, _ := parseID(v.From.ID)
		args = append(args, v.From.AccountID, fid)
		t.lockAccount(v.From.AccountID, false)
		rel := quoteLiteral(v.Rel)
		fmt.Fprintf(&u, `SELECT %d AS i, r.type, r.account_id, r.id, r.xmin::text::int8 AS x, r.attrs, r.rels, r.created_at, r.updated_at
			FROM records f JOIN records r ON r.type = %s AND r.account_id = f.account_id
				AND r.id = CASE WHEN (f.rels -> %s ->> 0) ~ '^[1-9][0-9]{0,17}$' THEN (f.rels -> %s ->> 0)::int8 END
			WHERE f.type = %s AND f.account_id = $%d AND f.id = $%d`, i, quoteLiteral(v.Type), rel, rel, quoteLiteral(v.From.Type), len(args)-1, len(args))
	}
	q, found := t.unionQuery(u.String(), args)
	return q, func() {
		if t.cache == nil {
			t.cache = map[engine.Key]*stored{}
		}
		if t.viaDone == nil {
			t.viaDone = map[engine.Via]bool{}
		}
		for _, v := range vias {
			t.viaDone[v] = true
		}
		for k, s := range found {
			t.cache[k] = s
		}
	}
}

// PrefetchList implements engine.Prefetcher: the lists qs are read with
// the next statement the transaction sends.
func (t *tx) PrefetchList(qs ...*engine.Query) {
	for _, q := range qs {
		key := listKey(q)
		if _, ok := t.lists[key]; ok || slices.ContainsFunc(t.aheadLists, func(a *aheadList) bool { return a.key == key }) {
			continue
		}
		if _, _, ok := t.listFromCache(q); ok {
			continue
		}
		stmt, res, err := t.listStatement(q)
		if err != nil {
			continue // asked for again, the list answers its error
		}
		t.aheadLists = append(t.aheadLists, &aheadList{key: key, stmt: stmt, res: res})
	}
}

// listKey identifies a query.
func listKey(q *engine.Query) string {
	return fmt.Sprintf("%s\x00%s\x00%t\x00%v\x00%v\x00%d\x00%d", q.Type, q.AccountID, q.AllAccounts, q.Where, q.Sort, q.Offset, q.Limit)
}

// takeAhead returns the statements of what is to be read ahead, and what
// keeps their results once they have run.
func (t *tx) takeAhead() ([]*query, func()) {
	if len(t.ahead) == 0 && len(t.aheadLists) == 0 && len(t.aheadVias) == 0 {
		return nil, func() {}
	}
	var qs []*query
	keep, keepVias := func() {}, func() {}
	if len(t.ahead) > 0 {
		q, done := t.getMany(t.ahead)
		qs, keep = append(qs, q), done
	}
	if len(t.aheadVias) > 0 {
		q, done := t.viaStatement(t.aheadVias)
		qs, keepVias = append(qs, q), done
	}
	lists := t.aheadLists
	for _, a := range lists {
		qs = append(qs, a.stmt)
	}
	t.ahead, t.aheadLists, t.aheadVias = nil, nil, nil
	return qs, func() {
		keep()
		keepVias()
		if t.lists == nil {
			t.lists = map[string]*listed{}
		}
		for _, a := range lists {
			t.lists[a.key] = a.res
		}
	}
}

// takeList returns the result of a list read ahead: once in a read, until
// the transaction writes its type in a write.
func (t *tx) takeList(q *engine.Query) (*listed, bool) {
	key := listKey(q)
	res, ok := t.lists[key]
	if ok && !t.write() {
		delete(t.lists, key)
	}
	return res, ok
}

// forgetLists drops the lists of typ read ahead: a write changed them.
func (t *tx) forgetLists(typ string) {
	for k, l := range t.lists {
		if l.q.Type == typ {
			delete(t.lists, k)
		}
	}
}

// listFromCache answers, in a write transaction, a list of one account
// whose conditions include the ids of records the transaction knows
// (Cond.Match and Query.SortRecords are what the SQL mirrors).
func (t *tx) listFromCache(q *engine.Query) ([]*engine.Record, int, bool) {
	if !t.write() || q.AllAccounts {
		return nil, 0, false
	}
	i := slices.IndexFunc(q.Where, func(c engine.Cond) bool { return c.Field == "id" && c.Op == engine.OpIn })
	if i < 0 {
		return nil, 0, false
	}
	var out []*engine.Record
	for _, id := range q.Where[i].Values {
		if _, ok := parseID(id); !ok {
			continue
		}
		s, ok := t.cache[engine.Key{Type: q.Type, AccountID: q.AccountID, ID: id}]
		if !ok {
			return nil, 0, false
		}
		if s == nil || slices.ContainsFunc(out, func(r *engine.Record) bool { return r.ID == id }) {
			continue
		}
		r, err := s.record(q.Type, q.AccountID)
		if err != nil {
			return nil, 0, false
		}
		if q.Matches(r) {
			out = append(out, r)
		}
	}
	q.SortRecords(out)
	total := len(out)
	out = out[min(q.Offset, len(out)):]
	if q.Limit > 0 && len(out) > q.Limit {
		out = out[:q.Limit]
	}
	return out, total, true
}
