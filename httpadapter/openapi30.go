package httpadapter

import (
	"fmt"
	"strings"
)

// The OpenAPI 3.0.3 rendering of a reference. The documents are OpenAPI
// 3.1, and the only 3.1 notation they use is a nullable type, written as a
// list of types (["string", "null"]); OpenAPI 3.0 writes it `nullable: true`.
// The rendering exists for readers of 3.0 and for the reference pages:
// Swagger UI reads a 3.1 document through a second object model of the
// whole document (ApiDOM), which costs the browser over two seconds on the
// 1.5 MB v1 document before the page answers, and reads the same document
// as 3.0 in well under one (BenchmarkReferencePageUsable; BENCHMARKS.md).
//
// openAPI30 is strict: what 3.0 cannot say the same way (a type list
// beyond one type and null, `const`, the 3.1-only schema keywords, a
// `$ref` with siblings, webhooks) is an error naming where it is, so the
// rendering never says less than the document. TestOpenAPI30Rendering
// turns the rendering back into 3.1 notation and finds the document.

// openAPI30Version is the version the rendering declares.
const openAPI30Version = "3.0.3"

// keywords31 are the JSON Schema keywords of OpenAPI 3.1 that 3.0 does not
// know.
var keywords31 = map[string]bool{
	"const": true, "prefixItems": true, "$defs": true, "$schema": true, "$id": true, "$anchor": true,
	"$dynamicRef": true, "$dynamicAnchor": true, "$comment": true, "if": true, "then": true, "else": true,
	"dependentRequired": true, "dependentSchemas": true, "unevaluatedProperties": true,
	"unevaluatedItems": true, "contentMediaType": true, "contentEncoding": true, "contentSchema": true,
	"propertyNames": true, "patternProperties": true, "minContains": true, "maxContains": true, "contains": true,
}

// nameMaps are the keys whose values map names (of properties, paths,
// status codes, media types …) to objects: their keys are not keywords.
var nameMaps = map[string]bool{
	"properties": true, "schemas": true, "paths": true, "responses": true, "parameters": true,
	"securitySchemes": true, "content": true, "headers": true, "examples": true, "links": true,
	"callbacks": true, "scopes": true, "encoding": true, "variables": true, "mapping": true,
	"requestBodies": true, "flows": true,
}

// openAPI30 returns the OpenAPI 3.0.3 rendering of an OpenAPI 3.1 document
// built by OpenAPI, or an error naming the first part 3.0 cannot express.
// doc is not changed.
func openAPI30(doc map[string]any) (map[string]any, error) {
	for _, k := range []string{"webhooks", "jsonSchemaDialect"} {
		if _, ok := doc[k]; ok {
			return nil, fmt.Errorf("openapi 3.0: %s has no 3.0 form", k)
		}
	}
	out, err := to30(doc, "", false)
	if err != nil {
		return nil, err
	}
	m := out.(map[string]any)
	m["openapi"] = openAPI30Version
	return m, nil
}

// to30 converts one value at the JSON pointer at; names says the value's
// keys are names (a properties or paths map …), not keywords.
func to30(v any, at string, names bool) (any, error) {
	switch v := v.(type) {
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			c, err := to30(e, fmt.Sprintf("%s/%d", at, i), false)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	case map[string]any:
		if names {
			out := make(map[string]any, len(v))
			for k, e := range v {
				c, err := to30(e, at+"/"+pointerToken(k), false)
				if err != nil {
					return nil, err
				}
				out[k] = c
			}
			return out, nil
		}
		s, err := nullable30(v, at)
		if err != nil {
			return nil, err
		}
		for k, e := range s {
			at := at + "/" + pointerToken(k)
			if keywords31[k] {
				return nil, fmt.Errorf("openapi 3.0: %s is a 3.1 keyword", at)
			}
			if _, list := e.([]any); list && k == "examples" {
				return nil, fmt.Errorf("openapi 3.0: %s is a list of examples, a 3.1 schema keyword", at)
			}
			if k == "$ref" && len(s) > 1 {
				return nil, fmt.Errorf("openapi 3.0: %s has siblings, which 3.0 ignores", at)
			}
			c, err := to30(e, at, nameMaps[k])
			if err != nil {
				return nil, err
			}
			s[k] = c
		}
		return s, nil
	}
	return v, nil
}

// nullable30 returns a shallow copy of an object (a schema or any other)
// with its 3.1 nullability rewritten: a type list of one type
// and "null" becomes the type and `nullable: true`; a oneOf or anyOf with a
// {"type": "null"} branch loses the branch and gains `nullable: true` (one
// branch left becomes an allOf of it, as 3.0 lets nullable sit beside a
// reference only that way); the null type alone becomes a nullable object
// whose one value is null.
func nullable30(obj map[string]any, at string) (map[string]any, error) {
	s := make(map[string]any, len(obj))
	for k, v := range obj {
		s[k] = v
	}
	switch t := s["type"].(type) {
	case []any:
		var types []string
		null := false
		for _, e := range t {
			name, _ := e.(string)
			if name == "null" {
				null = true
				continue
			}
			types = append(types, name)
		}
		if len(types) != 1 || types[0] == "" {
			return nil, fmt.Errorf("openapi 3.0: %s/type %v is not one type, or one type and null", at, t)
		}
		s["type"] = types[0]
		if null {
			s["nullable"] = true
		}
	case string:
		if t == "null" { // null only: 3.0 says it as a nullable type whose one value is null
			if _, ok := s["enum"]; ok {
				return nil, fmt.Errorf("openapi 3.0: %s is the null type with an enum", at)
			}
			s["type"], s["nullable"], s["enum"] = "object", true, []any{nil}
		}
	}
	for _, k := range []string{"oneOf", "anyOf"} {
		branches, ok := s[k].([]any)
		if !ok {
			continue
		}
		var kept []any
		for _, b := range branches {
			if m, ok := b.(map[string]any); ok && len(m) == 1 && m["type"] == "null" {
				s["nullable"] = true
				continue
			}
			kept = append(kept, b)
		}
		switch {
		case len(kept) == len(branches):
		case len(kept) == 1:
			delete(s, k)
			s["allOf"] = append(append([]any{}, asList(s["allOf"])...), kept[0])
		default:
			s[k] = kept
		}
	}
	return s, nil
}

// pointerToken escapes a key as a JSON pointer token (RFC 6901).
func pointerToken(k string) string { return strings.NewReplacer("~", "~0", "/", "~1").Replace(k) }

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}
