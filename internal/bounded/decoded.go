package bounded

import "bytes"

// Decoded keeps values decoded from stored bytes, by key, with the bytes
// each was decoded from. An entry serves only while the stored bytes are
// the same, so it never serves a value that was replaced or deleted,
// whoever wrote it; what it saves is the decoding. The zero Decoded is
// ready to use; it must not be copied after first use.
type Decoded[T any] struct {
	m Map[string, decodedEntry[T]]
}

type decodedEntry[T any] struct {
	raw []byte
	val T
}

// Get returns the value of raw, the bytes stored under key: the one
// decoded before from the same bytes, else decode's (kept for next
// time). The value is a shallow copy of the one kept: its callers must
// not change what it points to.
func (d *Decoded[T]) Get(key string, raw []byte, decode func([]byte) (T, error)) (T, error) {
	if e, ok := d.m.Get(key); ok && bytes.Equal(e.raw, raw) {
		return e.val, nil
	}
	v, err := decode(raw)
	if err == nil {
		d.m.Put(key, decodedEntry[T]{raw: bytes.Clone(raw), val: v})
	}
	return v, err
}
