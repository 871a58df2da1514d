package pgstore

import (
	"encoding/json"
	"errors"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
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
	d := &jsonText{b: b}
	d.space()
	if d.i >= len(b) || b[d.i] != '{' {
		return nil, errJSON
	}
	v, err := d.object()
	if err != nil {
		return nil, err
	}
	d.space()
	if d.i != len(b) {
		return nil, errJSON
	}
	return v, nil
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
		return d.str()
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
	d.i++ // {
	m := map[string]any{}
	d.space()
	if d.i < len(d.b) && d.b[d.i] == '}' {
		d.i++
		return m, nil
	}
	for {
		d.space()
		if d.i >= len(d.b) || d.b[d.i] != '"' {
			return nil, errJSON
		}
		k, err := d.str()
		if err != nil {
			return nil, err
		}
		d.space()
		if d.i >= len(d.b) || d.b[d.i] != ':' {
			return nil, errJSON
		}
		d.i++
		v, err := d.value()
		if err != nil {
			return nil, err
		}
		m[k] = v
		end, err := d.next('}')
		if err != nil {
			return nil, err
		}
		if end {
			return m, nil
		}
	}
}

func (d *jsonText) array() ([]any, error) {
	d.i++ // [
	a := []any{}
	d.space()
	if d.i < len(d.b) && d.b[d.i] == ']' {
		d.i++
		return a, nil
	}
	for {
		v, err := d.value()
		if err != nil {
			return nil, err
		}
		a = append(a, v)
		end, err := d.next(']')
		if err != nil {
			return nil, err
		}
		if end {
			return a, nil
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
	n := string(d.b[start:d.i])
	if !json.Valid(d.b[start:d.i]) {
		return "", errJSON
	}
	return json.Number(n), nil
}

// str decodes a string (d.b[d.i] is its opening quote).
func (d *jsonText) str() (string, error) {
	d.i++
	start := d.i
	// the common case: nothing to unescape, valid UTF-8
	for d.i < len(d.b) {
		c := d.b[d.i]
		if c == '"' {
			s := d.b[start:d.i]
			d.i++
			if utf8.Valid(s) {
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

// decodeRels decodes the relationships object: names to lists of ids.
func decodeRels(b []byte) (map[string][]string, error) {
	m, err := decodeObject(b)
	if err != nil {
		return nil, err
	}
	out := make(map[string][]string, len(m))
	for k, v := range m {
		a, ok := v.([]any)
		if !ok {
			return nil, errJSON
		}
		ids := make([]string, len(a))
		for i, x := range a {
			if ids[i], ok = x.(string); !ok {
				return nil, errJSON
			}
		}
		out[k] = ids
	}
	return out, nil
}
