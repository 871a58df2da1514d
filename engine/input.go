package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/scopekit/scopekit"
	"github.com/shopspring/decimal"
)

// Ref names one record in a write's relationship.
type Ref struct{ Type, ID string }

// RelInput is the value given for one relationship in a write.
type RelInput struct {
	ToMany bool  // the linkage was an array
	Refs   []Ref // empty: null (to-one) or [] (to-many)
}

// Input is the content of a create or update: raw attribute values (checked
// against the type's declarations), relationships and the document's
// top-level meta.
type Input struct {
	Attrs map[string]json.RawMessage
	Rels  map[string]RelInput
	Meta  map[string]any
}

// AttrPointer and RelPointer are the JSON pointers of a member of a write
// document; errors about a field carry them.
func AttrPointer(name string) string { return "/data/attributes/" + name }

// RelPointer is the JSON pointer of a relationship of a write document.
func RelPointer(name string) string { return "/data/relationships/" + name }

// Invalid is the EINVALID error of a field (a JSON pointer).
func Invalid(field, format string, args ...any) *scopekit.Error {
	return scopekit.FieldErrorf(scopekit.EINVALID, field, format, args...)
}

// BadAttr is the EBADREQUEST error of an attribute of a write.
func BadAttr(name, format string, args ...any) *scopekit.Error {
	return scopekit.FieldErrorf(scopekit.EBADREQUEST, AttrPointer(name), format, args...)
}

// DecodeAttr turns a raw JSON value into the canonical value of attribute
// a. A wrong JSON type is EBADREQUEST; a well-typed value that breaks a rule
// (negative amount, unknown enum value, bad date) is EINVALID.
func DecodeAttr(a *AttrDef, raw json.RawMessage) (any, *scopekit.Error) {
	raw = bytes.TrimSpace(raw)
	if !json.Valid(raw) {
		return nil, BadAttr(a.Name, "%s is not a JSON value", a.Name)
	}
	if string(raw) == "null" {
		return nullValue(a)
	}
	p := AttrPointer(a.Name)
	if e := checkEncoding(a.Name, raw); e != nil {
		return nil, e
	}
	switch a.Kind {
	case KindString, KindText, KindEnum, KindDate, KindTime:
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil, BadAttr(a.Name, "%s must be a string", a.Name)
		}
		switch a.Kind {
		case KindEnum:
			if !slices.Contains(a.Enum, s) {
				return nil, Invalid(p, "%s must be one of %s", a.Name, strings.Join(a.Enum, ", "))
			}
		case KindDate:
			if s != "" {
				if _, err := time.Parse(time.DateOnly, s); err != nil {
					return nil, Invalid(p, "%s must be a date (YYYY-MM-DD)", a.Name)
				}
			}
		case KindTime:
			if s != "" {
				t, err := time.Parse(time.RFC3339, s)
				if err != nil {
					return nil, Invalid(p, "%s must be an RFC 3339 time", a.Name)
				}
				s = FormatTime(t)
			}
		}
		return checked(a, s)
	case KindDecimal:
		var txt string
		switch {
		case len(raw) > 0 && raw[0] == '"':
			if json.Unmarshal(raw, &txt) != nil {
				return nil, BadAttr(a.Name, "%s must be a number or a decimal string", a.Name)
			}
		case len(raw) > 0 && (raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9')):
			txt = string(raw)
		default:
			return nil, BadAttr(a.Name, "%s must be a number or a decimal string", a.Name)
		}
		d, err := ParseDecimal(txt)
		if err != nil {
			return nil, Invalid(p, "%s is not a number", a.Name)
		}
		if d.IsNegative() && !a.Signed {
			return nil, Invalid(p, "%s must be zero or positive", a.Name)
		}
		if e := inBound(a, d); e != nil {
			return nil, e
		}
		return d.String(), nil
	case KindInt:
		var n json.Number
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if dec.Decode(&n) != nil || raw[0] == '"' {
			return nil, BadAttr(a.Name, "%s must be a whole number", a.Name)
		}
		i, err := n.Int64()
		if err != nil {
			return nil, Invalid(p, "%s must be a whole number", a.Name)
		}
		if i < 0 && !a.Signed {
			return nil, Invalid(p, "%s must be zero or positive", a.Name)
		}
		if e := inBound(a, decimal.NewFromInt(i)); e != nil {
			return nil, e
		}
		return json.Number(fmt.Sprint(i)), nil
	case KindBool:
		var b bool
		if json.Unmarshal(raw, &b) != nil {
			return nil, BadAttr(a.Name, "%s must be true or false", a.Name)
		}
		return b, nil
	case KindObject:
		if raw[0] != '{' {
			return nil, BadAttr(a.Name, "%s must be an object", a.Name)
		}
	case KindList:
		var ss []string
		if json.Unmarshal(raw, &ss) != nil {
			return nil, BadAttr(a.Name, "%s must be an array of strings", a.Name)
		}
		out := make([]any, len(ss))
		for i, s := range ss {
			out[i] = s
		}
		return checked(a, out)
	}
	// objects and free values (KindAny)
	if len(raw) > a.maxLen() {
		return nil, tooLong(a)
	}
	v, e := decodeJSON(raw)
	if e != nil {
		return nil, e
	}
	return checked(a, v)
}

// maxDecimalDigits bounds decimal inputs so that one request cannot make
// the engine multiply numbers of millions of digits.
const maxDecimalDigits = 40

// ParseDecimal reads a plain decimal: digits with an optional sign and
// point, no exponent and no surrounding spaces.
func ParseDecimal(s string) (decimal.Decimal, error) {
	if s == "" || strings.TrimSpace(s) != s || len(s) > 64 || strings.ContainsAny(s, "eE") {
		return decimal.Zero, fmt.Errorf("not a plain decimal")
	}
	d, err := decimal.NewFromString(s)
	if err != nil {
		return d, err
	}
	if len(d.Coefficient().String()) > maxDecimalDigits {
		return d, fmt.Errorf("too many digits")
	}
	return d, nil
}

func decodeJSON(raw json.RawMessage) (any, *scopekit.Error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, scopekit.Errorf(scopekit.EBADREQUEST, "malformed value")
	}
	return v, nil
}

// Blank reports whether a value counts as missing for a required field.
func Blank(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case string:
		return strings.TrimSpace(v) == ""
	}
	return false
}
