package scoping_test

import (
	"testing"

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
