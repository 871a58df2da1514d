package boltstore

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/internal/jsonnum"
	bolt "go.etcd.io/bbolt"
)

// Stored records are written in a compact binary form: decoding JSON into
// maps was most of the time of every read. The form holds exactly what a
// JSON round trip would give back (text, booleans, json.Number, objects,
// arrays, null), so the two are interchangeable:
//
//	record = 0x01 attrs rels created updated
//	attrs  = count { string value }        rels = count { string count { string } }
//	value  = 0x00 (null) | 0x01 string | 0x02 (false) | 0x03 (true)
//	       | 0x04 string (a JSON number) | 0x05 attrs (object) | 0x06 count { value } (array)
//	string = count bytes                   count = unsigned varint
//
// Records written as JSON (by earlier versions, or holding a value the
// binary form does not cover, such as a float64 or text that is not valid
// UTF-8) start with '{' and are read as JSON; Open rewrites the JSON ones.
const binVersion = 0x01

const (
	tagNull byte = iota
	tagString
	tagFalse
	tagTrue
	tagNumber
	tagObject
	tagArray
)

// maxDepth bounds the nesting of a decoded value, as encoding/json does.
const maxDepth = 10000

var errUnsupported = errors.New("value not covered by the binary form")

// encodeRecord returns the stored form of r.
func encodeRecord(r *engine.Record) ([]byte, error) {
	buf, err := appendRecord(make([]byte, 0, 512), r)
	if err == errUnsupported {
		return json.Marshal(r)
	}
	return buf, err
}

func appendRecord(b []byte, r *engine.Record) ([]byte, error) {
	b = append(b, binVersion)
	b, err := appendObject(b, r.Attrs, 0)
	if err != nil {
		return nil, err
	}
	b = binary.AppendUvarint(b, uint64(len(r.Rels)))
	for k, ids := range r.Rels {
		if b, err = appendString(b, k); err != nil {
			return nil, err
		}
		b = binary.AppendUvarint(b, uint64(len(ids)))
		for _, id := range ids {
			if b, err = appendString(b, id); err != nil {
				return nil, err
			}
		}
	}
	if b, err = appendString(b, r.CreatedAt); err != nil {
		return nil, err
	}
	return appendString(b, r.UpdatedAt)
}

func appendString(b []byte, s string) ([]byte, error) {
	if !utf8.ValidString(s) {
		return nil, errUnsupported // JSON would replace the bad bytes
	}
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...), nil
}

func appendObject(b []byte, m map[string]any, depth int) ([]byte, error) {
	b = binary.AppendUvarint(b, uint64(len(m)))
	var err error
	for k, v := range m {
		if b, err = appendString(b, k); err != nil {
			return nil, err
		}
		if b, err = appendValue(b, v, depth+1); err != nil {
			return nil, err
		}
	}
	return b, nil
}

func appendValue(b []byte, v any, depth int) ([]byte, error) {
	if depth > maxDepth {
		return nil, errUnsupported
	}
	var err error
	switch v := v.(type) {
	case nil:
		return append(b, tagNull), nil
	case string:
		return appendString(append(b, tagString), v)
	case bool:
		if v {
			return append(b, tagTrue), nil
		}
		return append(b, tagFalse), nil
	case json.Number:
		if !jsonnum.Valid(v) {
			return nil, errUnsupported
		}
		return appendString(append(b, tagNumber), string(v))
	case int64:
		return appendString(append(b, tagNumber), strconv.FormatInt(v, 10))
	case int:
		return appendString(append(b, tagNumber), strconv.Itoa(v))
	case map[string]any:
		return appendObject(append(b, tagObject), v, depth)
	case []any:
		b = binary.AppendUvarint(append(b, tagArray), uint64(len(v)))
		for _, e := range v {
			if b, err = appendValue(b, e, depth+1); err != nil {
				return nil, err
			}
		}
		return b, nil
	case []string:
		b = binary.AppendUvarint(append(b, tagArray), uint64(len(v)))
		for _, e := range v {
			if b, err = appendString(append(b, tagString), e); err != nil {
				return nil, err
			}
		}
		return b, nil
	}
	return nil, errUnsupported
}

// decodeRecord decodes a stored record of either form.
func decodeRecord(typ, accountID string, k, v []byte) (*engine.Record, error) {
	if len(v) > 0 && v[0] == binVersion {
		return decodeBinary(typ, accountID, k, v)
	}
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.UseNumber()
	return decodeNext(dec, typ, accountID, k)
}

// binReader reads the binary form. Strings are slices of one copy of the
// stored value: a record costs one allocation for all its text.
type binReader struct {
	s   string
	i   int
	err error
}

func (d *binReader) fail() {
	if d.err == nil {
		d.err = errors.New("truncated or malformed record")
	}
}

func (d *binReader) count() int {
	n, w := uvarint(d.s[d.i:])
	if w <= 0 || n > uint64(len(d.s)-d.i) { // every counted item takes a byte at least
		d.fail()
		d.i = len(d.s)
		return 0
	}
	d.i += w
	return int(n)
}

// uvarint is binary.Uvarint over a string.
func uvarint(s string) (uint64, int) {
	var x uint64
	var shift uint
	for i := 0; i < len(s) && i < binary.MaxVarintLen64; i++ {
		c := s[i]
		if c < 0x80 {
			return x | uint64(c)<<shift, i + 1
		}
		x |= uint64(c&0x7f) << shift
		shift += 7
	}
	return 0, 0
}

func (d *binReader) str() string {
	n := d.count()
	if d.err != nil || n > len(d.s)-d.i {
		d.fail()
		return ""
	}
	s := d.s[d.i : d.i+n]
	d.i += n
	return s
}

func (d *binReader) byte() byte {
	if d.i >= len(d.s) {
		d.fail()
		return 0
	}
	d.i++
	return d.s[d.i-1]
}

func (d *binReader) object(depth int) map[string]any {
	n := d.count()
	m := make(map[string]any, n)
	for range n {
		k := d.str()
		v := d.value(depth + 1)
		if d.err != nil {
			return m
		}
		m[k] = v
	}
	return m
}

func (d *binReader) value(depth int) any {
	if depth > maxDepth {
		d.fail()
		return nil
	}
	switch d.byte() {
	case tagNull:
		return nil
	case tagString:
		return d.str()
	case tagFalse:
		return false
	case tagTrue:
		return true
	case tagNumber:
		n := d.str()
		if !jsonnum.Valid(n) {
			d.fail()
		}
		return json.Number(n)
	case tagObject:
		return d.object(depth)
	case tagArray:
		n := d.count()
		a := make([]any, 0, n)
		for range n {
			a = append(a, d.value(depth+1))
			if d.err != nil {
				break
			}
		}
		return a
	}
	d.fail()
	return nil
}

func decodeBinary(typ, accountID string, k, v []byte) (*engine.Record, error) {
	d := &binReader{s: string(v), i: 1}
	r := &engine.Record{Type: typ, ID: keyID(k), AccountID: accountID}
	r.Attrs = d.object(0)
	n := d.count()
	r.Rels = make(map[string][]string, n)
	var slab []string // the ids of all relationships: one allocation
	for range n {
		name := d.str()
		m := d.count()
		var ids []string
		if m > 0 {
			if len(slab)+m > cap(slab) {
				slab = make([]string, 0, m+(len(d.s)-d.i)/8) // a guess: one more id per 8 bytes left
			}
			start := len(slab)
			for range m {
				slab = append(slab, d.str())
			}
			ids = slab[start:len(slab):len(slab)] // an append by the owner copies
		}
		r.Rels[name] = ids
	}
	r.CreatedAt = d.str()
	r.UpdatedAt = d.str()
	if d.err == nil && d.i != len(d.s) {
		d.err = errors.New("trailing bytes")
	}
	if d.err != nil {
		return nil, fmt.Errorf("decode %s %s: %w", typ, r.ID, d.err)
	}
	return r, nil
}

// migrateJSON rewrites the records still stored as JSON in the binary
// form, one transaction per type and account, so that files written by
// earlier versions read as fast as new ones.
func migrateJSON(db *bolt.DB) error {
	var buckets [][2][]byte // type, account
	err := db.View(func(tx *bolt.Tx) error {
		root := tx.Bucket(bucketRec)
		return root.ForEachBucket(func(typ []byte) error {
			return root.Bucket(typ).ForEachBucket(func(acct []byte) error {
				buckets = append(buckets, [2][]byte{bytes.Clone(typ), bytes.Clone(acct)})
				return nil
			})
		})
	})
	if err != nil {
		return err
	}
	for _, tb := range buckets {
		err := db.Update(func(tx *bolt.Tx) error {
			b := tx.Bucket(bucketRec).Bucket(tb[0]).Bucket(tb[1])
			var keys, vals [][]byte
			if err := b.ForEach(func(k, v []byte) error {
				if len(v) > 0 && v[0] == '{' {
					keys, vals = append(keys, k), append(vals, v)
				}
				return nil
			}); err != nil {
				return err
			}
			for i, k := range keys {
				acct := string(tb[1])
				if acct == "_" {
					acct = ""
				}
				r, err := decodeRecord(string(tb[0]), acct, k, vals[i])
				if err != nil {
					return err
				}
				v, err := encodeRecord(r)
				if err != nil {
					return err
				}
				if err := b.Put(k, v); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}
