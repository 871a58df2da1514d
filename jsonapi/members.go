package jsonapi

// FieldSource writes the attributes and relationships of a resource without
// maps: a caller serving many records of one type writes each record's
// values straight from its own representation, in an order it fixes once
// per type, instead of filling maps that the encoder would sort again.
//
// Each method writes its members with m in the order they are to appear:
// by name, for the output the Attributes and Relationships maps would give.
type FieldSource interface {
	WriteAttributes(m *Members)
	WriteRelationships(m *Members)
}

// Members writes the members of one object of a resource in the order they
// are given. An object given no member is left out, as an empty map is.
type Members struct {
	e   *encoder
	n   int
	err error // the first error; later members are not written
}

// Value writes the member name with the value v, exactly as encoding/json
// would write v.
func (m *Members) Value(name string, v any) {
	if m.next(name) {
		m.err = m.e.value(v, 1)
	}
}

// String writes the member name with the string s: Value without the cost
// of boxing s.
func (m *Members) String(name, s string) {
	if m.next(name) {
		m.e.str(s)
	}
}

// Relationship writes the member name with the relationship object r; r
// is not kept.
func (m *Members) Relationship(name string, r *Relationship) {
	if m.next(name) {
		m.err = m.e.relationship(r)
	}
}

// next writes the separator and the name of a member, unless a member
// before it failed.
func (m *Members) next(name string) bool {
	if m.err != nil {
		return false
	}
	if m.n > 0 {
		m.e.buf = append(m.e.buf, ',')
	}
	m.n++
	m.e.str(name)
	m.e.buf = append(m.e.buf, ':')
	return true
}

// members writes key (`,"attributes":`) and an object of the members fill
// writes, or nothing when it writes none.
func (e *encoder) members(key string, fill func(*Members)) error {
	mark := len(e.buf)
	e.buf = append(e.buf, key...)
	e.buf = append(e.buf, '{')
	// the encoder's own Members: one passed to an interface method on the
	// stack would escape, and cost an allocation per resource
	m := &e.m
	*m = Members{e: e}
	fill(m)
	switch {
	case m.err != nil:
		return m.err
	case m.n == 0:
		e.buf = e.buf[:mark]
	default:
		e.buf = append(e.buf, '}')
	}
	return nil
}

// mapMembers writes the object key of the members of m, sorted by name, with
// put; last holds the sorted names of the previous call (attrOrder or
// relOrder).
func mapMembers[V any](e *encoder, key string, last *[]string, m map[string]V, put func(*Members, string, V)) error {
	if len(m) == 0 {
		return nil
	}
	if !sameKeys(*last, m) {
		start := sortedKeys(e, m)
		*last = append((*last)[:0], e.keys[start:]...)
		e.keys = e.keys[:start]
	}
	keys := *last
	return e.members(key, func(w *Members) {
		for _, k := range keys {
			put(w, k, m[k])
		}
	})
}
