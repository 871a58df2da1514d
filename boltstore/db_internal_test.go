package boltstore

import (
	"testing"

	"github.com/scopekit/scopekit/internal/boltcheck"
	"github.com/scopekit/scopekit/scoping"
)

// openTest opens the file at path for ScopeKit's types. When t ends the
// file is checked for consistency, as bolttest does for the package's
// external tests, and closed.
func openTest(t testing.TB, path string) *DB {
	t.Helper()
	db, err := Open(path, scoping.DefaultSchema())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := boltcheck.Closed(db.bolt, path); err != nil {
			t.Error(err)
		}
		db.Close()
	})
	return db
}
