package boltstore

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"time"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/internal/bounded"
	bolt "go.etcd.io/bbolt"
)

// Layout of the auth buckets (values are JSON):
//
//	auth_apps/<client id>                          = auth.Application
//	auth_service_creds/<client id>                 = auth.ServiceCredential
//	auth_service_cred_users/<account> 0x00 <user>  = <client id>
//	auth_passwords/<user id>                       = authPassword
//	auth_tokens/<SHA-256 digest>                   = auth.Token
//	auth_codes/<SHA-256 digest>                    = auth.AuthCode
//	auth_code_expiry/<expiry, 8 bytes BE> <digest> = (empty)
//
// Secrets and tokens appear only as digests, passwords only as bcrypt
// hashes. Client ids are one namespace across applications and service
// credentials, since POST /oauth/token looks a client up by id alone.
var (
	bucketAuthApps      = []byte("auth_apps")
	bucketAuthCreds     = []byte("auth_service_creds")
	bucketAuthCredUsers = []byte("auth_service_cred_users")
	bucketAuthPasswords = []byte("auth_passwords")
	bucketAuthTokens    = []byte("auth_tokens")
	bucketAuthCodes     = []byte("auth_codes")
	bucketAuthCodeExp   = []byte("auth_code_expiry")
)

func init() {
	rootBuckets = append(rootBuckets,
		string(bucketAuthApps), string(bucketAuthCreds), string(bucketAuthCredUsers),
		string(bucketAuthPasswords), string(bucketAuthTokens),
		string(bucketAuthCodes), string(bucketAuthCodeExp))
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

// authGet decodes the JSON value under key into v; ENOTFOUND (naming what)
// when there is none.
func authGet(tx *bolt.Tx, bucket, key []byte, what string, v any) error {
	data := tx.Bucket(bucket).Get(key)
	if data == nil {
		return scopekit.Errorf(scopekit.ENOTFOUND, "%s not found", what)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("boltstore: decode %s: %w", what, err)
	}
	return nil
}

// decodeCache keeps auth records decoded, with the stored bytes they were
// decoded from, by key. Every request validates a token (and, for service
// accounts, its credential), and decoding them was a fifth of a small
// read. An entry is used only while the stored bytes are the same, so the
// cache never serves a record that was replaced or deleted, whoever wrote
// it.
type decodeCache[T any] = bounded.Map[string, decodeEntry[T]]

type decodeEntry[T any] struct {
	raw []byte
	val T
}

// cachedGet is authGet through a cache; it returns a copy of the record.
func cachedGet[T any](tx *bolt.Tx, c *decodeCache[T], bucket, key []byte, what string) (*T, error) {
	data := tx.Bucket(bucket).Get(key)
	if data == nil {
		return nil, scopekit.Errorf(scopekit.ENOTFOUND, "%s not found", what)
	}
	if e, ok := c.Get(string(key)); ok && bytes.Equal(e.raw, data) {
		v := e.val
		return &v, nil
	}
	var v T
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, fmt.Errorf("boltstore: decode %s: %w", what, err)
	}
	c.Put(string(key), decodeEntry[T]{raw: bytes.Clone(data), val: v})
	return &v, nil
}

func authPut(tx *bolt.Tx, bucket, key []byte, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return tx.Bucket(bucket).Put(key, data)
}

func credUserKey(accountID, userID string) []byte {
	return append(append([]byte(accountID), 0), userID...)
}

// PutApplication implements auth.Store.
func (s authStore) PutApplication(ctx context.Context, a *auth.Application) error {
	if a.ClientID == "" || a.AccountID == "" {
		return scopekit.FieldErrorf(scopekit.EINVALID, "client-id", "an application needs a client id and an account")
	}
	key := []byte(a.ClientID)
	return s.update(ctx, func(tx *bolt.Tx) error {
		if tx.Bucket(bucketAuthCreds).Get(key) != nil {
			return clientIDTaken()
		}
		var old auth.Application
		if err := authGet(tx, bucketAuthApps, key, "application", &old); err == nil && old.AccountID != a.AccountID {
			return clientIDTaken()
		} else if err != nil && scopekit.ErrorCode(err) != scopekit.ENOTFOUND {
			return err
		}
		return authPut(tx, bucketAuthApps, key, a)
	})
}

func clientIDTaken() error {
	return scopekit.FieldErrorf(scopekit.EINVALID, "client-id", "client id is already in use")
}

// ApplicationByClientID implements auth.Store.
func (s authStore) ApplicationByClientID(ctx context.Context, clientID string) (*auth.Application, error) {
	var a auth.Application
	if err := s.view(ctx, func(tx *bolt.Tx) error {
		return authGet(tx, bucketAuthApps, []byte(clientID), "application", &a)
	}); err != nil {
		return nil, err
	}
	return &a, nil
}

// PutServiceCredential implements auth.Store.
func (s authStore) PutServiceCredential(ctx context.Context, c *auth.ServiceCredential) error {
	if c.ClientID == "" || c.AccountID == "" || c.UserID == "" {
		return scopekit.FieldErrorf(scopekit.EINVALID, "client-id", "a service credential needs a client id, an account and a user")
	}
	key := []byte(c.ClientID)
	return s.update(ctx, func(tx *bolt.Tx) error {
		if tx.Bucket(bucketAuthApps).Get(key) != nil {
			return clientIDTaken()
		}
		creds := tx.Bucket(bucketAuthCreds)
		var other auth.ServiceCredential
		if err := authGet(tx, bucketAuthCreds, key, "service credential", &other); err == nil &&
			(other.AccountID != c.AccountID || other.UserID != c.UserID) {
			return clientIDTaken()
		} else if err != nil && scopekit.ErrorCode(err) != scopekit.ENOTFOUND {
			return err
		}
		users := tx.Bucket(bucketAuthCredUsers)
		userKey := credUserKey(c.AccountID, c.UserID)
		if prev := users.Get(userKey); prev != nil && string(prev) != c.ClientID {
			if err := creds.Delete(prev); err != nil {
				return err
			}
		}
		if err := users.Put(userKey, key); err != nil {
			return err
		}
		return authPut(tx, bucketAuthCreds, key, c)
	})
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
	if userID == "" {
		return scopekit.FieldErrorf(scopekit.EINVALID, "user", "a password needs a user")
	}
	return s.update(ctx, func(tx *bolt.Tx) error {
		return authPut(tx, bucketAuthPasswords, []byte(userID), authPassword{Hash: hash})
	})
}

// PasswordHash implements auth.Store.
func (s authStore) PasswordHash(ctx context.Context, userID string) ([]byte, error) {
	var p authPassword
	if err := s.view(ctx, func(tx *bolt.Tx) error {
		return authGet(tx, bucketAuthPasswords, []byte(userID), "password", &p)
	}); err != nil {
		return nil, err
	}
	return p.Hash, nil
}

// PutToken implements auth.Store.
func (s authStore) PutToken(ctx context.Context, t *auth.Token) error {
	if len(t.Digest) == 0 {
		return fmt.Errorf("boltstore: token without digest")
	}
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

// codeExpiryKey orders codes by expiry, so that the expired ones are the
// first keys of auth_code_expiry.
func codeExpiryKey(expires time.Time, digest []byte) []byte {
	k := binary.BigEndian.AppendUint64(nil, uint64(max(expires.UnixNano(), 0)))
	return append(k, digest...)
}

// PutAuthCode implements auth.Store.
func (s authStore) PutAuthCode(ctx context.Context, c *auth.AuthCode) error {
	if len(c.Digest) == 0 {
		return fmt.Errorf("boltstore: code without digest")
	}
	return s.update(ctx, func(tx *bolt.Tx) error {
		codes, exp := tx.Bucket(bucketAuthCodes), tx.Bucket(bucketAuthCodeExp)
		// Purge the codes that expired unused; they are the first keys.
		limit := codeExpiryKey(c.CreatedAt, nil)
		var stale [][]byte
		cur := exp.Cursor()
		for k, _ := cur.First(); k != nil && bytes.Compare(k[:8], limit) < 0; k, _ = cur.Next() {
			stale = append(stale, k)
		}
		for _, k := range stale {
			if err := codes.Delete(k[8:]); err != nil {
				return err
			}
			if err := exp.Delete(k); err != nil {
				return err
			}
		}
		if err := exp.Put(codeExpiryKey(c.ExpiresAt, c.Digest), nil); err != nil {
			return err
		}
		return authPut(tx, bucketAuthCodes, c.Digest, c)
	})
}

// TakeAuthCode implements auth.Store.
func (s authStore) TakeAuthCode(ctx context.Context, digest []byte) (*auth.AuthCode, error) {
	var c auth.AuthCode
	err := s.update(ctx, func(tx *bolt.Tx) error {
		if len(digest) == 0 {
			return scopekit.Errorf(scopekit.ENOTFOUND, "code not found")
		}
		if err := authGet(tx, bucketAuthCodes, digest, "code", &c); err != nil {
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
	return &c, nil
}
