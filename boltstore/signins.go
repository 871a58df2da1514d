package boltstore

import (
	"context"
	"time"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/auth"
	bolt "go.etcd.io/bbolt"
)

// Sign-ins in progress (auth.PendingSignIn), as the codes are kept:
//
//	auth_signins/<SHA-256 digest>                         = auth.PendingSignIn
//	auth_signin_expiry/<expiry, 8 bytes BE> <digest>      = (empty)
var (
	bucketAuthSignIns   = []byte("auth_signins")
	bucketAuthSignInExp = []byte("auth_signin_expiry")
)

func init() {
	rootBuckets = append(rootBuckets, string(bucketAuthSignIns), string(bucketAuthSignInExp))
}

// TakeSignIn implements auth.Store.
func (s authStore) TakeSignIn(ctx context.Context, digest []byte) (*auth.PendingSignIn, error) {
	var p *auth.PendingSignIn
	err := s.db.bolt.Update(func(tx *bolt.Tx) (err error) {
		if err := ctx.Err(); err != nil {
			return err
		}
		if len(digest) == 0 {
			return scopekit.Errorf(scopekit.ENOTFOUND, "sign-in not found")
		}
		if p, err = authGet[auth.PendingSignIn](tx, bucketAuthSignIns, digest, "sign-in"); err != nil {
			return err
		}
		p.Digest = digest
		if err := tx.Bucket(bucketAuthSignInExp).Delete(codeExpiryKey(p.ExpiresAt, digest)); err != nil {
			return err
		}
		return tx.Bucket(bucketAuthSignIns).Delete(digest)
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}

// PutSignIn implements auth.Tx.
func (t authTx) PutSignIn(p *auth.PendingSignIn) error {
	return putExpiring(t.tx, bucketAuthSignIns, bucketAuthSignInExp, p.Digest, p, func(p *auth.PendingSignIn) time.Time { return p.ExpiresAt })
}

// DeleteSignInsExpiredBefore implements auth.Tx.
func (t authTx) DeleteSignInsExpiredBefore(before time.Time) error {
	return deleteExpired(t.tx, bucketAuthSignIns, bucketAuthSignInExp, before)
}
