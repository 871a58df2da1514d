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
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping"
	bolt "go.etcd.io/bbolt"
)

// ErrLocked is returned by Open when another process holds the file.
var ErrLocked = errors.New("database file is in use by another process")

// DB is an open ScopeKit database file.
type DB struct {
	bolt   *bolt.DB
	path   string
	schema *engine.Schema
	// Now is the clock used for timestamps; tests may replace it.
	Now func() time.Time

	tokenCache decodeCache[auth.Token]
	credCache  decodeCache[auth.ServiceCredential]
	appCache   decodeCache[auth.Application]
	shared     sharedRecords
	versions   versions
}

// An Option configures Open.
type Option func(*DB)

// WithSchema makes the store index and list the types of schema (by
// default scoping.DefaultSchema()). A scoping.Service created over the
// store serves the same schema unless given another.
func WithSchema(schema *engine.Schema) Option { return func(db *DB) { db.schema = schema } }

// Open opens (creating if missing) the bbolt file at path. It waits at most
// one second for the file lock and then fails with ErrLocked, so that a
// second server on the same file stops at once with one clear line.
func Open(path string, opts ...Option) (*DB, error) {
	b, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	if errors.Is(err, bolt.ErrTimeout) {
		return nil, fmt.Errorf("open %s: %w", path, ErrLocked)
	}
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	db := &DB{bolt: b, path: path, Now: func() time.Time { return time.Now().UTC() }, versions: newVersions()}
	for _, o := range opts {
		o(db)
	}
	if db.schema == nil {
		db.schema = scoping.DefaultSchema()
	}
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
	if err := hashLongIndexKeys(b); err != nil {
		b.Close()
		return nil, fmt.Errorf("open %s: rewrite index keys: %w", path, err)
	}
	if err := moveCredUserIndex(b); err != nil {
		b.Close()
		return nil, fmt.Errorf("open %s: rewrite credential index: %w", path, err)
	}
	return db, nil
}

// rootBuckets are created on open. Each file of this package that owns a
// bucket adds its name in an init function.
var rootBuckets []string

// Path returns the file path of the database.
func (db *DB) Path() string { return db.path }

// Schema returns the types the store indexes.
func (db *DB) Schema() *engine.Schema { return db.schema }

// Close closes the database file.
func (db *DB) Close() error { return db.bolt.Close() }

// Bolt exposes the underlying bbolt handle for consistency checks in tests.
// Writes through it are not counted by TypeVersion, so callers that cache
// by version would not see them: read only.
func (db *DB) Bolt() *bolt.DB { return db.bolt }
