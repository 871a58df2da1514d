package engine

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/scopekit/scopekit"
	"github.com/shopspring/decimal"
)

// The limits and null rules every declared attribute gets from its kind
// (docs/limits.md). They live here, in the generic engine, so that a type
// declared later is covered without a line of its own.
const (
	// MaxStringChars bounds a KindString, KindEnum, KindDate or KindTime
	// value (names, codes, emails, SKUs), and each element of a KindList.
	MaxStringChars = 255
	// MaxTextBytes bounds a KindText value and the JSON text of a
	// KindObject, KindList or KindAny value.
	MaxTextBytes = 64 << 10
)

// The bounds of numbers an attribute declares no bound of its own for: a
// figure the documents show to the cent (a spreadsheet keeps 15
// significant digits) and a whole number far from int64's end.
const (
	// MaxDecimal bounds a KindDecimal value (its absolute value).
	MaxDecimal = "1000000000000"
	// DecimalPlaces bounds the digits of a KindDecimal after its point.
	DecimalPlaces = 8
	// MaxInt bounds a KindInt value (its absolute value).
	MaxInt = 1000000000
)

// Bound returns the attribute's bound of a number (its absolute value)
// and, for a decimal, of its digits after the point; ok is false for
// kinds without one.
func (a *AttrDef) Bound() (limit decimal.Decimal, places int32, ok bool) {
	switch a.Kind {
	case KindDecimal:
		places = a.Places
		if places == 0 {
			places = DecimalPlaces
		}
	case KindInt:
	default:
		return decimal.Decimal{}, 0, false
	}
	bound := a.Max
	if bound == "" {
		bound = MaxDecimal
		if a.Kind == KindInt {
			bound = fmt.Sprint(MaxInt)
		}
	}
	limit, err := decimal.NewFromString(bound)
	if err != nil { // checkBound refuses such a declaration
		return decimal.Decimal{}, 0, false
	}
	return limit, places, true
}

// checkBound checks a declared bound: a plain decimal, positive, a whole
// number for KindInt, on a numeric kind only.
func (a *AttrDef) checkBound() error {
	if a.Max == "" && a.Places == 0 {
		return nil
	}
	if a.Kind != KindDecimal && a.Kind != KindInt || a.Places != 0 && a.Kind != KindDecimal || a.Places < 0 {
		return fmt.Errorf("attribute %s: Max and Places are for decimals (Max for whole numbers too)", a.Name)
	}
	if a.Max == "" {
		return nil
	}
	d, err := ParseDecimal(a.Max)
	if err != nil || !d.IsPositive() || a.Kind == KindInt && !d.IsInteger() {
		return fmt.Errorf("attribute %s: Max %q is not a positive bound of its kind", a.Name, a.Max)
	}
	return nil
}

// inBound refuses a number past the attribute's bound (422 naming it).
func inBound(a *AttrDef, d decimal.Decimal) *scopekit.Error {
	limit, places, ok := a.Bound()
	if !ok {
		return nil
	}
	p := AttrPointer(a.Name)
	switch {
	case d.Abs().GreaterThan(limit):
		if a.Signed {
			return Invalid(p, "%s must be between -%s and %s", a.Name, limit, limit)
		}
		return Invalid(p, "%s must be at most %s", a.Name, limit)
	case a.Kind == KindDecimal && -d.Exponent() > places && !d.Equal(d.Truncate(places)):
		return Invalid(p, "%s has more than %d digits after the decimal point", a.Name, places)
	}
	return nil
}

// maxLen is the attribute's bound: characters for the short kinds, bytes
// for text and structured values.
func (a *AttrDef) maxLen() int {
	if a.MaxLen > 0 {
		return a.MaxLen
	}
	switch a.Kind {
	case KindString, KindEnum, KindDate, KindTime:
		return MaxStringChars
	}
	return MaxTextBytes
}

// MaxLength is the attribute's length limit and its unit ("characters" or
// "bytes"); 0 for kinds without one (numbers and booleans).
func (a *AttrDef) MaxLength() (int, string) {
	switch a.Kind {
	case KindString, KindEnum, KindDate, KindTime:
		return a.maxLen(), "characters"
	case KindText, KindObject, KindList, KindAny:
		return a.maxLen(), "bytes"
	}
	return 0, ""
}

// Nullable reports whether null is accepted for the attribute in a write:
// booleans, enums, required attributes and those declared NotNull refuse
// it (422); the others take null as "back to the default" (the declared
// Default, or no value).
func (a *AttrDef) Nullable() bool {
	return !(a.Required || a.NotNull || a.Kind == KindBool || a.Kind == KindEnum)
}

// nullValue is the value a JSON null sets: the default, or nil (no value).
func nullValue(a *AttrDef) (any, *scopekit.Error) {
	if a.Required && a.Kind != KindBool && a.Kind != KindEnum {
		return nil, nil // the required check reports it as blank, once
	}
	if !a.Nullable() {
		p := AttrPointer(a.Name)
		switch a.Kind {
		case KindBool:
			return nil, Invalid(p, "%s can't be null: it must be true or false", a.Name)
		case KindEnum:
			return nil, Invalid(p, "%s can't be null: it must be one of %s", a.Name, strings.Join(a.Enum, ", "))
		}
		return nil, Invalid(p, "%s can't be null", a.Name)
	}
	return a.Default, nil
}

func tooLong(a *AttrDef) *scopekit.Error {
	n, unit := a.MaxLength()
	return Invalid(AttrPointer(a.Name), "%s is too long (at most %d %s)", a.Name, n, unit)
}

// checkEncoding refuses a raw JSON value that is not valid UTF-8 or holds
// an escaped lone surrogate: encoding/json would silently store U+FFFD in
// their place.
func checkEncoding(name string, raw []byte) *scopekit.Error {
	if !utf8.Valid(raw) {
		return BadAttr(name, "%s is not valid UTF-8", name)
	}
	if loneSurrogate(raw) {
		return BadAttr(name, "%s holds an unpaired UTF-16 surrogate escape", name)
	}
	return nil
}

// loneSurrogate reports whether a JSON text has a \uD800-\uDFFF escape
// that is not a high surrogate followed by a low one.
func loneSurrogate(raw []byte) bool {
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' || i+1 >= len(raw) {
			continue
		}
		if raw[i+1] != 'u' {
			i++ // \\, \" and friends: skip the escaped byte
			continue
		}
		r, ok := hex4(raw, i+2)
		if !ok {
			continue
		}
		switch {
		case r >= 0xDC00 && r <= 0xDFFF:
			return true
		case r >= 0xD800 && r <= 0xDBFF:
			lo, ok := rune(0), false
			if i+7 < len(raw) && raw[i+6] == '\\' && raw[i+7] == 'u' {
				lo, ok = hex4(raw, i+8)
			}
			if !ok || lo < 0xDC00 || lo > 0xDFFF {
				return true
			}
			i += 11
		default:
			i += 5
		}
	}
	return false
}

func hex4(b []byte, at int) (rune, bool) {
	if at+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[at : at+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// checkValue applies the declared limits to a canonical value: no NUL and
// only valid UTF-8 in any string (keys of objects included), and the
// attribute's length bound.
func checkValue(a *AttrDef, v any) *scopekit.Error {
	p := AttrPointer(a.Name)
	if msg := badText(v); msg != "" {
		return Invalid(p, "%s %s", a.Name, msg)
	}
	switch v := v.(type) {
	case string:
		n := len(v)
		if _, unit := a.MaxLength(); unit == "characters" {
			n = utf8.RuneCountInString(v)
		}
		if n > a.maxLen() {
			return tooLong(a)
		}
	case map[string]any, []any:
		if a.Kind == KindList {
			for _, e := range v.([]any) {
				if s, ok := e.(string); ok && utf8.RuneCountInString(s) > MaxStringChars {
					return Invalid(p, "%s holds an item longer than %d characters", a.Name, MaxStringChars)
				}
			}
		}
		b, err := json.Marshal(v)
		if err != nil || len(b) > a.maxLen() {
			return tooLong(a)
		}
	}
	return nil
}

// checked returns v when it keeps the attribute's limits, else the error.
func checked(a *AttrDef, v any) (any, *scopekit.Error) {
	if e := checkValue(a, v); e != nil {
		return nil, e
	}
	return v, nil
}

// badText says what is wrong with the strings of v ("" when nothing).
func badText(v any) string {
	switch v := v.(type) {
	case string:
		if !utf8.ValidString(v) {
			return "is not valid UTF-8"
		}
		if strings.IndexByte(v, 0) >= 0 {
			return "must not contain NUL characters"
		}
	case map[string]any:
		for k, e := range v {
			if m := badText(k); m != "" {
				return "has a key that " + m
			}
			if m := badText(e); m != "" {
				return m
			}
		}
	case []any:
		for _, e := range v {
			if m := badText(e); m != "" {
				return m
			}
		}
	}
	return ""
}

// CheckAttrs applies the declarations of typ to attribute values set
// outside a write request (the Admin methods, bootstrap files): each
// declared attribute must keep its limits and null rule. Undeclared names
// (internal values such as a sealed secret) are the caller's.
func (s *Schema) CheckAttrs(typ string, attrs map[string]any) error {
	def, ok := s.Lookup(typ)
	if !ok {
		return scopekit.Errorf(scopekit.EINTERNAL, "no resource type %q", typ)
	}
	var errs scopekit.Errors
	for _, name := range slices.Sorted(maps.Keys(attrs)) {
		a, ok := def.Attr(name)
		if !ok {
			continue
		}
		v := attrs[name]
		if v == nil {
			if !a.Nullable() {
				_, e := nullValue(a)
				errs = append(errs, e)
			}
			continue
		}
		if e := checkValue(a, v); e != nil {
			errs = append(errs, e)
		}
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}
