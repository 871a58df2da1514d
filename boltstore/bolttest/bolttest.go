// Package bolttest gives tests a boltstore database checked for
// consistency (bbolt's Tx.Check) when the test ends.
package bolttest

import (
	"path/filepath"
	"testing"

	"github.com/scopekit/scopekit/boltstore"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/internal/boltcheck"
)

// Open opens a new database file in tb's temp dir for the types of schema
// (scoping.DefaultSchema() for ScopeKit's). When tb ends it checks the
// file and closes it.
func Open(tb testing.TB, schema *engine.Schema) *boltstore.DB {
	tb.Helper()
	return OpenFile(tb, filepath.Join(tb.TempDir(), "t.db"), schema)
}

// OpenFile opens the database file at path (created when missing), for a
// test that reopens a file or hands it to something else. When tb ends it
// checks the file, whether the test closed it or not (a file the test
// removed is not checked), and closes it.
func OpenFile(tb testing.TB, path string, schema *engine.Schema) *boltstore.DB {
	tb.Helper()
	db, err := boltstore.Open(path, schema)
	if err != nil {
		tb.Fatalf("bolttest: %v", err)
	}
	tb.Cleanup(func() {
		if err := boltcheck.Closed(db.Bolt(), path); err != nil {
			tb.Error(err)
		}
		db.Close() // a second Close is no error
	})
	return db
}
