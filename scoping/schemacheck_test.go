package scoping_test

import (
	"path/filepath"
	"testing"

	"github.com/scopekit/scopekit/boltstore"
	"github.com/scopekit/scopekit/scoping"
)

// Ensure the declarations are consistent with each other.
func TestCheckSchema(t *testing.T) {
	s, err := scoping.NewSchema()
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Types()) == 0 {
		t.Fatal("NewSchema declared no types")
	}
	if s2, _ := scoping.NewSchema(); s2 == s || s2.Types()[0] == s.Types()[0] {
		t.Error("NewSchema shares declarations between calls")
	}
}

// Ensure the schema is injected: a store opened with a schema indexes it,
// a service over that store serves it unless given another, and a store
// that reports none leaves the service on DefaultSchema.
func TestSchemaInjected(t *testing.T) {
	s, err := scoping.NewSchema()
	if err != nil {
		t.Fatal(err)
	}
	db, err := boltstore.Open(filepath.Join(t.TempDir(), "t.db"), boltstore.WithSchema(s))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if db.Schema() != s || scoping.NewService(db).Schema() != s {
		t.Error("the service does not serve the schema its store was opened with")
	}
	other, _ := scoping.NewSchema()
	if scoping.NewService(db, scoping.WithSchema(other)).Schema() != other {
		t.Error("WithSchema ignored")
	}
	if scoping.NewService(plainStore{db}).Schema() != scoping.DefaultSchema() {
		t.Error("a store without a schema does not default to DefaultSchema")
	}
	if scoping.DefaultSchema() != scoping.DefaultSchema() {
		t.Error("DefaultSchema is built more than once")
	}
}

// plainStore hides the Schema method of the store it wraps.
type plainStore struct{ scoping.Store }
