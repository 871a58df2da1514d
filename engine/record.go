package engine

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// TimeFormat is how every stored and served timestamp is written: RFC 3339
// in UTC with fixed microseconds, so that strings sort as times do.
const TimeFormat = "2006-01-02T15:04:05.000000Z"

// FormatTime formats t with TimeFormat.
func FormatTime(t time.Time) string { return t.UTC().Format(TimeFormat) }

// Record is one stored record of any type. Attribute values are kept in
// their canonical JSON form: string (text, enums, dates, times, decimals as
// decimal strings), bool, json.Number (integers), map[string]any and []any
// (objects and arrays, numbers inside as json.Number), or nil. Relationships
// are lists of ids (a to-one relationship holds at most one).
type Record struct {
	Type      string              `json:"-"`
	ID        string              `json:"-"`
	AccountID string              `json:"-"`
	Attrs     map[string]any      `json:"a"`
	Rels      map[string][]string `json:"r,omitempty"`
	CreatedAt string              `json:"c"`
	UpdatedAt string              `json:"u"`
}

// NewRecord returns an empty record of type typ in account accountID.
func NewRecord(typ, accountID string) *Record {
	return &Record{Type: typ, AccountID: accountID, Attrs: map[string]any{}, Rels: map[string][]string{}}
}

// Clone returns a deep enough copy of r: the maps are new, values shared
// (values are never mutated in place).
func (r *Record) Clone() *Record {
	c := *r
	c.Attrs = make(map[string]any, len(r.Attrs))
	for k, v := range r.Attrs {
		c.Attrs[k] = v
	}
	c.Rels = make(map[string][]string, len(r.Rels))
	for k, v := range r.Rels {
		c.Rels[k] = append([]string(nil), v...)
	}
	return &c
}

// Str returns a text attribute ("" when absent or not text).
func (r *Record) Str(name string) string {
	s, _ := r.Attrs[name].(string)
	return s
}

// Bool returns a boolean attribute (false when absent).
func (r *Record) Bool(name string) bool {
	b, _ := r.Attrs[name].(bool)
	return b
}

// Int returns an integer attribute (0 when absent).
func (r *Record) Int(name string) int64 {
	switch v := r.Attrs[name].(type) {
	case json.Number:
		n, _ := v.Int64()
		return n
	case int64:
		return v
	case int:
		return int64(v)
	}
	return 0
}

// Dec returns a decimal attribute (zero when absent or null).
func (r *Record) Dec(name string) decimal.Decimal {
	d, _ := r.DecOK(name)
	return d
}

// DecOK returns a decimal attribute and whether it is set.
func (r *Record) DecOK(name string) (decimal.Decimal, bool) {
	s, ok := r.Attrs[name].(string)
	if !ok || s == "" {
		return decimal.Zero, false
	}
	d, err := decimal.NewFromString(s)
	return d, err == nil
}

// Strings returns a list attribute (nil when absent).
func (r *Record) Strings(name string) []string {
	switch v := r.Attrs[name].(type) {
	case []string:
		return v
	case []any:
		out := make([]string, 0, len(v))
		for _, e := range v {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// Object returns an object attribute (nil when absent or not an object).
func (r *Record) Object(name string) map[string]any {
	m, _ := r.Attrs[name].(map[string]any)
	return m
}

// Rel returns the id of a to-one relationship ("" when empty).
func (r *Record) Rel(name string) string {
	if ids := r.Rels[name]; len(ids) > 0 {
		return ids[0]
	}
	return ""
}

// SetRel sets a to-one relationship; "" clears it.
func (r *Record) SetRel(name, id string) {
	if id == "" {
		delete(r.Rels, name)
		return
	}
	r.Rels[name] = []string{id}
}

// Active reports whether the record is active (records of types that do not
// archive are always active).
func (r *Record) Active() bool {
	v, ok := r.Attrs["active"].(bool)
	return !ok || v
}

// FieldValues returns the values of a field for matching: the ids of a
// relationship, the id for "id", or the canonical text of an attribute
// (none when null or absent).
func (r *Record) FieldValues(field string) []string {
	switch field {
	case "id":
		return []string{r.ID}
	case "created-at":
		return []string{r.CreatedAt}
	case "updated-at":
		return []string{r.UpdatedAt}
	}
	if ids, ok := r.Rels[field]; ok {
		return ids
	}
	if s, ok := TextOf(r.Attrs[field]); ok {
		return []string{s}
	}
	return nil
}

// TextOf returns the canonical text of a scalar attribute value.
func TextOf(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		return v, true
	case bool:
		return strconv.FormatBool(v), true
	case json.Number:
		return v.String(), true
	case int64:
		return strconv.FormatInt(v, 10), true
	case []any:
		parts := make([]string, 0, len(v))
		for _, e := range v {
			if s, ok := TextOf(e); ok {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, ","), true
	}
	return "", false
}
