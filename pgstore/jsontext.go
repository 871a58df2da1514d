package pgstore

import (
	"encoding/json"
	"errors"
	"maps"
	"strconv"
	"sync"
	"sync/atomic"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/scopekit/scopekit/internal/jsonnum"
)

// Records arrive as JSONB's text: decoding them is most of what a read
// costs the process once its round trips are few, and encoding/json's
// reflection into map[string]any is several times slower than a decoder
// made for that one shape. decodeValue gives what json.Decoder with
// UseNumber gives (objects as map[string]any, arrays as []any, numbers as
// json.Number, strings with their escapes resolved and invalid UTF-8 or
// lone surrogates as U+FFFD); anything it does not expect is an error, and
// decodeInto then falls back to encoding/json.

var errJSON = errors.New("pgstore: unexpected JSON")

type jsonText struct {
	b []byte
	i int
}

func (d *jsonText) space() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// decodeObject decodes a whole text that is one object.
func decodeObject(b []byte) (map[string]any, error) {
	var m map[string]any
	err := whole(b, func(d *jsonText) (err error) {
		m, err = d.object()
		return err
	})
	return m, err
}

// whole runs read, which reads one object, on the whole text b.
func whole(b []byte, read func(*jsonText) error) error {
	d := &jsonText{b: b}
	d.space()
	if d.i >= len(b) || b[d.i] != '{' {
		return errJSON
	}
	if err := read(d); err != nil {
		return err
	}
	d.space()
	if d.i != len(b) {
		return errJSON
	}
	return nil
}

func (d *jsonText) value() (any, error) {
	d.space()
	if d.i >= len(d.b) {
		return nil, errJSON
	}
	switch c := d.b[d.i]; {
	case c == '{':
		return d.object()
	case c == '[':
		return d.array()
	case c == '"':
		return d.str(false)
	case c == 't':
		return true, d.word("true")
	case c == 'f':
		return false, d.word("false")
	case c == 'n':
		return nil, d.word("null")
	case c == '-' || c >= '0' && c <= '9':
		return d.number()
	}
	return nil, errJSON
}

func (d *jsonText) word(w string) error {
	if len(d.b)-d.i < len(w) || string(d.b[d.i:d.i+len(w)]) != w {
		return errJSON
	}
	d.i += len(w)
	return nil
}

func (d *jsonText) object() (map[string]any, error) {
	m := map[string]any{}
	err := d.members(func(k string) error {
		v, err := d.value()
		m[k] = v
		return err
	})
	return m, err
}

// members reads an object (d.b[d.i] is its '{'), calling member with each
// name once d is at its value; member reads the value.
func (d *jsonText) members(member func(k string) error) error {
	d.i++ // {
	d.space()
	if d.i < len(d.b) && d.b[d.i] == '}' {
		d.i++
		return nil
	}
	for {
		d.space()
		if d.i >= len(d.b) || d.b[d.i] != '"' {
			return errJSON
		}
		k, err := d.key()
		if err != nil {
			return err
		}
		if err := member(k); err != nil {
			return err
		}
		if end, err := d.next('}'); err != nil || end {
			return err
		}
	}
}

func (d *jsonText) array() ([]any, error) {
	a := []any{}
	err := d.elements(func() error {
		v, err := d.value()
		a = append(a, v)
		return err
	})
	return a, err
}

// elements reads an array (d.b[d.i] is its '['), calling element at each
// element; element reads it.
func (d *jsonText) elements(element func() error) error {
	d.i++ // [
	d.space()
	if d.i < len(d.b) && d.b[d.i] == ']' {
		d.i++
		return nil
	}
	for {
		if err := element(); err != nil {
			return err
		}
		if end, err := d.next(']'); err != nil || end {
			return err
		}
	}
}

// next reads what follows a member or an element: a comma, or the close
// of its object or array (end).
func (d *jsonText) next(close byte) (end bool, err error) {
	d.space()
	if d.i >= len(d.b) || (d.b[d.i] != ',' && d.b[d.i] != close) {
		return false, errJSON
	}
	d.i++
	return d.b[d.i-1] == close, nil
}

// number returns the literal as json.Number once it is a valid JSON
// number.
func (d *jsonText) number() (json.Number, error) {
	start := d.i
	for d.i < len(d.b) {
		c := d.b[d.i]
		if c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' || c >= '0' && c <= '9' {
			d.i++
			continue
		}
		break
	}
	if !jsonnum.Valid(d.b[start:d.i]) {
		return "", errJSON
	}
	return json.Number(d.b[start:d.i]), nil
}

// key decodes an object's member name and the colon after it (d.b[d.i]
// is the name's opening quote). Names are few (a schema's attributes and
// relationships), so plain ones are interned rather than allocated per
// record.
func (d *jsonText) key() (string, error) {
	k, err := d.str(true)
	if err != nil {
		return "", err
	}
	d.space()
	if d.i >= len(d.b) || d.b[d.i] != ':' {
		return "", errJSON
	}
	d.i++
	return k, nil
}

// str decodes a string (d.b[d.i] is its opening quote), interned when
// intern is set and it has nothing to unescape.
func (d *jsonText) str(intern bool) (string, error) {
	d.i++
	start := d.i
	// the common case: nothing to unescape, valid UTF-8
	for d.i < len(d.b) {
		c := d.b[d.i]
		if c == '"' {
			s := d.b[start:d.i]
			d.i++
			if utf8.Valid(s) {
				if intern {
					return names.intern(s), nil
				}
				return string(s), nil
			}
			return string([]rune(string(s))), nil // invalid bytes as U+FFFD
		}
		if c == '\\' || c < 0x20 {
			break
		}
		d.i++
	}
	out := append([]byte(nil), d.b[start:d.i]...)
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			d.i++
			if !utf8.Valid(out) {
				return string([]rune(string(out))), nil
			}
			return string(out), nil
		case c < 0x20:
			return "", errJSON
		case c != '\\':
			out = append(out, c)
			d.i++
			continue
		}
		if d.i+1 >= len(d.b) {
			return "", errJSON
		}
		e := d.b[d.i+1]
		d.i += 2
		switch e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := d.hex4()
			if !ok {
				return "", errJSON
			}
			if utf16.IsSurrogate(r) {
				r2 := rune(-1)
				if d.i+1 < len(d.b) && d.b[d.i] == '\\' && d.b[d.i+1] == 'u' {
					save := d.i
					d.i += 2
					if r2, ok = d.hex4(); !ok {
						return "", errJSON
					}
					if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
						r = dec
					} else {
						d.i = save // the second escape stands on its own
						r = utf8.RuneError
					}
				} else {
					r = utf8.RuneError
				}
			}
			out = utf8.AppendRune(out, r)
		default:
			return "", errJSON
		}
	}
	return "", errJSON
}

func (d *jsonText) hex4() (rune, bool) {
	if len(d.b)-d.i < 4 {
		return 0, false
	}
	n, err := strconv.ParseUint(string(d.b[d.i:d.i+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	d.i += 4
	return rune(n), true
}

// nameTable interns member names: a lookup reads an immutable map (no
// lock, no allocation); a name not in it yet goes into a copy, until the
// table holds maxNames (names past it, or longer than maxNameLen, are
// allocated as any string is).
type nameTable struct {
	m  atomic.Pointer[map[string]string]
	mu sync.Mutex
}

const (
	maxNames   = 1024
	maxNameLen = 64
)

var names nameTable

func (t *nameTable) intern(b []byte) string {
	m := t.m.Load()
	if m != nil {
		if s, ok := (*m)[string(b)]; ok {
			return s
		}
	}
	s := string(b)
	if len(s) > maxNameLen || m != nil && len(*m) >= maxNames {
		return s
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	next := map[string]string{}
	if m = t.m.Load(); m != nil {
		if len(*m) >= maxNames {
			return s
		}
		next = maps.Clone(*m)
	}
	next[s] = s
	t.m.Store(&next)
	return s
}

// decodeRels decodes the relationships object: names to lists of ids
// (anything else is errJSON: the caller falls back to encoding/json).
func decodeRels(b []byte) (map[string][]string, error) {
	out := map[string][]string{}
	err := whole(b, func(d *jsonText) error {
		return d.members(func(k string) error {
			d.space()
			if d.i >= len(d.b) || d.b[d.i] != '[' {
				return errJSON
			}
			ids := []string{}
			err := d.elements(func() error {
				d.space()
				if d.i >= len(d.b) || d.b[d.i] != '"' {
					return errJSON
				}
				id, err := d.str(false)
				ids = append(ids, id)
				return err
			})
			out[k] = ids
			return err
		})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
