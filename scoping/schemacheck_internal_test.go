package scoping

import (
	"strings"
	"testing"

	"github.com/scopekit/scopekit/engine"
)

// Ensure Check names each kind of broken declaration.
func TestCheckSchemaFindsBrokenDeclarations(t *testing.T) {
	s := engine.NewSchema(Permissions...)
	for _, declare := range declarations {
		declare(s)
	}
	register(s, &TypeDef{Name: "broken-things", Guard: "no-such-permission", ScopeRel: "owner",
		Attrs: []AttrDef{str("name")},
		Rels: []RelDef{to1("ghost", "no-such-type"), inverse("children", "projects", "parent"),
			{Name: "pals", Type: "users", ToMany: true, Through: "project-teammates", From: "project", To: "user"}},
		Filters: map[string]FilterDef{"colour": {Op: OpIn}, "name": {Op: OpContains}}})
	err := s.Check()
	if err == nil {
		t.Fatal("no error for a broken declaration")
	}
	for _, want := range []string{
		`guard "no-such-permission" is not a permission`,
		`scope relationship "owner" is not declared`,
		`relationship ghost names undeclared type "no-such-type"`,
		`inverse relationship children: projects has no stored relationship "parent" to broken-things`,
		`through relationship pals: project-teammates has no relationship "project" to broken-things`,
		`filter colour compares undeclared field "colour"`,
	} {
		if !strings.Contains(err.Error(), "broken-things: "+want) {
			t.Errorf("missing %q in:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), "filter name") {
		t.Errorf("a filter on a declared field reported: %v", err)
	}
}
