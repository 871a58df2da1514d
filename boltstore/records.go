package boltstore

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	bolt "go.etcd.io/bbolt"
)

// Layout of the record buckets:
//
//	rec/<type>/<account>/<id as 8 bytes big-endian> = the record (codec.go)
//	idx/<type>/<account>/<field>/<lower(value)> 0x00 <id> = nothing
//
// The type bucket's sequence numbers ids, so ids are unique per type across
// accounts and keys sort numerically. Global types use the account "_".
var (
	bucketRec = []byte("rec")
	bucketIdx = []byte("idx")
)

func init() { rootBuckets = append(rootBuckets, "rec", "idx") }

var _ engine.Store = (*DB)(nil)

// View implements engine.Store.
func (db *DB) View(ctx context.Context, fn func(engine.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return db.bolt.View(func(btx *bolt.Tx) error { return fn(&tx{db: db, btx: btx}) })
}

// Update implements engine.Store.
func (db *DB) Update(ctx context.Context, fn func(engine.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	t := &tx{db: db}
	err := db.bolt.Update(func(btx *bolt.Tx) error {
		t.btx = btx
		if err := fn(t); err != nil {
			return err
		}
		return ctx.Err() // canceled while fn ran: roll back rather than commit (engine.Store)
	})
	for _, typ := range t.wrote { // after the commit (versions.go)
		db.versions.bump(typ)
	}
	return err
}

type tx struct {
	db    *DB
	btx   *bolt.Tx
	wrote []string // the types written, each once
}

// written notes that the transaction writes a record of typ.
func (t *tx) written(typ string) {
	if !slices.Contains(t.wrote, typ) {
		t.wrote = append(t.wrote, typ)
	}
}

func acctKey(accountID string) []byte {
	if accountID == "" {
		return []byte("_")
	}
	return []byte(accountID)
}

func idKey(id string) ([]byte, bool) {
	n, err := strconv.ParseUint(id, 10, 64)
	if err != nil || n == 0 {
		return nil, false
	}
	return binary.BigEndian.AppendUint64(nil, n), true
}

func keyID(k []byte) string { return strconv.FormatUint(binary.BigEndian.Uint64(k), 10) }

// records returns the bucket of one type in one account (nil when none and
// create is false).
func (t *tx) records(typ, accountID string, create bool) (*bolt.Bucket, error) {
	root := t.btx.Bucket(bucketRec)
	tb := root.Bucket([]byte(typ))
	if tb == nil {
		if !create {
			return nil, nil
		}
		var err error
		if tb, err = root.CreateBucket([]byte(typ)); err != nil {
			return nil, err
		}
	}
	ab := tb.Bucket(acctKey(accountID))
	if ab == nil && create {
		return tb.CreateBucket(acctKey(accountID))
	}
	return ab, nil
}

func (t *tx) index(typ, accountID, field string, create bool) (*bolt.Bucket, error) {
	b := t.btx.Bucket(bucketIdx)
	for _, name := range []string{typ, string(acctKey(accountID)), field} {
		next := b.Bucket([]byte(name))
		if next == nil {
			if !create {
				return nil, nil
			}
			var err error
			if next, err = b.CreateBucket([]byte(name)); err != nil {
				return nil, err
			}
		}
		b = next
	}
	return b, nil
}

// decodeNext decodes the next stored record from dec. Numbers stay
// json.Number: money inside objects (approval conditions) must not pass
// through float64.
func decodeNext(dec *json.Decoder, typ, accountID string, k []byte) (*engine.Record, error) {
	r := &engine.Record{Type: typ, ID: keyID(k), AccountID: accountID}
	if err := dec.Decode(r); err != nil {
		return nil, fmt.Errorf("decode %s %s: %w", typ, r.ID, err)
	}
	if r.Attrs == nil {
		r.Attrs = map[string]any{}
	}
	if r.Rels == nil {
		r.Rels = map[string][]string{}
	}
	return r, nil
}

// decodeBatch decodes many stored records. Records still stored as JSON
// share one json.Decoder: values are self-delimiting, so a reader that
// yields them one after another lets the decoder and its buffer serve the
// whole batch instead of one each.
func decodeBatch(typ, accountID string, keys, vals [][]byte) ([]*engine.Record, error) {
	out := make([]*engine.Record, len(keys))
	var jsonAt []int
	var jsonVals [][]byte
	for i, k := range keys {
		if v := vals[i]; len(v) > 0 && v[0] == binVersion {
			r, err := decodeBinary(typ, accountID, k, v)
			if err != nil {
				return nil, err
			}
			out[i] = r
		} else {
			jsonAt, jsonVals = append(jsonAt, i), append(jsonVals, v)
		}
	}
	if len(jsonAt) > 0 {
		dec := json.NewDecoder(&valuesReader{vals: jsonVals})
		dec.UseNumber()
		for _, i := range jsonAt {
			r, err := decodeNext(dec, typ, accountID, keys[i])
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
	}
	return out, nil
}

// valuesReader reads a list of byte slices as one stream.
type valuesReader struct {
	vals [][]byte
	off  int
}

func (r *valuesReader) Read(p []byte) (int, error) {
	for len(r.vals) > 0 && r.off == len(r.vals[0]) {
		r.vals, r.off = r.vals[1:], 0
	}
	if len(r.vals) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.vals[0][r.off:])
	r.off += n
	return n, nil
}

func notFound(typ, id string) error {
	return scopekit.Errorf(scopekit.ENOTFOUND, "%s %s not found", typ, id)
}

// Get implements engine.Tx.
func (t *tx) Get(typ, accountID, id string) (*engine.Record, error) {
	k, v, err := t.stored(typ, accountID, id)
	if err != nil {
		return nil, err
	}
	return decodeRecord(typ, accountID, k, v)
}

// stored returns the key and stored bytes of a record (valid during the
// transaction); ENOTFOUND when there is none.
func (t *tx) stored(typ, accountID, id string) (k, v []byte, err error) {
	k, ok := idKey(id)
	if !ok {
		return nil, nil, notFound(typ, id)
	}
	b, err := t.records(typ, accountID, false)
	if err != nil {
		return nil, nil, err
	}
	if b == nil {
		return nil, nil, notFound(typ, id)
	}
	if v = b.Get(k); v == nil {
		return nil, nil, notFound(typ, id)
	}
	return k, v, nil
}

// GetShared implements engine.SharedReader: Get through the shared
// record cache, keyed by the record's place and checked against its
// stored bytes.
func (t *tx) GetShared(typ, accountID, id string) (*engine.Record, error) {
	k, v, err := t.stored(typ, accountID, id)
	if err != nil {
		return nil, err
	}
	return t.db.shared.get(typ, accountID, k, v)
}

// Insert implements engine.Tx.
func (t *tx) Insert(r *engine.Record) error {
	b, err := t.records(r.Type, r.AccountID, true)
	if err != nil {
		return err
	}
	seqb := t.btx.Bucket(bucketRec).Bucket([]byte(r.Type))
	if r.ID == "" {
		n, err := seqb.NextSequence()
		if err != nil {
			return err
		}
		r.ID = strconv.FormatUint(n, 10)
	} else {
		n, err := strconv.ParseUint(r.ID, 10, 64)
		if err != nil || n == 0 {
			return fmt.Errorf("insert %s: bad id %q", r.Type, r.ID)
		}
		if n > seqb.Sequence() {
			if err := seqb.SetSequence(n); err != nil {
				return err
			}
		}
	}
	k, _ := idKey(r.ID)
	if b.Get(k) != nil {
		return scopekit.Errorf(scopekit.ECONFLICT, "%s %s already exists", r.Type, r.ID)
	}
	t.written(r.Type)
	now := engine.FormatTime(t.db.Now())
	if r.CreatedAt == "" {
		r.CreatedAt = now
	}
	if r.UpdatedAt == "" {
		r.UpdatedAt = r.CreatedAt
	}
	return t.write(b, k, r, nil)
}

// Replace implements engine.Tx.
func (t *tx) Replace(r *engine.Record) error {
	k, ok := idKey(r.ID)
	b, err := t.records(r.Type, r.AccountID, false)
	if err != nil {
		return err
	}
	if !ok || b == nil || b.Get(k) == nil {
		return notFound(r.Type, r.ID)
	}
	old, err := decodeRecord(r.Type, r.AccountID, k, b.Get(k))
	if err != nil {
		return err
	}
	r.CreatedAt = old.CreatedAt
	r.UpdatedAt = engine.FormatTime(t.db.Now())
	t.written(r.Type)
	return t.write(b, k, r, old)
}

// Delete implements engine.Tx.
func (t *tx) Delete(typ, accountID, id string) error {
	old, err := t.Get(typ, accountID, id)
	if err != nil {
		return err
	}
	b, _ := t.records(typ, accountID, false)
	k, _ := idKey(id)
	t.written(typ)
	if err := t.reindex(old, nil); err != nil {
		return err
	}
	return b.Delete(k)
}

func (t *tx) write(b *bolt.Bucket, k []byte, r, old *engine.Record) error {
	v, err := encodeRecord(r)
	if err != nil {
		return fmt.Errorf("encode %s %s: %w", r.Type, r.ID, err)
	}
	if err := b.Put(k, v); err != nil {
		return err
	}
	return t.reindex(old, r)
}

// reindex moves the index entries of a record from old to new (either may
// be nil).
func (t *tx) reindex(old, cur *engine.Record) error {
	some := cur
	if some == nil {
		some = old
	}
	def, ok := t.db.schema.Lookup(some.Type)
	if !ok {
		return nil
	}
	k, _ := idKey(some.ID)
	for _, field := range def.IndexedFields() {
		var before, after []string
		if old != nil {
			before = old.FieldValues(field)
		}
		if cur != nil {
			after = cur.FieldValues(field)
		}
		if slices.Equal(before, after) {
			continue
		}
		ib, err := t.index(some.Type, some.AccountID, field, true)
		if err != nil {
			return err
		}
		for _, v := range before {
			if err := ib.Delete(indexKey(v, k)); err != nil {
				return err
			}
		}
		for _, v := range after {
			if err := ib.Put(indexKey(v, k), nil); err != nil {
				return err
			}
		}
	}
	return nil
}

func indexKey(value string, id []byte) []byte {
	v := indexValue(value)
	k := make([]byte, 0, len(v)+1+len(id))
	k = append(k, v...)
	k = append(k, 0)
	return append(k, id...)
}

// maxIndexValue bounds the value part of an index key: far below bbolt's
// key limit (32 KiB), above any name within its limit (255 characters of
// up to 4 bytes). A longer value is stored as its first bytes and a
// SHA-256 of the whole, so that equality lookups still find it and no
// value, however long, can fail a write.
const maxIndexValue = 1024

// indexValue is the form of a value in index keys: lower-cased (equality
// is case-insensitive), and hashed beyond maxIndexValue bytes.
func indexValue(value string) []byte { return indexForm(strings.ToLower(value)) }

// indexForm is indexValue of a value already lower-cased.
func indexForm(v string) []byte {
	if len(v) <= maxIndexValue {
		return []byte(v)
	}
	sum := sha256.Sum256([]byte(v))
	out := make([]byte, 0, 128+2+hex.EncodedLen(len(sum)))
	out = append(out, v[:128]...)
	out = append(out, 1, '#')
	return hex.AppendEncode(out, sum[:])
}
