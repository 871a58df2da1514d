package boltstore

import (
	"bytes"

	bolt "go.etcd.io/bbolt"
)

// The meta bucket holds what a file says about itself: markers of the
// upgrades already applied to it.
var (
	bucketMeta = []byte("meta")
	// hashedIndexKeys marks a file whose index keys all have the form of
	// indexValue (long values hashed).
	hashedIndexKeys = []byte("index-keys-hashed")
)

func init() { rootBuckets = append(rootBuckets, string(bucketMeta)) }

// indexKeyTail is what follows the value in an index key: 0x00 and the
// 8-byte id.
const indexKeyTail = 9

// hashLongIndexKeys rewrites the index keys that files written before long
// values were hashed (maxIndexValue) still hold with the whole value, so
// that equality lookups for those values find their records again and a
// later change of the record removes the key. It runs once per file, in
// one transaction: the file is marked when done, and later opens skip
// the walk.
func hashLongIndexKeys(db *bolt.DB) error {
	var done bool
	if err := db.View(func(tx *bolt.Tx) error {
		done = tx.Bucket(bucketMeta).Get(hashedIndexKeys) != nil
		return nil
	}); err != nil || done {
		return err
	}
	return db.Update(func(tx *bolt.Tx) error {
		meta := tx.Bucket(bucketMeta)
		idx := tx.Bucket(bucketIdx)
		err := idx.ForEachBucket(func(typ []byte) error {
			tb := idx.Bucket(typ)
			return tb.ForEachBucket(func(acct []byte) error {
				ab := tb.Bucket(acct)
				return ab.ForEachBucket(func(field []byte) error { return hashLongKeys(ab.Bucket(field)) })
			})
		})
		if err != nil {
			return err
		}
		return meta.Put(hashedIndexKeys, []byte{1})
	})
}

// hashLongKeys rewrites the keys of one index bucket whose value part is
// longer than maxIndexValue (stored lower-cased already).
func hashLongKeys(b *bolt.Bucket) error {
	var long [][]byte
	if err := b.ForEach(func(k, _ []byte) error {
		if len(k) > maxIndexValue+indexKeyTail && k[len(k)-indexKeyTail] == 0 {
			long = append(long, bytes.Clone(k))
		}
		return nil
	}); err != nil {
		return err
	}
	for _, k := range long {
		value, tail := k[:len(k)-indexKeyTail], k[len(k)-indexKeyTail:]
		if err := b.Delete(k); err != nil {
			return err
		}
		if err := b.Put(append(indexForm(string(value)), tail...), nil); err != nil {
			return err
		}
	}
	return nil
}

// bucketAuthCredUsers is the index of service credentials by user that
// files written before auth_user_creds hold: <account> 0x00 <user> =
// <client id>, one credential per key.
var bucketAuthCredUsers = []byte("auth_service_cred_users")

// moveCredUserIndex rewrites auth_service_cred_users as auth_user_creds
// (one key per credential) and deletes it, once per file.
func moveCredUserIndex(db *bolt.DB) error {
	var found bool
	if err := db.View(func(tx *bolt.Tx) error {
		found = tx.Bucket(bucketAuthCredUsers) != nil
		return nil
	}); err != nil || !found {
		return err
	}
	return db.Update(func(tx *bolt.Tx) error {
		to := tx.Bucket(bucketAuthUserCreds)
		if err := tx.Bucket(bucketAuthCredUsers).ForEach(func(k, v []byte) error {
			return to.Put(append(append(bytes.Clone(k), 0), v...), nil)
		}); err != nil {
			return err
		}
		return tx.DeleteBucket(bucketAuthCredUsers)
	})
}
