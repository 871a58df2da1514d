package jsonapi_test

import (
	"maps"
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/scopekit/scopekit/jsonapi"
)

// mapFields is a FieldSource over the maps of a resource, written by name.
type mapFields struct{ r *jsonapi.Resource }

func (f mapFields) WriteAttributes(m *jsonapi.Members) {
	for _, k := range slices.Sorted(maps.Keys(f.r.Attributes)) {
		if s, ok := f.r.Attributes[k].(string); ok {
			m.String(k, s)
		} else {
			m.Value(k, f.r.Attributes[k])
		}
	}
}

func (f mapFields) WriteRelationships(m *jsonapi.Members) {
	for _, k := range slices.Sorted(maps.Keys(f.r.Relationships)) {
		m.Relationship(k, f.r.Relationships[k])
	}
}

// withFields returns a copy of r whose fields come from a FieldSource,
// with maps that the source must take precedence over.
func withFields(r *jsonapi.Resource) *jsonapi.Resource {
	c := *r
	c.Attributes = map[string]any{"ignored": true}
	c.Relationships = nil
	c.Fields = mapFields{r}
	return &c
}

// Ensure a resource written from a FieldSource is byte for byte the one
// written from its maps, alone, in a list beside resources with maps, and
// included: HTML characters, nulls and empty objects too.
func TestFieldSourceMatchesMaps(t *testing.T) {
	list := append(page250().DataList[:3],
		&jsonapi.Resource{Type: "t", ID: "<1>", Attributes: map[string]any{"a<&>": "x\u2028<y>", "n": nil, "f": 1e21, "l": []any{}},
			Relationships: map[string]*jsonapi.Relationship{"nil": nil, "none": {ToMany: true, HasData: true}}},
		&jsonapi.Resource{Type: "t", ID: "2", Links: jsonapi.Links{"self": "x"}},
		&jsonapi.Resource{Type: "t", ID: "3", Attributes: map[string]any{}, Meta: map[string]any{"m": 1}})
	docs := func(list []*jsonapi.Resource) []*jsonapi.Document {
		return []*jsonapi.Document{{List: true, DataList: list}, {Data: list[0], Included: list[1:]}}
	}
	want := docs(list)
	mixed := slices.Clone(list)
	for i := range mixed {
		if i%2 == 0 {
			mixed[i] = withFields(mixed[i])
		}
	}
	// the edge cases are not valid JSON:API (member names, a null
	// relationship): only the bytes are compared, not checked against the
	// schema
	marshal := func(d *jsonapi.Document) string {
		b, err := d.MarshalJSON()
		require.NoError(t, err)
		return string(b)
	}
	for i, doc := range docs(mixed) {
		assert.Equal(t, marshal(want[i]), marshal(doc))
	}
}

// failingFields writes a member after one that fails.
type failingFields struct{ rel bool }

func (f failingFields) WriteAttributes(m *jsonapi.Members) {
	if !f.rel {
		m.Value("x", math.NaN())
	}
	m.String("after", "not written")
}

func (f failingFields) WriteRelationships(m *jsonapi.Members) {
	if f.rel {
		m.Relationship("r", &jsonapi.Relationship{ToMany: true})
	}
}

// Ensure a member a FieldSource cannot write fails the document, as the
// same value in a map does.
func TestFieldSourceErrors(t *testing.T) {
	for want, f := range map[string]failingFields{"unsupported value": {}, "neither data nor links": {rel: true}} {
		_, err := (&jsonapi.Document{Data: &jsonapi.Resource{Type: "t", ID: "1", Fields: f}}).MarshalJSON()
		assert.ErrorContains(t, err, want)
	}
}
