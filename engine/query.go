package engine

import (
	"cmp"
	"slices"
	"strings"

	"github.com/shopspring/decimal"
)

// Op is the operator of a query condition.
type Op int

// Operators of a Cond. A store may answer OpIn on an indexed field from its
// index (index lookups compare case-insensitively); every other condition is
// evaluated with Cond.Match.
const (
	OpIn       Op = iota // a value of the field equals one of Values
	OpContains           // the field's text contains Values[0], case-insensitively
	OpGte                // the field's text is >= Values[0] (times in TimeFormat)
	OpLte                // the field's text is <= Values[0]
	OpNull               // the field has no value
	OpNotNull            // the field has a value
)

// Cond is one condition of a query. Field is an attribute name, a
// relationship name, "id", "created-at" or "updated-at".
type Cond struct {
	Field  string
	Op     Op
	Values []string
}

// Match reports whether r satisfies c.
func (c Cond) Match(r *Record) bool {
	vals := r.FieldValues(c.Field)
	switch c.Op {
	case OpIn:
		for _, v := range vals {
			for _, want := range c.Values {
				if strings.EqualFold(v, want) {
					return true
				}
			}
		}
		return false
	case OpContains:
		if len(c.Values) == 0 {
			return true
		}
		needle := strings.ToLower(c.Values[0])
		for _, v := range vals {
			if strings.Contains(strings.ToLower(v), needle) {
				return true
			}
		}
		return false
	case OpGte, OpLte:
		if len(vals) == 0 || len(c.Values) == 0 {
			return false
		}
		d := strings.Compare(vals[0], c.Values[0])
		return (c.Op == OpGte && d >= 0) || (c.Op == OpLte && d <= 0)
	case OpNull:
		return len(vals) == 0 || vals[0] == ""
	case OpNotNull:
		return len(vals) > 0 && vals[0] != ""
	}
	return false
}

// SortKey orders a list by one field; Numeric compares values as numbers.
type SortKey struct {
	Field   string
	Desc    bool
	Numeric bool
}

// Query selects records of one type in one account: every condition must
// hold (Where), the result is ordered by Sort then by id, and the page is
// Limit records from Offset (Limit 0 = all).
type Query struct {
	Type        string
	AccountID   string
	AllAccounts bool // search every account (used for identities such as user emails)
	Where       []Cond
	Sort        []SortKey
	Offset      int
	Limit       int
	// Shared says the caller only reads the records it gets (it may
	// replace one in the slice, never change it): a store may return
	// records it shares with other readers rather than copies.
	Shared bool
}

// Matches reports whether r satisfies every condition of q.
func (q *Query) Matches(r *Record) bool {
	for _, c := range q.Where {
		if !c.Match(r) {
			return false
		}
	}
	return true
}

// SortRecords orders recs by q.Sort, then by numeric id. Each record's
// sort keys are computed once (a numeric key parses a decimal), not at
// every comparison.
func (q *Query) SortRecords(recs []*Record) {
	if len(recs) < 2 {
		return
	}
	type keyed struct {
		rec  *Record
		text []string
		num  []decimal.Decimal
		ok   []bool // num parsed (false: null, sorted last)
	}
	ks := make([]keyed, len(recs))
	for i, r := range recs {
		k := keyed{rec: r, text: make([]string, len(q.Sort)), num: make([]decimal.Decimal, len(q.Sort)), ok: make([]bool, len(q.Sort))}
		for j, sk := range q.Sort {
			v := first(r.FieldValues(sk.Field))
			if sk.Numeric {
				d, err := decimal.NewFromString(v)
				k.num[j], k.ok[j] = d, err == nil
			} else {
				k.text[j] = strings.ToLower(v)
			}
		}
		ks[i] = k
	}
	slices.SortStableFunc(ks, func(a, b keyed) int {
		for j, sk := range q.Sort {
			var d int
			switch {
			case !sk.Numeric:
				d = cmp.Compare(a.text[j], b.text[j])
			case a.ok[j] && b.ok[j]:
				d = a.num[j].Cmp(b.num[j])
			case a.ok[j] != b.ok[j]: // nulls last
				d = 1
				if a.ok[j] {
					d = -1
				}
			}
			if sk.Desc {
				d = -d
			}
			if d != 0 {
				return d
			}
		}
		return CompareIDs(a.rec.ID, b.rec.ID)
	})
	for i := range ks {
		recs[i] = ks[i].rec
	}
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

// CompareIDs orders decimal id strings numerically.
func CompareIDs(a, b string) int {
	if len(a) != len(b) {
		return cmp.Compare(len(a), len(b))
	}
	return strings.Compare(a, b)
}
