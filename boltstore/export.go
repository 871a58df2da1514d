package boltstore

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/engine"
	bolt "go.etcd.io/bbolt"
)

// Export reads everything a file holds, for copying it into another store
// (package storemove): records with their ids and times, the types' id
// sequences, blobs and the auth data as stored (secrets as digests or
// sealed). Sets
// are walked in key order, so a copy interrupted after some id resumes
// after it. The index buckets are left out (a store derives its own), and
// so is the meta bucket (markers of upgrades of this file only).
type Export struct{ t *tx }

// Export runs fn over one read transaction of the whole file: one
// consistent state, however long fn takes.
func (db *DB) Export(ctx context.Context, fn func(*Export) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return db.bolt.View(func(btx *bolt.Tx) error { return fn(&Export{t: &tx{db: db, btx: btx}}) })
}

// RecordSet names the records of one type in one account ("" for global
// types).
type RecordSet struct {
	Type, AccountID string
	Count           int
}

// BlobSet names the blobs of one kind in one account.
type BlobSet struct {
	Kind, AccountID string
	Count           int
}

// Unknown lists the top-level buckets this version does not know (a file
// written by a later version): what a copy would leave behind.
func (e *Export) Unknown() []string {
	known := append(slices.Clone(rootBuckets), string(bucketAuthCredUsers))
	var out []string
	_ = e.t.btx.ForEach(func(name []byte, _ *bolt.Bucket) error {
		if !slices.Contains(known, string(name)) {
			out = append(out, string(name))
		}
		return nil
	})
	return out
}

// RecordSets lists the record sets by type and account, with their counts.
func (e *Export) RecordSets() []RecordSet {
	var out []RecordSet
	eachNested(e.t.btx.Bucket(bucketRec), func(typ, acct []byte, b *bolt.Bucket) {
		out = append(out, RecordSet{Type: string(typ), AccountID: accountOf(acct), Count: count(b)})
	})
	return out
}

// BlobSets lists the blob sets by kind and account, with their counts.
func (e *Export) BlobSets() []BlobSet {
	var out []BlobSet
	eachNested(e.t.btx.Bucket(bucketBlob), func(kind, acct []byte, b *bolt.Bucket) {
		out = append(out, BlobSet{Kind: string(kind), AccountID: accountOf(acct), Count: count(b)})
	})
	return out
}

// Sequences returns by type the last id its sequence gave: at least the
// largest id of the type, more when records were deleted (their ids are
// never given again).
func (e *Export) Sequences() map[string]uint64 {
	out := map[string]uint64{}
	if root := e.t.btx.Bucket(bucketRec); root != nil {
		_ = root.ForEachBucket(func(typ []byte) error {
			out[string(typ)] = root.Bucket(typ).Sequence()
			return nil
		})
	}
	return out
}

// Records calls fn with each record of set whose id comes after after ("",
// the first), in id order. The records are fn's.
func (e *Export) Records(set RecordSet, after string, fn func(*engine.Record) error) error {
	b, err := e.t.records(set.Type, set.AccountID, false)
	if err != nil || b == nil {
		return err
	}
	var from []byte
	if after != "" {
		var ok bool
		if from, ok = idKey(after); !ok {
			return fmt.Errorf("export %s: bad id %q", set.Type, after)
		}
	}
	return walkAfter(b, from, func(k, v []byte) error {
		r, err := decodeRecord(set.Type, set.AccountID, k, v)
		if err != nil {
			return err
		}
		return fn(r)
	})
}

// Blobs calls fn with each blob of set whose id comes after after ("", the
// first), in key order (numeric ids first, by number). data is valid only
// during fn.
func (e *Export) Blobs(set BlobSet, after string, fn func(id string, data []byte) error) error {
	b, err := e.t.blobs(set.Kind, set.AccountID, false)
	if err != nil || b == nil {
		return err
	}
	var from []byte
	if after != "" {
		from = blobKey(after)
	}
	return walkAfter(b, from, func(k, v []byte) error { return fn(blobID(k), v) })
}

// blobID inverts blobKey: an 8-byte key starting with a zero byte is a
// numeric id (below 2^56), any other key the id's own text (which never
// starts with NUL).
func blobID(k []byte) string {
	if len(k) == 8 && k[0] == 0 {
		return keyID(k)
	}
	return string(k)
}

// Applications calls fn with each OAuth application, by client id.
func (e *Export) Applications(fn func(*auth.Application) error) error {
	return eachJSON(e.t.btx.Bucket(bucketAuthApps), "application", ignoreKey(fn))
}

// ServiceCredentials calls fn with each service credential, by client id.
func (e *Export) ServiceCredentials(fn func(*auth.ServiceCredential) error) error {
	return eachJSON(e.t.btx.Bucket(bucketAuthCreds), "service credential", ignoreKey(fn))
}

// Tokens calls fn with each stored token (its digest, never its value).
func (e *Export) Tokens(fn func(*auth.Token) error) error {
	return eachJSON(e.t.btx.Bucket(bucketAuthTokens), "token", ignoreKey(fn))
}

// AuthCodes calls fn with each authorization code not yet exchanged (its
// digest).
func (e *Export) AuthCodes(fn func(*auth.AuthCode) error) error {
	return eachJSON(e.t.btx.Bucket(bucketAuthCodes), "code", ignoreKey(fn))
}

// Passwords calls fn with each user's password hash (bcrypt), by user id.
func (e *Export) Passwords(fn func(userID string, hash []byte) error) error {
	return eachJSON(e.t.btx.Bucket(bucketAuthPasswords), "password", func(k []byte, p *authPassword) error {
		return fn(string(k), p.Hash)
	})
}

// SecondFactors calls fn with each user's second factor (its TOTP seed
// sealed, its recovery codes as digests).
func (e *Export) SecondFactors(fn func(*auth.MFA) error) error {
	return eachJSON(e.t.btx.Bucket(bucketAuthMFA), "second factor", ignoreKey(fn))
}

// AuthCounts returns how many applications, service credentials,
// passwords, tokens, codes and second factors the file holds.
func (e *Export) AuthCounts() (apps, creds, passwords, tokens, codes, mfa int) {
	n := func(name []byte) int { return count(e.t.btx.Bucket(name)) }
	return n(bucketAuthApps), n(bucketAuthCreds), n(bucketAuthPasswords), n(bucketAuthTokens), n(bucketAuthCodes), n(bucketAuthMFA)
}

// eachJSON decodes each value of b (nil: none) as a T for fn, with its
// key.
func eachJSON[T any](b *bolt.Bucket, what string, fn func(k []byte, x *T) error) error {
	if b == nil {
		return nil
	}
	return b.ForEach(func(k, v []byte) error {
		var x T
		if err := json.Unmarshal(v, &x); err != nil {
			return fmt.Errorf("boltstore: decode %s: %w", what, err)
		}
		return fn(k, &x)
	})
}

func ignoreKey[T any](fn func(*T) error) func([]byte, *T) error {
	return func(_ []byte, x *T) error { return fn(x) }
}

// eachNested calls fn for each bucket two levels below root (nil: none).
func eachNested(root *bolt.Bucket, fn func(outer, inner []byte, b *bolt.Bucket)) {
	if root == nil {
		return
	}
	_ = root.ForEachBucket(func(outer []byte) error {
		ob := root.Bucket(outer)
		return ob.ForEachBucket(func(inner []byte) error {
			fn(outer, inner, ob.Bucket(inner))
			return nil
		})
	})
}

// walkAfter calls fn with each key and value of b after from (nil: from
// the first).
func walkAfter(b *bolt.Bucket, from []byte, fn func(k, v []byte) error) error {
	cur := b.Cursor()
	k, v := cur.First()
	if from != nil {
		if k, v = cur.Seek(from); k != nil && bytes.Equal(k, from) {
			k, v = cur.Next()
		}
	}
	for ; k != nil; k, v = cur.Next() {
		if v == nil {
			continue // a nested bucket: none is expected here
		}
		if err := fn(k, v); err != nil {
			return err
		}
	}
	return nil
}

// count returns the number of values in b (nil: 0).
func count(b *bolt.Bucket) int {
	n := 0
	if b != nil {
		cur := b.Cursor()
		for k, v := cur.First(); k != nil; k, v = cur.Next() {
			if v != nil {
				n++
			}
		}
	}
	return n
}

// accountOf inverts acctKey.
func accountOf(k []byte) string {
	if string(k) == "_" {
		return ""
	}
	return string(k)
}
