package boltstore

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/internal/bounded"
	bolt "go.etcd.io/bbolt"
)

// Layout of the auth buckets (values are JSON):
//
//	auth_apps/<client id>                                       = auth.Application
//	auth_service_creds/<client id>                              = auth.ServiceCredential
//	auth_user_creds/<account> 0x00 <user> 0x00 <client id>      = (empty)
//	auth_passwords/<user id>                                    = authPassword
//	auth_tokens/<SHA-256 digest>                                = auth.Token
//	auth_codes/<SHA-256 digest>                                 = auth.AuthCode
//	auth_code_expiry/<expiry, 8 bytes BE> <digest>              = (empty)
//	auth_mfa/<user id>                                          = auth.MFA
//
// Secrets and tokens appear only as digests, passwords only as bcrypt
// hashes, TOTP seeds only sealed. The buckets hold what package auth stores; its rules (one
// namespace of client ids, one credential per user, which codes go) are
// its own.
var (
	bucketAuthApps      = []byte("auth_apps")
	bucketAuthCreds     = []byte("auth_service_creds")
	bucketAuthUserCreds = []byte("auth_user_creds")
	bucketAuthPasswords = []byte("auth_passwords")
	bucketAuthTokens    = []byte("auth_tokens")
	bucketAuthCodes     = []byte("auth_codes")
	bucketAuthCodeExp   = []byte("auth_code_expiry")
	bucketAuthMFA       = []byte("auth_mfa")
)

func init() {
	rootBuckets = append(rootBuckets,
		string(bucketAuthApps), string(bucketAuthCreds), string(bucketAuthUserCreds),
		string(bucketAuthPasswords), string(bucketAuthTokens),
		string(bucketAuthCodes), string(bucketAuthCodeExp), string(bucketAuthMFA))
}

// AuthStore returns the auth.Store kept in this database file.
func (db *DB) AuthStore() auth.Store { return authStore{db: db} }

// authStore implements auth.Store; it is a separate type so that its method
// names stay out of DB's own API.
type authStore struct{ db *DB }

var _ auth.Store = authStore{}

// authPassword is the stored form of a password: its bcrypt hash only.
type authPassword struct {
	Hash []byte `json:"hash"`
}

func (s authStore) view(ctx context.Context, fn func(*bolt.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return s.db.bolt.View(fn)
}

func (s authStore) update(ctx context.Context, fn func(*bolt.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	defer s.db.versions.bump(authData) // after the commit (versions.go)
	return s.db.bolt.Update(fn)
}

// authGet decodes the JSON value under key; ENOTFOUND (naming what) when
// there is none.
func authGet[T any](tx *bolt.Tx, bucket, key []byte, what string) (*T, error) {
	return cachedGet[T](tx, nil, bucket, key, what)
}

// decodeCache keeps auth records decoded, with the stored bytes they were
// decoded from, by key. Every request validates a token (and, for service
// accounts, its credential), and decoding them was a fifth of a small
// read.
type decodeCache[T any] = bounded.Decoded[T]

// cachedGet is authGet through a cache (none when c is nil); it returns a
// copy of the record.
func cachedGet[T any](tx *bolt.Tx, c *decodeCache[T], bucket, key []byte, what string) (*T, error) {
	data := tx.Bucket(bucket).Get(key)
	if data == nil {
		return nil, scopekit.Errorf(scopekit.ENOTFOUND, "%s not found", what)
	}
	decode := func(b []byte) (v T, err error) {
		if err = json.Unmarshal(b, &v); err != nil {
			err = fmt.Errorf("boltstore: decode %s: %w", what, err)
		}
		return v, err
	}
	var v T
	var err error
	if c == nil {
		v, err = decode(data)
	} else {
		v, err = c.Get(string(key), data, decode)
	}
	if err != nil {
		return nil, err
	}
	return &v, nil
}

func authPut(tx *bolt.Tx, bucket, key []byte, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return tx.Bucket(bucket).Put(key, data)
}

// credUserPrefix starts the auth_user_creds keys of a user's credentials
// in an account.
func credUserPrefix(accountID, userID string) []byte {
	return append(append(append([]byte(accountID), 0), userID...), 0)
}

// ApplicationByClientID implements auth.Store. Every password,
// refresh and code grant reads its application: it is kept decoded, as
// service credentials are (which also spares the token endpoint's
// refusal of a wrong secret a decode that an unknown client id does not
// cost).
func (s authStore) ApplicationByClientID(ctx context.Context, clientID string) (a *auth.Application, err error) {
	err = s.view(ctx, func(tx *bolt.Tx) error {
		a, err = cachedGet(tx, &s.db.appCache, bucketAuthApps, []byte(clientID), "application")
		return err
	})
	return a, err
}

// ServiceCredentialByClientID implements auth.Store.
func (s authStore) ServiceCredentialByClientID(ctx context.Context, clientID string) (*auth.ServiceCredential, error) {
	var c *auth.ServiceCredential
	err := s.view(ctx, func(tx *bolt.Tx) (err error) {
		c, err = cachedGet(tx, &s.db.credCache, bucketAuthCreds, []byte(clientID), "service credential")
		return err
	})
	return c, err
}

// SetPasswordHash implements auth.Store.
func (s authStore) SetPasswordHash(ctx context.Context, userID string, hash []byte) error {
	return s.update(ctx, func(tx *bolt.Tx) error {
		return authPut(tx, bucketAuthPasswords, []byte(userID), authPassword{Hash: hash})
	})
}

// PasswordHash implements auth.Store.
func (s authStore) PasswordHash(ctx context.Context, userID string) ([]byte, error) {
	var p *authPassword
	if err := s.view(ctx, func(tx *bolt.Tx) (err error) {
		p, err = authGet[authPassword](tx, bucketAuthPasswords, []byte(userID), "password")
		return err
	}); err != nil {
		return nil, err
	}
	return p.Hash, nil
}

// PutToken implements auth.Store.
func (s authStore) PutToken(ctx context.Context, t *auth.Token) error {
	return s.update(ctx, func(tx *bolt.Tx) error {
		return authPut(tx, bucketAuthTokens, t.Digest, t)
	})
}

// TokenByDigest implements auth.Store.
func (s authStore) TokenByDigest(ctx context.Context, digest []byte) (*auth.Token, error) {
	if len(digest) == 0 {
		return nil, scopekit.Errorf(scopekit.ENOTFOUND, "token not found")
	}
	var t *auth.Token
	err := s.view(ctx, func(tx *bolt.Tx) (err error) {
		t, err = cachedGet(tx, &s.db.tokenCache, bucketAuthTokens, digest, "token")
		return err
	})
	return t, err
}

// DeleteToken implements auth.Store.
func (s authStore) DeleteToken(ctx context.Context, digest []byte) error {
	return s.update(ctx, func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketAuthTokens)
		if len(digest) == 0 || b.Get(digest) == nil {
			return scopekit.Errorf(scopekit.ENOTFOUND, "token not found")
		}
		return b.Delete(digest)
	})
}

// DeleteRefreshTokens implements auth.Store. Tokens are keyed by digest
// alone, so it reads them all: a revocation follows a change of an
// account's sign-in policy, which is rare.
func (s authStore) DeleteRefreshTokens(ctx context.Context, f auth.RefreshFilter) (int, error) {
	var n int
	err := s.update(ctx, func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketAuthTokens)
		var gone [][]byte
		err := b.ForEach(func(k, v []byte) error {
			var t auth.Token
			if err := json.Unmarshal(v, &t); err != nil {
				return fmt.Errorf("boltstore: decode token: %w", err)
			}
			if f.Selects(&t) {
				gone = append(gone, slices.Clone(k))
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, k := range gone {
			if err := b.Delete(k); err != nil {
				return err
			}
		}
		n = len(gone)
		return nil
	})
	return n, err
}

// TakeAuthCode implements auth.Store.
func (s authStore) TakeAuthCode(ctx context.Context, digest []byte) (*auth.AuthCode, error) {
	var c *auth.AuthCode
	err := s.update(ctx, func(tx *bolt.Tx) (err error) {
		if len(digest) == 0 {
			return scopekit.Errorf(scopekit.ENOTFOUND, "code not found")
		}
		if c, err = authGet[auth.AuthCode](tx, bucketAuthCodes, digest, "code"); err != nil {
			return err
		}
		if err := tx.Bucket(bucketAuthCodeExp).Delete(codeExpiryKey(c.ExpiresAt, digest)); err != nil {
			return err
		}
		return tx.Bucket(bucketAuthCodes).Delete(digest)
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// MFA implements auth.Store.
func (s authStore) MFA(ctx context.Context, userID string) (m *auth.MFA, err error) {
	err = s.view(ctx, func(tx *bolt.Tx) error {
		m, err = authTx{tx}.MFA(userID)
		return err
	})
	return m, err
}

// Update implements auth.Store: bbolt runs one write transaction at a
// time, so transactions never overlap.
func (s authStore) Update(ctx context.Context, fn func(auth.Tx) error) error {
	return s.update(ctx, func(tx *bolt.Tx) error { return fn(authTx{tx}) })
}

// authTx implements auth.Tx.
type authTx struct{ tx *bolt.Tx }

// ApplicationByClientID implements auth.Tx.
func (t authTx) ApplicationByClientID(clientID string) (*auth.Application, error) {
	return authGet[auth.Application](t.tx, bucketAuthApps, []byte(clientID), "application")
}

// ServiceCredentialByClientID implements auth.Tx.
func (t authTx) ServiceCredentialByClientID(clientID string) (*auth.ServiceCredential, error) {
	return authGet[auth.ServiceCredential](t.tx, bucketAuthCreds, []byte(clientID), "service credential")
}

// ServiceCredentials implements auth.Tx: the user's keys of
// auth_user_creds, in client id order.
func (t authTx) ServiceCredentials(accountID, userID string) ([]*auth.ServiceCredential, error) {
	prefix := credUserPrefix(accountID, userID)
	var out []*auth.ServiceCredential
	cur := t.tx.Bucket(bucketAuthUserCreds).Cursor()
	for k, _ := cur.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = cur.Next() {
		c, err := t.ServiceCredentialByClientID(string(k[len(prefix):]))
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// PutApplication implements auth.Tx.
func (t authTx) PutApplication(a *auth.Application) error {
	return authPut(t.tx, bucketAuthApps, []byte(a.ClientID), a)
}

// PutServiceCredential implements auth.Tx; a credential it replaces
// leaves its user's index.
func (t authTx) PutServiceCredential(c *auth.ServiceCredential) error {
	if err := t.DeleteServiceCredential(c.ClientID); err != nil {
		return err
	}
	if err := t.tx.Bucket(bucketAuthUserCreds).Put(append(credUserPrefix(c.AccountID, c.UserID), c.ClientID...), nil); err != nil {
		return err
	}
	return authPut(t.tx, bucketAuthCreds, []byte(c.ClientID), c)
}

// DeleteServiceCredential implements auth.Tx.
func (t authTx) DeleteServiceCredential(clientID string) error {
	old, err := t.ServiceCredentialByClientID(clientID)
	if scopekit.ErrorCode(err) == scopekit.ENOTFOUND {
		return nil
	}
	if err != nil {
		return err
	}
	if err := t.tx.Bucket(bucketAuthUserCreds).Delete(append(credUserPrefix(old.AccountID, old.UserID), clientID...)); err != nil {
		return err
	}
	return t.tx.Bucket(bucketAuthCreds).Delete([]byte(clientID))
}

// codeExpiryKey orders codes by expiry, so that the expired ones are the
// first keys of auth_code_expiry.
func codeExpiryKey(expires time.Time, digest []byte) []byte {
	k := binary.BigEndian.AppendUint64(nil, uint64(max(expires.UnixNano(), 0)))
	return append(k, digest...)
}

// PutAuthCode implements auth.Tx.
func (t authTx) PutAuthCode(c *auth.AuthCode) error {
	return putExpiring(t.tx, bucketAuthCodes, bucketAuthCodeExp, c.Digest, c, func(c *auth.AuthCode) time.Time { return c.ExpiresAt })
}

// putExpiring stores v under digest in bucket, and its expiry in the
// index exp (codeExpiryKey), replacing the entry there was and its
// expiry.
func putExpiring[T any](tx *bolt.Tx, bucket, exp, digest []byte, v *T, expires func(*T) time.Time) error {
	index := tx.Bucket(exp)
	if old, err := authGet[T](tx, bucket, digest, "entry"); err == nil {
		if err := index.Delete(codeExpiryKey(expires(old), digest)); err != nil {
			return err
		}
	} else if scopekit.ErrorCode(err) != scopekit.ENOTFOUND {
		return err
	}
	if err := index.Put(codeExpiryKey(expires(v), digest), nil); err != nil {
		return err
	}
	return authPut(tx, bucket, digest, v)
}

// DeleteAuthCodesExpiredBefore implements auth.Tx: the codes to delete
// are the first keys of auth_code_expiry.
func (t authTx) DeleteAuthCodesExpiredBefore(before time.Time) error {
	return deleteExpired(t.tx, bucketAuthCodes, bucketAuthCodeExp, before)
}

// deleteExpired removes the entries of bucket whose expiry, in the index
// exp (codeExpiryKey), is before t: the first keys of exp.
func deleteExpired(tx *bolt.Tx, bucket, exp []byte, before time.Time) error {
	entries, index := tx.Bucket(bucket), tx.Bucket(exp)
	limit := codeExpiryKey(before, nil)
	var stale [][]byte
	cur := index.Cursor()
	for k, _ := cur.First(); k != nil && bytes.Compare(k[:8], limit) < 0; k, _ = cur.Next() {
		stale = append(stale, k)
	}
	for _, k := range stale {
		if err := entries.Delete(k[8:]); err != nil {
			return err
		}
		if err := index.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// MFA implements auth.Tx.
func (t authTx) MFA(userID string) (*auth.MFA, error) {
	return authGet[auth.MFA](t.tx, bucketAuthMFA, []byte(userID), "second factor")
}

// PutMFA implements auth.Tx.
func (t authTx) PutMFA(m *auth.MFA) error {
	return authPut(t.tx, bucketAuthMFA, []byte(m.UserID), m)
}

// DeleteMFA implements auth.Tx.
func (t authTx) DeleteMFA(userID string) error {
	return t.tx.Bucket(bucketAuthMFA).Delete([]byte(userID))
}
