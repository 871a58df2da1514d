package boltstore

import (
	"bytes"

	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/internal/bounded"
)

// sharedRecords keeps decoded records with the stored bytes they were
// decoded from, for engine.SharedReader. Decoding is a function of the
// bytes, so an entry whose bytes equal what a transaction reads is that
// record, whoever wrote it and whenever; any change is a miss.
type sharedRecords struct {
	m bounded.Map[string, sharedEntry]
}

type sharedEntry struct {
	raw []byte
	rec *engine.Record
}

// get returns the shared record stored as v under key k of the type's
// bucket in the account.
func (c *sharedRecords) get(typ, accountID string, k, v []byte) (*engine.Record, error) {
	return decodedOnce(&c.m, typ, accountID, k, v)
}

// pageRecords keeps the records of the pages lists read, decoded, with
// the stored bytes they were decoded from, as sharedRecords does: a list
// that only reads them (engine.Query.Shared) gets the records kept, any
// other a copy (Clone), which it may change. Decoding a page's records was
// most of the cost of reading it.
type pageRecords struct {
	m *bounded.Sharded[string, sharedEntry]
}

// pageRecordsSize bounds the records pageRecords keeps: a few pages of
// the largest size.
const pageRecordsSize = 2048

func newPageRecords() pageRecords {
	return pageRecords{m: bounded.NewSharded[string, sharedEntry](pageRecordsSize)}
}

// get returns the record stored as v under key k: the one kept when
// shared, else a copy.
func (c pageRecords) get(typ, accountID string, k, v []byte, shared bool) (*engine.Record, error) {
	rec, err := decodedOnce(c.m, typ, accountID, k, v)
	if err != nil || shared {
		return rec, err
	}
	return rec.Clone(), nil
}

// entries is the map decodedOnce keeps its records in.
type entries interface {
	Get(string) (sharedEntry, bool)
	Put(string, sharedEntry)
}

// decodedOnce returns the record stored as v under key k of the type's
// bucket in the account: the one m holds when it was decoded from the
// same bytes, else v decoded (and kept in m).
func decodedOnce(m entries, typ, accountID string, k, v []byte) (*engine.Record, error) {
	var buf [96]byte // the key's bytes stay on the stack when they fit
	key := append(buf[:0], typ...)
	key = append(append(append(append(key, 0), accountID...), 0), k...)
	if e, ok := m.Get(string(key)); ok && bytes.Equal(e.raw, v) {
		return e.rec, nil
	}
	rec, err := decodeRecord(typ, accountID, k, v)
	if err != nil {
		return nil, err
	}
	m.Put(string(key), sharedEntry{raw: bytes.Clone(v), rec: rec})
	return rec, nil
}
