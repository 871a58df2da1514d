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
	var buf [96]byte // the key's bytes stay on the stack when they fit
	key := append(buf[:0], typ...)
	key = append(append(append(append(key, 0), accountID...), 0), k...)
	if e, ok := c.m.Get(string(key)); ok && bytes.Equal(e.raw, v) {
		return e.rec, nil
	}
	rec, err := decodeRecord(typ, accountID, k, v)
	if err != nil {
		return nil, err
	}
	c.m.Put(string(key), sharedEntry{raw: bytes.Clone(v), rec: rec})
	return rec, nil
}
