package boltstore

import (
	"bytes"
	"slices"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	bolt "go.etcd.io/bbolt"
)

// List implements engine.Tx. Equality conditions on indexed fields (and
// on "id") select candidate ids from the indexes without reading records;
// the remaining conditions are evaluated on the candidates. When nothing is
// left to evaluate and the order is by id, only the requested page is read
// and decoded.
func (t *tx) List(q *engine.Query) ([]*engine.Record, int, error) {
	def, ok := t.db.schema.Lookup(q.Type)
	if !ok {
		return nil, 0, scopekit.Errorf(scopekit.ENOTFOUND, "no resource type %q", q.Type)
	}
	accounts := []string{q.AccountID}
	if q.AllAccounts {
		accounts = t.accounts(q.Type)
	}
	indexed := map[string]bool{}
	for _, f := range def.IndexedFields() {
		indexed[f] = true
	}
	var residual []engine.Cond
	for _, c := range q.Where {
		if !(c.Op == engine.OpIn && (indexed[c.Field] || c.Field == "id")) {
			residual = append(residual, c)
		}
	}
	fast := len(residual) == 0 && len(q.Sort) == 0 && !q.AllAccounts

	var all []*engine.Record
	total := 0
	for _, acct := range accounts {
		b, err := t.records(q.Type, acct, false)
		if err != nil {
			return nil, 0, err
		}
		if b == nil {
			continue
		}
		if fast {
			if c, ok := singleIndexed(q, indexed); ok {
				return t.indexPage(q, b, acct, c)
			}
		}
		cand, err := t.candidates(q, def, b, acct, indexed)
		if err != nil {
			return nil, 0, err
		}
		if fast {
			return t.page(q, b, acct, cand)
		}
		var keys, vals [][]byte
		if cand == nil {
			_ = b.ForEach(func(k, v []byte) error {
				keys, vals = append(keys, k), append(vals, v)
				return nil
			})
		} else {
			for _, k := range cand {
				if v := b.Get(k); v != nil {
					keys, vals = append(keys, k), append(vals, v)
				}
			}
		}
		recs, err := decodeBatch(q.Type, acct, keys, vals)
		if err != nil {
			return nil, 0, err
		}
	next:
		for _, r := range recs {
			for _, c := range residual {
				if !c.Match(r) {
					continue next
				}
			}
			all = append(all, r)
		}
	}
	if len(q.Sort) > 0 || q.AllAccounts {
		q.SortRecords(all)
	}
	total = len(all)
	return window(all, q.Offset, q.Limit), total, nil
}

// singleIndexed returns the condition of a query that is exactly one
// equality on one value of an indexed field (the common case: the default
// filter[active]=true).
func singleIndexed(q *engine.Query, indexed map[string]bool) (engine.Cond, bool) {
	if len(q.Where) != 1 {
		return engine.Cond{}, false
	}
	c := q.Where[0]
	return c, c.Op == engine.OpIn && len(c.Values) == 1 && indexed[c.Field]
}

// indexPage serves a page for a single indexed equality by walking the
// index once: it counts every entry and keeps only the page's keys, so a
// page of 250 out of 10,000 allocates for 250.
func (t *tx) indexPage(q *engine.Query, b *bolt.Bucket, acct string, c engine.Cond) ([]*engine.Record, int, error) {
	ib, err := t.index(q.Type, acct, c.Field, false)
	if err != nil || ib == nil {
		return nil, 0, err
	}
	prefix := append(indexValue(c.Values[0]), 0)
	var keys [][]byte
	if q.Limit > 0 {
		keys = make([][]byte, 0, q.Limit)
	}
	total := 0
	cur := ib.Cursor()
	for k, _ := cur.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = cur.Next() {
		if len(k) != len(prefix)+8 {
			continue
		}
		if total >= q.Offset && (q.Limit == 0 || len(keys) < q.Limit) {
			keys = append(keys, k[len(prefix):])
		}
		total++
	}
	return t.decodeKeys(q, b, acct, keys, total)
}

// page serves an id-ordered page when no condition is left to evaluate:
// the total is the number of candidates (or of records when cand is nil),
// and only the page's records are read and decoded.
func (t *tx) page(q *engine.Query, b *bolt.Bucket, acct string, cand [][]byte) ([]*engine.Record, int, error) {
	if cand != nil {
		return t.decodeKeys(q, b, acct, window(cand, q.Offset, q.Limit), len(cand))
	}
	var keys [][]byte
	total := 0
	c := b.Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		if total >= q.Offset && (q.Limit == 0 || len(keys) < q.Limit) {
			keys = append(keys, k)
		}
		total++
	}
	return t.decodeKeys(q, b, acct, keys, total)
}

// decodeKeys reads and decodes the records of keys, in order: a page of
// q, whose records the page cache (pageRecords) decodes once while their
// stored bytes stay the same; shared as they are kept when q.Shared,
// else copies.
func (t *tx) decodeKeys(q *engine.Query, b *bolt.Bucket, acct string, keys [][]byte, total int) ([]*engine.Record, int, error) {
	out := make([]*engine.Record, 0, len(keys))
	for _, k := range keys {
		v := b.Get(k)
		if v == nil {
			continue
		}
		r, err := t.db.pages.get(q.Type, acct, k, v, q.Shared)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, r)
	}
	return out, total, nil
}

// candidates intersects the id sets of the indexed equality conditions; nil
// means "every record" (no such condition).
func (t *tx) candidates(q *engine.Query, def *engine.TypeDef, b *bolt.Bucket, acct string, indexed map[string]bool) ([][]byte, error) {
	var cand [][]byte
	have := false
	for _, c := range q.Where {
		var ids [][]byte
		if isRange(c) && indexed[c.Field] && def.TimeField(c.Field) {
			var err error
			if ids, err = t.rangeIDs(q.Type, acct, c); err != nil {
				return nil, err
			}
			slices.SortFunc(ids, bytes.Compare)
			if !have {
				cand, have = ids, true
			} else {
				cand = intersect(cand, ids)
			}
			continue
		}
		if c.Op != engine.OpIn {
			continue
		}
		switch {
		case c.Field == "id":
			for _, v := range c.Values {
				if k, ok := idKey(v); ok && b.Get(k) != nil {
					ids = append(ids, k)
				}
			}
		case indexed[c.Field]:
			ib, err := t.index(q.Type, acct, c.Field, false)
			if err != nil {
				return nil, err
			}
			if ib != nil {
				cur := ib.Cursor() // one cursor serves every value
				for _, v := range c.Values {
					prefix := append(indexValue(v), 0)
					for k, _ := cur.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = cur.Next() {
						if len(k) == len(prefix)+8 {
							ids = append(ids, k[len(prefix):])
						}
					}
				}
			}
		default:
			continue
		}
		slices.SortFunc(ids, bytes.Compare)
		ids = slices.CompactFunc(ids, bytes.Equal)
		if !have {
			cand, have = ids, true
			continue
		}
		cand = intersect(cand, ids)
	}
	if have && cand == nil {
		cand = [][]byte{}
	}
	return cand, nil
}

// isRange reports whether c bounds a field from one side.
func isRange(c engine.Cond) bool {
	return (c.Op == engine.OpLte || c.Op == engine.OpGte) && len(c.Values) == 1
}

// rangeIDs walks the index of a time field from one end to the bound of c
// (times sort as their text does), returning the ids of the records in
// range without reading any record. The condition is still evaluated on
// the records (it is residual), so this only has to include them all.
func (t *tx) rangeIDs(typ, acct string, c engine.Cond) ([][]byte, error) {
	ib, err := t.index(typ, acct, c.Field, false)
	if err != nil || ib == nil {
		return nil, err
	}
	bound := indexValue(c.Values[0])
	var ids [][]byte
	cur := ib.Cursor()
	k, _ := cur.Seek(bound)
	if c.Op == engine.OpLte {
		k, _ = cur.First()
	}
	for ; k != nil; k, _ = cur.Next() {
		if len(k) < 9 {
			continue
		}
		if c.Op == engine.OpLte && bytes.Compare(k[:len(k)-9], bound) > 0 {
			break
		}
		ids = append(ids, k[len(k)-8:])
	}
	return ids, nil
}

// intersect returns the keys present in both sorted lists.
func intersect(a, b [][]byte) [][]byte {
	out := make([][]byte, 0, min(len(a), len(b)))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch d := bytes.Compare(a[i], b[j]); {
		case d == 0:
			out = append(out, a[i])
			i++
			j++
		case d < 0:
			i++
		default:
			j++
		}
	}
	return out
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

// accounts lists the account buckets of a type.
func (t *tx) accounts(typ string) []string {
	tb := t.btx.Bucket(bucketRec).Bucket([]byte(typ))
	if tb == nil {
		return nil
	}
	var out []string
	_ = tb.ForEach(func(k, v []byte) error {
		if v == nil {
			name := string(k)
			if name == "_" {
				name = ""
			}
			out = append(out, name)
		}
		return nil
	})
	return out
}
