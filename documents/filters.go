package documents

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/scopekit/scopekit/expr"
	"github.com/shopspring/decimal"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
	xnumber "golang.org/x/text/number"
)

// Filters format a value where a tag shows it, in the anchor's syntax
// ({x | money}, {x | number:2}, {d | date:"2 January 2006"}), in merge
// data's `locale` (the account's, a BCP 47 tag) by CLDR's data: numbers
// through golang.org/x/text, money through bojanz/currency (money.go),
// month and day names through go-playground/locales (dates.go).

// filterArgs are the filters and how many arguments each takes (min, max).
var filterArgs = map[string][2]int{
	"money": {0, 0}, "number": {0, 1}, "percent": {0, 1}, "date": {0, 1},
	"upper": {0, 0}, "lower": {0, 0}, "default": {1, 1}, "required": {0, 0},
}

// filterNames lists the filters for an error message.
const filterNames = "money, number, percent, date, upper, lower, default, required"

// checkFilter refuses an unknown filter, a wrong number of arguments, or
// an argument the filter does not take (checked at upload: a template
// computes nothing, so every argument is a literal).
func checkFilter(f *expr.Node) error {
	name := f.Path[0]
	n, ok := filterArgs[name]
	if !ok {
		return fmt.Errorf("unknown filter %q (the filters are %s)", name, filterNames)
	}
	if len(f.Args) < n[0] || len(f.Args) > n[1] {
		if n[1] == 0 {
			return fmt.Errorf("filter %s takes no argument", name)
		}
		return fmt.Errorf("filter %s takes %d argument(s), as in %s", name, n[1], filterExample[name])
	}
	if len(f.Args) == 0 {
		return nil
	}
	switch a := f.Args[0]; name {
	case "number":
		if !wholeLiteral(a, maxPlaces) {
			return fmt.Errorf("filter number takes the number of decimals, a whole number from 0 to %d, as in %s", maxPlaces, filterExample[name])
		}
	case "percent":
		if !wholeLiteral(a, 1) {
			return fmt.Errorf("filter percent takes the number of decimals, 0 or 1, as in %s", filterExample[name])
		}
	case "date":
		if _, ok := a.Lit.(string); a.Op != "lit" || !ok {
			return fmt.Errorf("filter date takes a layout in quotes, as in %s", filterExample[name])
		}
	}
	return nil
}

// maxPlaces are the most decimals the number filter shows.
const maxPlaces = 20

// wholeLiteral reports whether e is a number written in the tag, a whole
// number from 0 to most.
func wholeLiteral(e *expr.Node, most int) bool {
	s, ok := e.Lit.(json.Number)
	if e.Op != "lit" || !ok {
		return false
	}
	n, err := strconv.Atoi(string(s))
	return err == nil && 0 <= n && n <= most
}

var filterExample = map[string]string{
	"number": "{x | number:2}", "percent": "{x | percent:1}", "date": `{d | date:"2 January 2006"}`,
	"default": `{x | default:"none"}`,
}

// hasFilter reports whether e applies a filter anywhere.
func hasFilter(e *expr.Node) bool {
	if e.Op == "filter" {
		return true
	}
	return slices.ContainsFunc(e.Kids(), hasFilter)
}

// errRequired is the error of a required value that is missing.
type errRequired struct{ expr *expr.Node }

func (e errRequired) Error() string { return "a required value is missing" }

// filter applies a filter expression.
func filter(e *expr.Node, v *env) any {
	val := eval(e.A, v)
	arg := func(i int) any {
		if i < len(e.Args) {
			return eval(e.Args[i], v)
		}
		return nil
	}
	switch e.Path[0] {
	case "upper":
		return strings.ToUpper(text(val))
	case "lower":
		return strings.ToLower(text(val))
	case "default":
		if missing(val) {
			return arg(0)
		}
		return val
	case "required":
		if missing(val) && v.err == nil {
			v.err = errRequired{e}
		}
		return val
	case "number":
		d, ok := number(val)
		if !ok {
			return val
		}
		places, _ := number(arg(0))
		if len(e.Args) == 0 {
			places = decimal.NewFromInt(2)
		}
		return formatNumber(locale(v), d, int(places.IntPart()))
	case "percent":
		d, ok := number(val)
		if !ok {
			return val
		}
		places, _ := number(arg(0))
		p := message.NewPrinter(locale(v))
		f, _ := d.Float64()
		return p.Sprint(xnumber.Percent(f, xnumber.Scale(int(places.IntPart()))))
	case "money":
		d, ok := number(val)
		if !ok {
			return val
		}
		return v.locale().money.format(locale(v), d)
	case "date":
		t, ok := dateOf(val)
		if !ok {
			return val
		}
		return formatDate(v, t, text(arg(0)))
	}
	return val
}

// missing reports whether a value shows nothing: missing, null or "".
func missing(v any) bool {
	return v == nil || v == ""
}

// formatNumber writes d with places decimals and the locale's grouping,
// decimal mark and digits. x/text formats the whole part (an int64) and
// names the mark and the digits (Devanagari in mr, Arabic-Indic in ar-EG);
// the decimals are decimal's own, never a float's, so a figure keeps every
// digit.
func formatNumber(tag language.Tag, d decimal.Decimal, places int) string {
	places = max(0, min(places, maxPlaces))
	fixed := d.Abs().StringFixed(int32(places))
	whole, frac, _ := strings.Cut(fixed, ".")
	w, err := strconv.ParseInt(whole, 10, 64)
	if err != nil {
		return d.StringFixed(int32(places)) // beyond int64: no grouping
	}
	p := message.NewPrinter(tag)
	var b strings.Builder
	if d.Round(int32(places)).IsNegative() {
		b.WriteByte('-')
	}
	b.WriteString(p.Sprint(xnumber.Decimal(w)))
	if frac != "" {
		mark, digits := localDigits(p)
		b.WriteString(mark)
		for _, c := range []byte(frac) {
			b.WriteString(digits[c-'0'])
		}
	}
	return b.String()
}

// localDigits is the locale's decimal mark and its digits 0 to 9, as
// x/text writes them.
func localDigits(p *message.Printer) (mark string, digits [10]string) {
	for i := range digits {
		digits[i] = p.Sprint(xnumber.Decimal(i))
	}
	half := p.Sprint(xnumber.Decimal(0.5, xnumber.Scale(1)))
	return strings.TrimSuffix(strings.TrimPrefix(half, digits[0]), digits[5]), digits
}
