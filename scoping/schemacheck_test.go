package scoping_test

import (
	"testing"

	"github.com/scopekit/scopekit/boltstore/bolttest"
	"github.com/scopekit/scopekit/engine"
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

// Ensure AttrsByName and RelsByName list every declaration once, sorted by
// name, and point into the declarations themselves.
func TestDeclarationsByName(t *testing.T) {
	for _, def := range scoping.DefaultSchema().Types() {
		attrs, rels := def.AttrsByName(), def.RelsByName()
		if len(attrs) != len(def.Attrs) || len(rels) != len(def.Rels) {
			t.Fatalf("%s: %d of %d attributes, %d of %d relationships", def.Name, len(attrs), len(def.Attrs), len(rels), len(def.Rels))
		}
		for i, a := range attrs {
			if d, _ := def.Attr(a.Name); d != a || i > 0 && attrs[i-1].Name >= a.Name {
				t.Errorf("%s: attribute %d %q out of order or not declared", def.Name, i, a.Name)
			}
		}
		for i, r := range rels {
			if d, _ := def.Rel(r.Name); d != r || i > 0 && rels[i-1].Name >= r.Name {
				t.Errorf("%s: relationship %d %q out of order or not declared", def.Name, i, r.Name)
			}
		}
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
	db := bolttest.Open(t, s)
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
type plainStore struct{ engine.Store }
