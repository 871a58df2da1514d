// Package boltstore implements the Store interfaces of the engine, auth
// and webhook on one embedded bbolt file, for the types of the schema it
// is opened with. Filters, sort and paging are evaluated inside the
// store's list call, writes that belong together commit in one bbolt
// transaction, and a second process opening the same file fails fast.
package boltstore

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"time"

	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/engine"
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

// ErrNoSchema is returned by Open and OpenReadOnly without a schema.
var ErrNoSchema = errors.New("boltstore: no schema given (ScopeKit's is scoping.DefaultSchema())")

// Open opens (creating if missing) the bbolt file at path, indexing and
// listing the types of schema (scoping.DefaultSchema() for ScopeKit's
// own; a scoping.Service created over the store serves the same schema
// unless given another). It waits at most one second for the file lock
// and then fails with ErrLocked, so that a second server on the same file
// stops at once with one clear line.
func Open(path string, schema *engine.Schema) (*DB, error) {
	db, err := open(path, false, schema)
	if err != nil {
		return nil, err
	}
	b := db.bolt
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

// OpenReadOnly opens the existing bbolt file at path for reading only,
// for tools that copy a file no server is serving (package storemove):
// nothing is written, not even the upgrades Open applies (reads serve
// both forms of every upgrade), and several readers may share the file.
// A process that has it open for writing (a running server) makes it fail
// with ErrLocked after one second. Writes through it fail.
func OpenReadOnly(path string, schema *engine.Schema) (*DB, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, err // read-only bbolt creates no file; say so in one clause
	}
	return open(path, true, schema)
}

// open opens the bbolt file for schema.
func open(path string, readOnly bool, schema *engine.Schema) (*DB, error) {
	if schema == nil {
		return nil, ErrNoSchema
	}
	o := &bolt.Options{Timeout: time.Second, ReadOnly: readOnly}
	if !readOnly {
		o.InitialMmapSize = initialMmapSize
	}
	b, err := bolt.Open(path, 0o600, o)
	if errors.Is(err, bolt.ErrTimeout) {
		return nil, fmt.Errorf("open %s: %w", path, ErrLocked)
	}
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	return &DB{bolt: b, path: path, schema: schema, Now: func() time.Time { return time.Now().UTC() }, versions: newVersions()}, nil
}

// initialMmapSize is the memory map bbolt starts with: address space, not
// memory. A write that outgrows the map waits for every read transaction
// to end, and so would wait for a backup (Backup) being downloaded; a map
// of 1 GB from the start spares writes that wait below that size. (bbolt
// then grows the file in steps of 16 MB, its AllocSize, instead of to the
// map's size; the steps are sparse where the file system allows.) Windows
// would grow the file itself to the map's size, and 32-bit address space
// is short: there bbolt's default (grow as needed) stays.
var initialMmapSize = func() int {
	if strconv.IntSize == 64 && runtime.GOOS != "windows" {
		return 1 << 30
	}
	return 0
}()

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
