package pgstore

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
)

// The SQL of a list mirrors engine.Cond.Match and Query.SortRecords: a
// field is a column (id, created-at, updated-at), a relationship (the ids
// in rels) or an attribute (its canonical text, sk_text); equality and
// containment compare lower-cased text, ranges compare bytes (COLLATE
// "C"), text sorts put a missing value first as the empty text would be,
// numeric sorts put it last (first when descending), and ties go by id.

// fieldExpr is the SQL text of a field's first (or only) value.
func fieldExpr(def *engine.TypeDef, field string) string {
	switch field {
	case "id":
		return "id::text"
	case "created-at":
		return "created_at"
	case "updated-at":
		return "updated_at"
	}
	if _, ok := def.Rel(field); ok {
		return "(rels -> " + quoteLiteral(field) + " ->> 0)"
	}
	return "sk_text(attrs -> " + quoteLiteral(field) + ")"
}

// toMany reports whether a field holds a list of ids to match element by
// element.
func toMany(def *engine.TypeDef, field string) bool {
	rd, ok := def.Rel(field)
	return ok && rd.ToMany
}

func sortExpr(def *engine.TypeDef, sk engine.SortKey) string {
	if sk.Numeric {
		return "sk_num(" + fieldExpr(def, sk.Field) + ")"
	}
	return "(coalesce(lower(" + fieldExpr(def, sk.Field) + "), '') COLLATE \"C\")"
}

// args collects the parameters of a statement.
type args []any

func (a *args) add(v any) string {
	*a = append(*a, v)
	return "$" + strconv.Itoa(len(*a))
}

func lowered(vs []string) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = strings.ToLower(v)
	}
	return out
}

// condSQL is the SQL of one condition.
func condSQL(def *engine.TypeDef, c engine.Cond, a *args) string {
	e := fieldExpr(def, c.Field)
	many := toMany(def, c.Field)
	elems := "jsonb_array_elements_text(rels -> " + quoteLiteral(c.Field) + ")"
	switch c.Op {
	case engine.OpIn:
		if c.Field == "id" {
			var ns []int64
			for _, v := range c.Values {
				if n, ok := parseID(v); ok {
					ns = append(ns, n)
				}
			}
			return "id = ANY(" + a.add(ns) + "::bigint[])"
		}
		if !many && len(c.Values) == 1 {
			// one value: the field's index answers in id order, so the
			// planner takes it even while the partition's statistics are
			// stale (= ANY would need a sort, and a young partition looks
			// cheaper to scan whole in primary key order)
			return "lower(" + e + ") = " + a.add(strings.ToLower(c.Values[0])) + "::text"
		}
		p := a.add(lowered(c.Values))
		if many {
			return "EXISTS (SELECT 1 FROM " + elems + " e WHERE lower(e) = ANY(" + p + "::text[]))"
		}
		return "lower(" + e + ") = ANY(" + p + "::text[])"
	case engine.OpContains:
		if len(c.Values) == 0 {
			return "TRUE"
		}
		p := a.add(strings.ToLower(c.Values[0]))
		if many {
			return "EXISTS (SELECT 1 FROM " + elems + " e WHERE strpos(lower(e), " + p + "::text) > 0)"
		}
		return "strpos(lower(" + e + "), " + p + "::text) > 0"
	case engine.OpGte, engine.OpLte:
		if len(c.Values) == 0 {
			return "FALSE"
		}
		op := ">="
		if c.Op == engine.OpLte {
			op = "<="
		}
		return "(" + e + " COLLATE \"C\") " + op + " (" + a.add(c.Values[0]) + "::text COLLATE \"C\")"
	case engine.OpNull:
		return "coalesce(" + e + ", '') = ''"
	case engine.OpNotNull:
		return "coalesce(" + e + ", '') <> ''"
	}
	return "FALSE"
}

// listed is the result of a list statement: the rows of the page, the
// count of all matches (-1: not counted), and what a count needs.
type listed struct {
	q     *engine.Query
	rows  []*stored
	accts []string
	total int
	cond  string
	args  args
	// stale: a row came without its text (its version was known) and the
	// text kept for it was gone: the list must be read again, in full.
	stale bool
}

// listStatement builds the statement of q: the page with the count of all
// matches when paged (an uncorrelated subquery, computed once and
// answered by an index). A page of a read names the row versions of the
// page cache (pageRecords.known), and rows at those versions come
// without their text, which the cache fills in.
func (t *tx) listStatement(q *engine.Query) (*query, *listed, error) {
	return t.listStatementOf(q, true)
}

func (t *tx) listStatementOf(q *engine.Query, useKnown bool) (*query, *listed, error) {
	def, ok := t.db.schema.Lookup(q.Type)
	if !ok {
		return nil, nil, scopekit.Errorf(scopekit.ENOTFOUND, "no resource type %q", q.Type)
	}
	if q.AllAccounts {
		t.lock("all:"+q.Type, lockExclusive)
	} else {
		t.lockAccount(q.AccountID, false)
	}
	var a args
	// the type as a literal: a prepared statement's plan then uses the
	// type's partial indexes (a parameter would hide their predicate)
	where := []string{"type = " + quoteLiteral(q.Type)}
	if !q.AllAccounts {
		where = append(where, "account_id = "+a.add(q.AccountID))
	}
	for _, c := range q.Where {
		where = append(where, condSQL(def, c, &a))
	}
	order := make([]string, 0, len(q.Sort)+1)
	for _, sk := range q.Sort {
		o := sortExpr(def, sk)
		if sk.Desc {
			o += " DESC"
		}
		order = append(order, o)
	}
	order = append(order, "id")
	cond := strings.Join(where, " AND ")
	condArgs := append(args(nil), a...) // what cond alone takes (a count of it)
	cols, whereKnown, known := recordCols, "", false
	if useKnown && !q.AllAccounts && q.Limit > 0 && !t.write() {
		if versions := t.db.pages.known(q.Type, q.AccountID); versions != "" {
			known = true
			// an object of versions by id: each row's lookup is a search
			// of its sorted keys (a join was planned as a nested loop)
			p := a.add(versions) + "::jsonb"
			cols = strings.ReplaceAll(knownCols, "$known", p)
			whereKnown = " AND " + p + " IS NOT NULL" // the check statement takes the same arguments
		}
	}
	tail := " FROM records WHERE " + cond + whereKnown + " ORDER BY " + strings.Join(order, ", ")
	if q.Limit > 0 {
		tail += " LIMIT " + strconv.Itoa(q.Limit)
	}
	if q.Offset > 0 {
		tail += " OFFSET " + strconv.Itoa(q.Offset)
	}
	count := ""
	if q.Limit > 0 {
		count = ", (SELECT count(*) FROM records WHERE " + cond + ")"
	}
	res := &listed{q: q, total: -1, cond: cond, args: condArgs}
	stmt := &query{sql: "SELECT " + cols + count + tail, check: "SELECT " + checkCols + count + tail, args: a}
	if !q.AllAccounts && q.Limit > 0 && q.Limit <= maxSharedPage {
		stmt.page = q.Type + "\x00" + q.AccountID
	}
	if t.write() && !q.AllAccounts && q.Limit == 0 && q.Offset == 0 && len(q.Sort) == 0 {
		stmt.merges = q.Type // in id order, all matches: kept rows merge in
	}
	stmt.scan = func(rows pgx.Rows) error {
		var n int64
		var extra []*int64
		if count != "" {
			extra = []*int64{&n}
		}
		var slab []stored // the rows' records, a chunk at a time
		for rows.Next() {
			if len(slab) == cap(slab) {
				slab = make([]stored, 0, min(max(q.Limit, 16), 256))
			}
			slab = slab[:len(slab)+1]
			k, s, err := t.scanStoredInto(rows, stmt, engine.Key{Type: q.Type, AccountID: q.AccountID}, &slab[len(slab)-1], extra...)
			if err != nil {
				return err
			}
			res.rows, res.accts = append(res.rows, s), append(res.accts, k.AccountID)
			t.remember(k, s)
			if count != "" {
				res.total = int(n)
			}
		}
		if known && !t.db.pages.fill(res.rows, q.Type, q.AccountID) {
			res.stale = true // rows sent without their text, which is gone
		}
		if res.total > maxSharedMatches && stmt.page != "" {
			t.db.bigPages.Store(stmt.page, true)
		}
		if stmt.merges != "" {
			t.mergeDeferred(q, res)
		}
		return rows.Err()
	}
	return stmt, res, nil
}

// List implements engine.Tx in one round trip (with what is read ahead),
// or none when the transaction has the answer: a list read ahead
// (PrefetchList), or, in a write transaction, a list by ids of records
// it holds.
func (t *tx) List(q *engine.Query) ([]*engine.Record, int, error) {
	if recs, total, ok := t.listFromCache(q); ok {
		return recs, total, nil
	}
	res, ok := t.takeList(q)
	for known := true; !ok || res.stale; known = false {
		stmt, r, err := t.listStatementOf(q, known)
		if err != nil {
			return nil, 0, err
		}
		if err := t.roundTrip(stmt); err != nil {
			return nil, 0, fmt.Errorf("list %s: %w", q.Type, err)
		}
		res, ok = r, true
	}
	out, err := t.db.pages.records(res.rows, res.accts, q.Type, q.Shared, !t.write())
	if err != nil {
		return nil, 0, err
	}
	total := res.total
	if total < 0 {
		// no page asked for, or none found: the total is what came (or,
		// past the end of the matches, a count)
		total = q.Offset + len(out)
		if len(out) == 0 && q.Offset > 0 {
			c := &query{sql: "SELECT count(*) FROM records WHERE " + res.cond, check: "SELECT count(*) FROM records WHERE " + res.cond, args: res.args}
			c.scan = func(rows pgx.Rows) error {
				for rows.Next() {
					var n int64
					if err := rows.Scan(&n); err != nil {
						return err
					}
					total = int(n)
					if t.mode == modeOptimistic {
						c.fp = append(c.fp, n)
					}
				}
				return rows.Err()
			}
			if err := t.roundTrip(c); err != nil {
				return nil, 0, fmt.Errorf("list %s: %w", q.Type, err)
			}
		}
	}
	return out, total, nil
}
