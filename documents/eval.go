package documents

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/scopekit/scopekit/expr"
	"github.com/shopspring/decimal"
)

// env is where an expression is evaluated: the scopes (the merge data at
// [0], the innermost section's value last), the index of each scope in
// its loop (-1 for a scope that is not a list item), the first error a
// filter met (a required value missing), and what the filters found of
// the locale.
type env struct {
	scopes []any
	index  []int
	err    error
	loc    *localeData // what the filters read of the locale, found once
}

func (v *env) push(val any, index int) {
	v.scopes, v.index = append(v.scopes, val), append(v.index, index)
}

func (v *env) pop() {
	v.scopes, v.index = v.scopes[:len(v.scopes)-1], v.index[:len(v.index)-1]
}

// eval evaluates e. Values are those of a decoded JSON tree:
// map[string]any, []any, string, json.Number, bool, nil.
func eval(e *expr.Node, v *env) any {
	switch e.Op {
	case "path":
		return resolve(e, v.scopes)
	case "lit":
		return e.Lit
	case "$index":
		for i := len(v.index) - 1; i >= 0; i-- {
			if v.index[i] >= 0 {
				return json.Number(strconv.Itoa(v.index[i]))
			}
		}
		return nil
	case "member":
		return field(eval(e.A, v), e.Path[0])
	case "index":
		return field(eval(e.A, v), text(eval(e.B, v)))
	case "!":
		return !truthy(eval(e.A, v))
	case "neg":
		if d, ok := number(eval(e.A, v)); ok {
			return json.Number(d.Neg().String())
		}
		return nil
	case "&&":
		if a := eval(e.A, v); !truthy(a) {
			return a
		}
		return eval(e.B, v)
	case "||":
		if a := eval(e.A, v); truthy(a) {
			return a
		}
		return eval(e.B, v)
	case "?:":
		if truthy(eval(e.A, v)) {
			return eval(e.B, v)
		}
		return eval(e.C, v)
	case "+":
		return v.join(e.Args)
	case "filter":
		return filter(e, v)
	case "===", "!==":
		eq := strictEqual(eval(e.A, v), eval(e.B, v))
		return eq == (e.Op == "===")
	}
	return compare(e.Op, eval(e.A, v), eval(e.B, v))
}

// maxJoined bounds the text one tag's + makes (1 MiB): past it the
// rendering fails naming the tag, rather than building texts of
// gigabytes from a few long values.
const maxJoined = 1 << 20

// errTooLong is the error of a tag whose + makes a text over maxJoined.
type errTooLong struct{}

func (errTooLong) Error() string { return "a joined text is too long" }

// join is the operands of a + evaluated and joined from the left, as
// plus joins two, in time linear in the text made: once the value is a
// text every later operand but a missing one is appended to it.
func (v *env) join(args []*expr.Node) any {
	acc := eval(args[0], v)
	var sb strings.Builder
	s, joined := acc.(string)
	sb.WriteString(s)
	for _, x := range args[1:] {
		b := eval(x, v)
		switch {
		case joined && b != nil:
			sb.WriteString(text(b))
		case !joined:
			acc = plus(acc, b)
			s, joined = acc.(string)
			sb.WriteString(s)
		}
		if sb.Len() > maxJoined {
			if v.err == nil {
				v.err = errTooLong{}
			}
			return nil
		}
	}
	if joined {
		return sb.String()
	}
	return acc
}

// plus is the angular parser's "+": a missing side gives the other; two
// numbers add; otherwise the texts are joined (merge data's figures are
// texts, so "1.00" + "2.00" is "1.002.00" there too).
func plus(a, b any) any {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	x, xn := a.(json.Number)
	y, yn := b.(json.Number)
	if xn && yn {
		dx, e1 := decimal.NewFromString(string(x))
		dy, e2 := decimal.NewFromString(string(y))
		if e1 == nil && e2 == nil {
			return json.Number(dx.Add(dy).String())
		}
	}
	return text(a) + text(b)
}

// strictEqual is "===": the same kind and the same value (numbers by
// value, so 1 === 1.0).
func strictEqual(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		dx, e1 := decimal.NewFromString(string(x))
		dy, e2 := decimal.NewFromString(string(y))
		return e1 == nil && e2 == nil && dx.Equal(dy)
	}
	return false // lists and objects: never the same object
}

// resolve finds a path: its first segment in the innermost scope that has
// it, then outward; the rest inside that value. "length" of a list or text
// is its length, a number segment indexes a list. Missing is nil.
func resolve(e *expr.Node, scopes []any) any {
	if len(scopes) == 0 {
		return nil
	}
	if e.Path == nil {
		return scopes[len(scopes)-1]
	}
	var cur any
	found := false
	for i := len(scopes) - 1; i >= 0; i-- {
		if m, ok := scopes[i].(map[string]any); ok {
			if v, ok := m[e.Path[0]]; ok {
				cur, found = v, true
				break
			}
		}
		if e.Rel {
			break
		}
	}
	if !found {
		return nil
	}
	for _, seg := range e.Path[1:] {
		cur = field(cur, seg)
	}
	return cur
}

func field(v any, seg string) any {
	switch t := v.(type) {
	case map[string]any:
		return t[seg]
	case []any:
		if seg == "length" {
			return json.Number(strconv.Itoa(len(t)))
		}
		if i, err := strconv.Atoi(seg); err == nil && strconv.Itoa(i) == seg && i >= 0 && i < len(t) {
			return t[i]
		}
	case string:
		if seg == "length" {
			return json.Number(strconv.Itoa(utf8.RuneCountInString(t)))
		}
	}
	return nil
}

// truthy: missing, null, false, "", 0, an empty list and an empty object are
// false; everything else is true.
func truthy(v any) bool {
	switch t := v.(type) {
	case nil:
		return false
	case bool:
		return t
	case string:
		return t != ""
	case json.Number:
		d, err := decimal.NewFromString(string(t))
		return err != nil || !d.IsZero()
	case []any:
		return len(t) > 0
	case map[string]any:
		return len(t) > 0
	}
	return true
}

// text is a value as a document shows it: lists and objects show nothing.
func text(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case json.Number:
		return string(t)
	case bool:
		if t {
			return "true"
		}
		return "false"
	}
	return ""
}

// number reads v as a decimal: a JSON number or a text that is one (money,
// hours and quantities are texts in merge data).
func number(v any) (decimal.Decimal, bool) {
	var s string
	switch t := v.(type) {
	case json.Number:
		s = string(t)
	case string:
		s = strings.TrimSpace(t)
	default:
		return decimal.Decimal{}, false
	}
	if s == "" || strings.ContainsAny(s, "eE") {
		return decimal.Decimal{}, false
	}
	d, err := decimal.NewFromString(s)
	return d, err == nil
}

// compare compares two values: as numbers when both are numbers, else as
// texts.
func compare(op string, a, b any) bool {
	c := order(a, b)
	switch op {
	case "==":
		return c == 0
	case "!=":
		return c != 0
	case "<":
		return c < 0
	case ">":
		return c > 0
	case "<=":
		return c <= 0
	}
	return c >= 0
}

// order is -1, 0 or 1 as a sorts before, with or after b.
func order(a, b any) int {
	if x, ok := number(a); ok {
		if y, ok := number(b); ok {
			return x.Cmp(y)
		}
	}
	return strings.Compare(text(a), text(b))
}
