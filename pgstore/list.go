package pgstore

import (
	"fmt"
	"strconv"
	"strings"

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

// List implements engine.Tx: one query for the page, and a count of the
// matches when the page may not hold the last of them.
func (t *tx) List(q *engine.Query) ([]*engine.Record, int, error) {
	def, ok := t.db.schema.Lookup(q.Type)
	if !ok {
		return nil, 0, scopekit.Errorf(scopekit.ENOTFOUND, "no resource type %q", q.Type)
	}
	if q.AllAccounts {
		if err := t.lock("all:"+q.Type, lockExclusive); err != nil {
			return nil, 0, err
		}
	} else if err := t.lockAccount(q.AccountID, false); err != nil {
		return nil, 0, err
	}
	var a args
	where := []string{"type = " + a.add(q.Type)}
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
	sql := "SELECT account_id, id, attrs, rels, created_at, updated_at FROM records WHERE " + cond +
		" ORDER BY " + strings.Join(order, ", ")
	if q.Limit > 0 {
		sql += " LIMIT " + strconv.Itoa(q.Limit)
	}
	if q.Offset > 0 {
		sql += " OFFSET " + strconv.Itoa(q.Offset)
	}
	rows, err := t.ptx.Query(t.ctx, sql, a...)
	if err != nil {
		return nil, 0, fmt.Errorf("list %s: %w", q.Type, err)
	}
	defer rows.Close()
	out := make([]*engine.Record, 0, max(q.Limit, 0))
	for rows.Next() {
		var id int64
		var attrs, rels []byte
		r := &engine.Record{Type: q.Type}
		if err := rows.Scan(&r.AccountID, &id, &attrs, &rels, &r.CreatedAt, &r.UpdatedAt); err != nil {
			return nil, 0, err
		}
		r.ID = strconv.FormatInt(id, 10)
		if err := decodeInto(r, attrs, rels); err != nil {
			return nil, 0, err
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("list %s: %w", q.Type, err)
	}
	// the total: the page itself when it is all there is, else a count
	// (which an index answers without reading the records)
	total := q.Offset + len(out)
	if (q.Limit > 0 && len(out) == q.Limit) || (len(out) == 0 && q.Offset > 0) {
		if err := t.ptx.QueryRow(t.ctx, "SELECT count(*) FROM records WHERE "+cond, a...).Scan(&total); err != nil {
			return nil, 0, fmt.Errorf("list %s: %w", q.Type, err)
		}
	}
	return out, total, nil
}
