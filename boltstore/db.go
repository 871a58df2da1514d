// Package boltstore implements the Store interfaces of scoping and auth on
// one embedded bbolt file. Filters, sort and paging are evaluated inside the
// store's list call, writes that belong together commit in one bbolt
// transaction, and a second process opening the same file fails fast.
package boltstore

import (
	"errors"
	"fmt"
	"time"

	"github.com/scopekit/scopekit/auth"
	bolt "go.etcd.io/bbolt"
)

// ErrLocked is returned by Open when another process holds the file.
var ErrLocked = errors.New("database file is in use by another process")

// DB is an open ScopeKit database file.
type DB struct {
	bolt *bolt.DB
	path string
	// Now is the clock used for timestamps; tests may replace it.
	Now func() time.Time

	tokenCache decodeCache[auth.Token]
	credCache  decodeCache[auth.ServiceCredential]
	shared     sharedRecords
}

// Open opens (creating if missing) the bbolt file at path. It waits at most
// one second for the file lock and then fails with ErrLocked, so that a
// second server on the same file stops at once with one clear line.
func Open(path string) (*DB, error) {
	b, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	if errors.Is(err, bolt.ErrTimeout) {
		return nil, fmt.Errorf("open %s: %w", path, ErrLocked)
	}
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	db := &DB{bolt: b, path: path, Now: func() time.Time { return time.Now().UTC() }}
	if err := b.Update(func(tx *bolt.Tx) error {
		for _, name := range rootBuckets {
			if _, err := tx.CreateBucketIfNotExists([]byte(name)); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		b.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	if err := migrateJSON(b); err != nil {
		b.Close()
		return nil, fmt.Errorf("open %s: rewrite records: %w", path, err)
	}
	return db, nil
}

// rootBuckets are created on open. Each file of this package that owns a
// bucket adds its name in an init function.
var rootBuckets []string

// Path returns the file path of the database.
func (db *DB) Path() string { return db.path }

// Close closes the database file.
func (db *DB) Close() error { return db.bolt.Close() }

// Bolt exposes the underlying bbolt handle for consistency checks in tests.
func (db *DB) Bolt() *bolt.DB { return db.bolt }
