package expr

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/shopspring/decimal"
)

// Arithmetic evaluates in decimal, never in floating point, and keeps
// every number within a fixed size, so that one operation costs the same
// whatever the answers: a quotient and a product keep Places decimals
// (rounded half away from zero), and a result of more than MaxIntDigits
// digits before the point is an error.
const (
	Places       = 20
	MaxIntDigits = 30
)

// limit is 10^MaxIntDigits: a value's magnitude stays below it.
var limit = decimal.New(1, MaxIntDigits)

// Scope returns the value at a path: a decimal.Decimal (numbers; a
// json.Number is read as one), a string (texts and dates), a bool, a
// []string (lists) or nil (no value).
type Scope func(path []string) any

// Eval evaluates an arithmetic expression (Syntax.Arithmetic) in scope.
// Its value is a decimal.Decimal, string, bool, []string or nil. The
// errors say what could not be computed, naming the operand: a missing
// value in arithmetic, a division by zero, a number too large, a text
// where a number belongs.
func Eval(n *Node, scope Scope) (any, error) {
	e := &evaluator{scope: scope}
	v := e.eval(n)
	return v, e.err
}

type evaluator struct {
	scope Scope
	err   error
}

func (e *evaluator) fail(format string, args ...any) any {
	if e.err == nil {
		e.err = fmt.Errorf(format, args...)
	}
	return nil
}

func (e *evaluator) eval(n *Node) any {
	if e.err != nil {
		return nil
	}
	switch n.Op {
	case "lit":
		if s, ok := n.Lit.(json.Number); ok {
			d, err := decimal.NewFromString(string(s))
			if err != nil {
				return e.fail("bad number %s", s)
			}
			return d
		}
		return n.Lit
	case "path":
		if n.Rel || n.Path == nil {
			return e.fail("%s: a path is written in full", n.Describe())
		}
		return normal(e.scope(n.Path))
	case "!":
		return !Truthy(e.eval(n.A))
	case "&&":
		return Truthy(e.eval(n.A)) && Truthy(e.eval(n.B))
	case "||":
		return Truthy(e.eval(n.A)) || Truthy(e.eval(n.B))
	case "?:":
		if Truthy(e.eval(n.A)) {
			return e.eval(n.B)
		}
		return e.eval(n.C)
	case "==", "===":
		return Equal(e.eval(n.A), e.eval(n.B))
	case "!=", "!==":
		return !Equal(e.eval(n.A), e.eval(n.B))
	case "<", ">", "<=", ">=":
		return e.compare(n)
	case "neg":
		if d, ok := e.number(n.A); ok {
			return d.Neg()
		}
		return nil
	case "+":
		sum, ok := e.number(n.Args[0])
		for _, a := range n.Args[1:] {
			d, ok2 := e.number(a)
			if !ok || !ok2 {
				return nil
			}
			if sum, ok = e.bound(sum.Add(d), n); !ok {
				return nil
			}
		}
		return sum
	case "-", "*", "/":
		return e.arith(n)
	case "call":
		return e.call(n)
	}
	return e.fail("%s is not supported here", n.Describe())
}

// number evaluates n, which must give a number.
func (e *evaluator) number(n *Node) (decimal.Decimal, bool) {
	v := e.eval(n)
	if e.err != nil {
		return decimal.Zero, false
	}
	switch d := v.(type) {
	case decimal.Decimal:
		return d, true
	case nil:
		e.fail("%s has no value", n.Describe())
	default:
		e.fail("%s is %s, not a number", n.Describe(), KindOf(v))
	}
	return decimal.Zero, false
}

func (e *evaluator) arith(n *Node) any {
	a, ok := e.number(n.A)
	if !ok {
		return nil
	}
	b, ok := e.number(n.B)
	if !ok {
		return nil
	}
	var r decimal.Decimal
	switch n.Op {
	case "-":
		r = a.Sub(b)
	case "*":
		r = a.Mul(b).Round(Places)
	case "/":
		if b.IsZero() {
			return e.fail("division by zero: %s is 0", n.B.Describe())
		}
		r = a.DivRound(b, Places)
	}
	if r, ok = e.bound(r, n); !ok {
		return nil
	}
	return r
}

// bound refuses a number of more than MaxIntDigits digits before the
// point.
func (e *evaluator) bound(d decimal.Decimal, n *Node) (decimal.Decimal, bool) {
	if d.Abs().Cmp(limit) >= 0 {
		e.fail("a number is too large (more than %d digits before the point)", MaxIntDigits)
		return decimal.Zero, false
	}
	return d, true
}

// compare orders two numbers or two texts (dates are texts that sort as
// dates); a missing side makes it false.
func (e *evaluator) compare(n *Node) any {
	a, b := e.eval(n.A), e.eval(n.B)
	if a == nil || b == nil || e.err != nil {
		return false
	}
	var c int
	switch x := a.(type) {
	case decimal.Decimal:
		y, ok := b.(decimal.Decimal)
		if !ok {
			return e.fail("%s compares a number with %s", n.Op, KindOf(b))
		}
		c = x.Cmp(y)
	case string:
		y, ok := b.(string)
		if !ok {
			return e.fail("%s compares a text with %s", n.Op, KindOf(b))
		}
		c = strings.Compare(x, y)
	default:
		return e.fail("%s compares numbers or texts, not %s", n.Op, KindOf(a))
	}
	switch n.Op {
	case "<":
		return c < 0
	case ">":
		return c > 0
	case "<=":
		return c <= 0
	}
	return c >= 0
}

func (e *evaluator) call(n *Node) any {
	name := n.Path[0]
	switch name {
	case "ceil", "floor":
		d, ok := e.number(n.Args[0])
		if !ok {
			return nil
		}
		if name == "ceil" {
			return d.Ceil()
		}
		return d.Floor()
	case "round":
		d, ok := e.number(n.Args[0])
		if !ok {
			return nil
		}
		places := decimal.Zero
		if len(n.Args) == 2 {
			if places, ok = e.number(n.Args[1]); !ok {
				return nil
			}
		}
		if !places.IsInteger() || places.IsNegative() || places.GreaterThan(decimal.NewFromInt(Places)) {
			return e.fail("round's places must be a whole number from 0 to %d", Places)
		}
		return d.Round(int32(places.IntPart()))
	case "min", "max":
		best, ok := e.number(n.Args[0])
		for _, a := range n.Args[1:] {
			d, ok2 := e.number(a)
			if !ok || !ok2 {
				return nil
			}
			if name == "min" && d.LessThan(best) || name == "max" && d.GreaterThan(best) {
				best = d
			}
		}
		if !ok {
			return nil
		}
		return best
	case "contains":
		hay, needle := e.eval(n.Args[0]), e.eval(n.Args[1])
		s, ok := needle.(string)
		if e.err != nil || !ok {
			return false
		}
		switch h := hay.(type) {
		case []string:
			for _, x := range h {
				if x == s {
					return true
				}
			}
		case string:
			return strings.Contains(h, s)
		}
		return false
	case "len":
		switch v := e.eval(n.Args[0]).(type) {
		case []string:
			return decimal.NewFromInt(int64(len(v)))
		case string:
			return decimal.NewFromInt(int64(utf8.RuneCountInString(v)))
		case nil:
			return decimal.Zero
		default:
			return e.fail("len takes a list or a text, not %s", KindOf(v))
		}
	}
	return e.fail("unknown function %q", name)
}

// normal reads a json.Number as a decimal and a []any of strings as a
// []string.
func normal(v any) any {
	switch t := v.(type) {
	case json.Number:
		if d, err := decimal.NewFromString(string(t)); err == nil {
			return d
		}
		return nil
	case []any:
		out := make([]string, 0, len(t))
		for _, x := range t {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return v
}

// Truthy: nil, false, 0, "" and an empty list are false; everything else
// is true.
func Truthy(v any) bool {
	switch t := v.(type) {
	case nil:
		return false
	case bool:
		return t
	case decimal.Decimal:
		return !t.IsZero()
	case string:
		return t != ""
	case []string:
		return len(t) > 0
	}
	return true
}

// Equal reports whether two values are the same: numbers by value (1 ==
// 1.0), texts and booleans exactly, lists item by item; values of two
// kinds never.
func Equal(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case decimal.Decimal:
		y, ok := b.(decimal.Decimal)
		return ok && x.Equal(y)
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case []string:
		y, ok := b.([]string)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if x[i] != y[i] {
				return false
			}
		}
		return true
	}
	return false
}

// KindOf names the kind of a value Eval gives, for messages: "a
// number", "a text", "no value".
func KindOf(v any) string {
	switch v.(type) {
	case nil:
		return "no value"
	case decimal.Decimal:
		return "a number"
	case string:
		return "a text"
	case bool:
		return "true or false"
	case []string:
		return "a list"
	}
	return "a value"
}
