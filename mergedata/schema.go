package mergedata

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/scopekit/scopekit/pricing"
)

// The description of v2 merge data is generated from the Go types of the
// tree (their json tags), so it can never disagree with what BuildV2
// returns. Types with a JSON encoding of their own are described by what
// they encode: pricing.Fixed as a decimal text, pricing.ResourceTable as
// one list whose items have the fields of both kinds of row.

// SchemaV2ID is the $id of v2's JSON Schema.
const SchemaV2ID = "https://scopekit.dev/schemas/mergedata-v2.schema.json"

// SchemaV2 returns the JSON Schema (draft 2020-12) of v2 merge data,
// indented, ending in a new line: docs/mergedata-v2.schema.json and
// GET /v1/merge-data/schema serve these bytes.
func SchemaV2() []byte {
	s, err := schemaOf(reflect.TypeFor[V2]())
	if err != nil {
		panic(err) // the types are fixed; schema_test.go runs this
	}
	doc := map[string]any{
		"$schema":     "https://json-schema.org/draft/2020-12/schema",
		"$id":         SchemaV2ID,
		"title":       "ScopeKit merge data v2",
		"description": "The tree SOW templates are filled from (docs/mergedata.md); generated from package mergedata's types.",
	}
	for k, v := range s {
		doc[k] = v
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		panic(err)
	}
	return append(b, '\n')
}

var (
	fixedType    = reflect.TypeFor[pricing.Fixed]()
	resourceType = reflect.TypeFor[pricing.ResourceTable]()
	marshaler    = reflect.TypeFor[json.Marshaler]()
	textMarsh    = reflect.TypeFor[encoding.TextMarshaler]()
)

// schemaOf describes the JSON encoding of values of type t.
func schemaOf(t reflect.Type) (map[string]any, error) {
	if t.Kind() == reflect.Pointer { // a value or null, whatever encodes the value
		s, err := schemaOf(t.Elem())
		if err != nil {
			return nil, err
		}
		s["type"] = []any{s["type"], "null"}
		return s, nil
	}
	switch t {
	case fixedType:
		return map[string]any{"type": "string", "format": "decimal"}, nil
	case resourceType:
		rows, err := schemaOf(reflect.TypeFor[pricing.ResourceRow]())
		if err != nil {
			return nil, err
		}
		total, err := schemaOf(reflect.TypeFor[pricing.ResourceTotal]())
		if err != nil {
			return nil, err
		}
		props := rows["properties"].(map[string]any)
		for k, v := range total["properties"].(map[string]any) {
			props[k] = v
		}
		delete(rows, "required") // a field is either a row's or the total row's
		return map[string]any{"type": "array", "items": rows,
			"description": "the resource rows, then the project_total row (resource_slug \"project_total\")"}, nil
	}
	if t.Implements(marshaler) || t.Implements(textMarsh) ||
		(t.Kind() != reflect.Pointer && (reflect.PointerTo(t).Implements(marshaler) || reflect.PointerTo(t).Implements(textMarsh))) {
		return nil, fmt.Errorf("mergedata: schema: %s encodes itself; describe it in schemaOf", t)
	}
	switch t.Kind() {
	case reflect.String:
		return map[string]any{"type": "string"}, nil
	case reflect.Bool:
		return map[string]any{"type": "boolean"}, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}, nil
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}, nil
	case reflect.Interface:
		return map[string]any{}, nil
	case reflect.Slice, reflect.Array:
		items, err := schemaOf(t.Elem())
		if err != nil {
			return nil, err
		}
		return map[string]any{"type": "array", "items": items}, nil
	case reflect.Map:
		vals, err := schemaOf(t.Elem())
		if err != nil {
			return nil, err
		}
		return map[string]any{"type": "object", "additionalProperties": vals}, nil
	case reflect.Struct:
		props := map[string]any{}
		var required []any
		if err := fields(t, props, &required); err != nil {
			return nil, err
		}
		return map[string]any{"type": "object", "properties": props, "required": required,
			"additionalProperties": false}, nil
	}
	return nil, fmt.Errorf("mergedata: schema: cannot describe %s", t)
}

// fields adds the JSON fields of struct type t (embedded structs'
// promoted, as encoding/json does) to props, in order to required.
func fields(t reflect.Type, props map[string]any, required *[]any) error {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" || !f.IsExported() && !f.Anonymous {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			if err := fields(f.Type, props, required); err != nil {
				return err
			}
			continue
		}
		if name == "" {
			name = f.Name
		}
		s, err := schemaOf(f.Type)
		if err != nil {
			return fmt.Errorf("%s.%s: %w", t, f.Name, err)
		}
		props[name] = s
		*required = append(*required, name)
	}
	return nil
}
