package scoping

import (
	"slices"
	"sync"

	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping/views"
)

// declarations lists, in one place, the functions that declare the types
// of each area of the domain; NewSchema calls them in this order.
var declarations = []func(*engine.Schema){
	declareAcceptance,
	declareAccounts,
	declareChangeOrders,
	declareCatalog,
	declareDeployment,
	declareDocuments,
	declareDomains,
	declareEvents,
	declareGovernance,
	declareProjects,
	declareQuestionnaires,
	declareServiceApproval,
	declareSessions,
	declareSingleSignOn,
	declareSurveys,
	declareUDF,
	declareVersions,
	declareWebhooks,
}

// NewSchema declares every resource type of the domain into a new schema
// value and checks the declarations against each other (Schema.Check).
// Each call builds a fresh value; the declarations are static, so an
// error is a programming error.
func NewSchema() (*engine.Schema, error) {
	s := engine.NewSchema(Permissions...)
	for _, declare := range declarations {
		declare(s)
	}
	if err := s.Check(); err != nil {
		return nil, err
	}
	return s, nil
}

// DefaultSchema returns the schema NewSchema builds, built and checked on
// the first call and shared afterwards. It is what the stores are opened
// with for ScopeKit's types, and what services created without a schema
// of their own serve; it panics if the declarations are inconsistent,
// which the test suite rules out.
var DefaultSchema = sync.OnceValue(func() *engine.Schema {
	s, err := NewSchema()
	if err != nil {
		panic("scoping: " + err.Error())
	}
	return s
})

// mustLookup returns the declaration of typ in schema s. The domain's use
// cases name only types it declares, so a missing one is a programming
// error.
func mustLookup(s *engine.Schema, typ string) *engine.TypeDef {
	def, ok := s.Lookup(typ)
	if !ok {
		panic("scoping: no declared type " + typ)
	}
	return def
}

// sortedByDefault are the attributes sort= accepts on every type that has
// them.
var sortedByDefault = map[string]bool{views.NameName: true, views.NamePosition: true, views.NameProjectName: true}

// register adds t to schema s, making the attributes of sortedByDefault
// sortable; a write of a type with stored price figures is served as
// stored (the figures are computed before the commit).
func register(s *engine.Schema, t *engine.TypeDef) *engine.TypeDef {
	if _, priced := figureAttrs[t.Name]; priced {
		t.Reread = true
	}
	if slices.Contains(projectInputTypes, t.Name) {
		scopeLine(t) // changeorders.go
	}
	for i := range t.Attrs {
		if sortedByDefault[t.Attrs[i].Name] {
			t.Attrs[i].Sortable = true
		}
	}
	return s.Register(t)
}
