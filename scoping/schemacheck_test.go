package scoping_test

import (
	"testing"

	"github.com/scopekit/scopekit/scoping"
)

// Ensure the declarations are consistent with each other.
func TestCheckSchema(t *testing.T) {
	if err := scoping.CheckSchema(); err != nil {
		t.Fatal(err)
	}
}
