package boltstore

import (
	"bytes"

	"github.com/scopekit/scopekit"
	bolt "go.etcd.io/bbolt"
)

// Layout of the blob buckets (files kept beside records, engine.BlobTx):
//
//	blob/<kind>/<account>/<id as 8 bytes big-endian> = the bytes
//
// A blob is written in the transaction of its record, so both commit or
// neither does.
var bucketBlob = []byte("blob")

func init() { rootBuckets = append(rootBuckets, "blob") }

// blobs returns the bucket of one kind in one account (nil when none and
// create is false).
func (t *tx) blobs(kind, accountID string, create bool) (*bolt.Bucket, error) {
	b := t.btx.Bucket(bucketBlob)
	for _, name := range [][]byte{[]byte(kind), acctKey(accountID)} {
		next := b.Bucket(name)
		if next == nil {
			if !create {
				return nil, nil
			}
			var err error
			if next, err = b.CreateBucket(name); err != nil {
				return nil, err
			}
		}
		b = next
	}
	return b, nil
}

func blobKey(id string) []byte {
	if k, ok := idKey(id); ok {
		return k
	}
	return []byte(id)
}

// PutBlob implements engine.BlobTx.
func (t *tx) PutBlob(accountID, kind, id string, data []byte) error {
	b, err := t.blobs(kind, accountID, true)
	if err != nil {
		return err
	}
	// bbolt keeps a reference to the value until the commit: hand it a copy
	return b.Put(blobKey(id), bytes.Clone(data))
}

// Blob implements engine.BlobTx.
func (t *tx) Blob(accountID, kind, id string) ([]byte, error) {
	b, err := t.blobs(kind, accountID, false)
	if err != nil {
		return nil, err
	}
	var v []byte
	if b != nil {
		v = b.Get(blobKey(id))
	}
	if v == nil {
		return nil, scopekit.Errorf(scopekit.ENOTFOUND, "no %s file for %s", kind, id)
	}
	return bytes.Clone(v), nil // bbolt's bytes live only as long as the transaction
}

// DeleteBlob implements engine.BlobTx.
func (t *tx) DeleteBlob(accountID, kind, id string) error {
	b, err := t.blobs(kind, accountID, false)
	if err != nil || b == nil {
		return err
	}
	return b.Delete(blobKey(id))
}
