package jsonapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"slices"
	"strconv"
	"sync"
	"unicode/utf8"
)

// maxFastDepth bounds the recursion of the fast path; deeper values (and
// cyclic maps) are left to encoding/json, which reports cycles as errors.
const maxFastDepth = 64

// maxPooledBuffer keeps one huge response from pinning its buffer forever.
const maxPooledBuffer = 4 << 20

// encoder appends JSON to buf. It exists because encoding a page of
// resources through reflection alone is several times slower: the common
// value types (strings, numbers, bools, map[string]any, []any) are written
// directly, and every other value goes through json.Marshal, so the bytes are
// the ones encoding/json would produce for the same value.
type encoder struct {
	buf  []byte
	keys []string // scratch for sorting map keys, used as a stack by nested maps
	// w, when set, receives buf whenever it passes flushAt between
	// resources, so a large list never needs a buffer of its whole size.
	w   io.Writer
	err error // the first error of w
	// attrOrder and relOrder are the sorted attribute and relationship
	// names of the last resource: the resources of a list usually share
	// them, and checking that they do is cheaper than sorting again.
	attrOrder, relOrder []string
	m                   Members // the members being written (members)
}

// sameKeys reports whether m has exactly the keys of order.
func sameKeys[V any](order []string, m map[string]V) bool {
	if len(order) != len(m) {
		return false
	}
	for _, k := range order {
		if _, ok := m[k]; !ok {
			return false
		}
	}
	return true
}

// flushAt is the buffered size after which a streaming encoder writes
// out: a page of 250 projects (350 KB) goes out in two writes, where
// every write to a socket is a system call of its own.
const flushAt = 256 << 10

// flush writes the buffer out when streaming and it is large enough.
func (e *encoder) flush() {
	if e.w == nil || len(e.buf) < flushAt || e.err != nil {
		return
	}
	_, e.err = e.w.Write(e.buf)
	e.buf = e.buf[:0]
}

var encoders = sync.Pool{New: func() any { return new(encoder) }}

func getEncoder() *encoder {
	e := encoders.Get().(*encoder)
	e.buf = e.buf[:0]
	return e
}

func putEncoder(e *encoder) {
	if cap(e.buf) > maxPooledBuffer {
		return
	}
	clear(e.keys[:cap(e.keys)]) // do not keep callers' strings alive
	e.keys = e.keys[:0]
	e.attrOrder, e.relOrder = nil, nil
	e.m = Members{}
	e.w, e.err = nil, nil
	encoders.Put(e)
}

// marshalWith runs f on a pooled encoder and returns a copy of its output.
func marshalWith(f func(*encoder) error) ([]byte, error) {
	e := getEncoder()
	defer putEncoder(e)
	if err := f(e); err != nil {
		return nil, err
	}
	return bytes.Clone(e.buf), nil
}

// sortedKeys pushes the keys of m, sorted, on e.keys and returns where they
// start; the caller reads e.keys[start+i] and pops with e.keys[:start].
func sortedKeys[V any](e *encoder, m map[string]V) int {
	start := len(e.keys)
	for k := range m {
		e.keys = append(e.keys, k)
	}
	slices.Sort(e.keys[start:])
	return start
}

func (e *encoder) document(d *Document) error {
	if d == nil {
		return errors.New("jsonapi: nil document")
	}
	e.buf = append(e.buf, '{')
	if len(d.Errors) > 0 {
		e.buf = append(e.buf, `"errors":`...)
		if err := e.marshal(d.Errors); err != nil {
			return err
		}
	} else {
		e.buf = append(e.buf, `"data":`...)
		seen := map[Identifier]bool{}
		if d.List {
			e.buf = append(e.buf, '[')
			for i, r := range d.DataList {
				if i > 0 {
					e.buf = append(e.buf, ',')
				}
				if err := e.resource(r); err != nil {
					return err
				}
				e.flush()
				if r != nil && len(d.Included) > 0 {
					seen[Identifier{r.Type, r.ID}] = true
				}
			}
			e.buf = append(e.buf, ']')
		} else {
			if err := e.resource(d.Data); err != nil {
				return err
			}
			if d.Data != nil {
				seen[Identifier{d.Data.Type, d.Data.ID}] = true
			}
		}
		if err := e.included(d.Included, seen); err != nil {
			return err
		}
	}
	if len(d.Meta) > 0 {
		e.buf = append(e.buf, `,"meta":`...)
		if err := e.object(d.Meta, 0); err != nil {
			return err
		}
	}
	if len(d.Links) > 0 {
		e.buf = append(e.buf, `,"links":`...)
		e.links(d.Links)
	}
	e.buf = append(e.buf, '}')
	return nil
}

// included writes the "included" member, skipping nil resources and those
// already in seen.
func (e *encoder) included(rs []*Resource, seen map[Identifier]bool) error {
	n := 0
	for _, r := range rs {
		if r == nil || seen[Identifier{r.Type, r.ID}] {
			continue
		}
		seen[Identifier{r.Type, r.ID}] = true
		if n == 0 {
			e.buf = append(e.buf, `,"included":[`...)
		} else {
			e.buf = append(e.buf, ',')
		}
		n++
		if err := e.resource(r); err != nil {
			return err
		}
		e.flush()
	}
	if n > 0 {
		e.buf = append(e.buf, ']')
	}
	return nil
}

// resource writes r exactly as encoding/json would from its struct tags,
// with the members of r.Fields, when set, in place of the two maps.
func (e *encoder) resource(r *Resource) error {
	if r == nil {
		e.buf = append(e.buf, "null"...)
		return nil
	}
	if r.Rendered != nil {
		e.buf = append(e.buf, r.Rendered...)
		return nil
	}
	e.buf = append(e.buf, `{"type":`...)
	e.str(r.Type)
	e.buf = append(e.buf, `,"id":`...)
	e.str(r.ID)
	var err error
	if r.Fields != nil {
		if err = e.members(`,"attributes":`, r.Fields.WriteAttributes); err == nil {
			err = e.members(`,"relationships":`, r.Fields.WriteRelationships)
		}
	} else if err = mapMembers(e, `,"attributes":`, &e.attrOrder, r.Attributes, (*Members).Value); err == nil {
		err = mapMembers(e, `,"relationships":`, &e.relOrder, r.Relationships, (*Members).Relationship)
	}
	if err != nil {
		return err
	}
	if len(r.Links) > 0 {
		e.buf = append(e.buf, `,"links":`...)
		e.links(r.Links)
	}
	if len(r.Meta) > 0 {
		e.buf = append(e.buf, `,"meta":`...)
		if err := e.object(r.Meta, 0); err != nil {
			return err
		}
	}
	e.buf = append(e.buf, '}')
	return nil
}

func (e *encoder) relationship(r *Relationship) error {
	if r == nil {
		e.buf = append(e.buf, "null"...)
		return nil
	}
	if !r.HasData && r.Related == "" {
		return errEmptyRelationship
	}
	e.buf = append(e.buf, '{')
	if r.HasData {
		e.buf = append(e.buf, `"data":`...)
		switch {
		case r.ToMany:
			e.buf = append(e.buf, '[')
			for i, id := range r.Many {
				if i > 0 {
					e.buf = append(e.buf, ',')
				}
				e.identifier(id)
			}
			e.buf = append(e.buf, ']')
		case r.One == nil:
			e.buf = append(e.buf, "null"...)
		default:
			e.identifier(*r.One)
		}
	}
	if r.Related != "" {
		if r.HasData {
			e.buf = append(e.buf, ',')
		}
		e.buf = append(e.buf, `"links":{"related":`...)
		e.str(r.Related)
		e.buf = append(e.buf, '}')
	}
	e.buf = append(e.buf, '}')
	return nil
}

func (e *encoder) identifier(id Identifier) {
	e.buf = append(e.buf, `{"type":`...)
	e.str(id.Type)
	e.buf = append(e.buf, `,"id":`...)
	e.str(id.ID)
	e.buf = append(e.buf, '}')
}

func (e *encoder) links(l Links) {
	e.buf = append(e.buf, '{')
	start := sortedKeys(e, l)
	for i := start; i < len(e.keys); i++ {
		if i > start {
			e.buf = append(e.buf, ',')
		}
		e.str(e.keys[i])
		e.buf = append(e.buf, ':')
		e.str(l[e.keys[i]])
	}
	e.keys = e.keys[:start]
	e.buf = append(e.buf, '}')
}

func (e *encoder) object(m map[string]any, depth int) error {
	if m == nil {
		e.buf = append(e.buf, "null"...)
		return nil
	}
	if depth > maxFastDepth {
		return e.marshal(m)
	}
	e.buf = append(e.buf, '{')
	start := sortedKeys(e, m)
	// Nested maps push above start and pop back, so e.keys[i] stays valid
	// even when the slice is reallocated.
	for i := start; i < len(e.keys); i++ {
		if i > start {
			e.buf = append(e.buf, ',')
		}
		e.str(e.keys[i])
		e.buf = append(e.buf, ':')
		if err := e.value(m[e.keys[i]], depth+1); err != nil {
			return err
		}
	}
	e.keys = e.keys[:start]
	e.buf = append(e.buf, '}')
	return nil
}

func (e *encoder) value(v any, depth int) error {
	switch v := v.(type) {
	case nil:
		e.buf = append(e.buf, "null"...)
	case string:
		e.str(v)
	case bool:
		e.buf = strconv.AppendBool(e.buf, v)
	case int:
		e.buf = strconv.AppendInt(e.buf, int64(v), 10)
	case int64:
		e.buf = strconv.AppendInt(e.buf, v, 10)
	case int32:
		e.buf = strconv.AppendInt(e.buf, int64(v), 10)
	case uint:
		e.buf = strconv.AppendUint(e.buf, uint64(v), 10)
	case uint64:
		e.buf = strconv.AppendUint(e.buf, v, 10)
	case float64:
		// encoding/json switches to exponent form outside this range and
		// rejects NaN and infinities; leave those cases to it.
		if abs := math.Abs(v); v == 0 || abs >= 1e-6 && abs < 1e21 {
			e.buf = strconv.AppendFloat(e.buf, v, 'f', -1, 64)
			return nil
		}
		return e.marshal(v)
	case map[string]any:
		return e.object(v, depth)
	case Raw:
		e.buf = append(e.buf, v...)
	case []any:
		if v == nil {
			e.buf = append(e.buf, "null"...)
			return nil
		}
		if depth > maxFastDepth {
			return e.marshal(v)
		}
		e.buf = append(e.buf, '[')
		for i, x := range v {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			if err := e.value(x, depth+1); err != nil {
				return err
			}
		}
		e.buf = append(e.buf, ']')
	default:
		return e.marshal(v)
	}
	return nil
}

// plainASCII marks the ASCII bytes a string carries unescaped: not a
// control character, a quote, a backslash or one of <, >, & (escaped as
// encoding/json does, so that a document is safe inside HTML).
var plainASCII = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// str writes s as a JSON string with encoding/json's escaping: HTML
// characters, control characters, U+2028 and U+2029 escaped, invalid UTF-8
// replaced by U+FFFD. TestResourceEncodingMatchesEncodingJSON and
// FuzzStringEncoding hold it to json.Marshal.
func (e *encoder) str(s string) {
	const hex = "0123456789abcdef"
	e.buf = append(e.buf, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if plainASCII[c] {
				i++
				continue
			}
			e.buf = append(e.buf, s[start:i]...)
			switch c {
			case '\\', '"':
				e.buf = append(e.buf, '\\', c)
			case '\b':
				e.buf = append(e.buf, '\\', 'b')
			case '\f':
				e.buf = append(e.buf, '\\', 'f')
			case '\n':
				e.buf = append(e.buf, '\\', 'n')
			case '\r':
				e.buf = append(e.buf, '\\', 'r')
			case '\t':
				e.buf = append(e.buf, '\\', 't')
			default:
				e.buf = append(e.buf, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			e.buf = append(e.buf, s[start:i]...)
			e.buf = append(e.buf, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			e.buf = append(e.buf, s[start:i]...)
			e.buf = append(e.buf, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	e.buf = append(e.buf, s[start:]...)
	e.buf = append(e.buf, '"')
}

func (e *encoder) marshal(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	e.buf = append(e.buf, b...)
	return nil
}
