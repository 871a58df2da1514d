package httpadapter

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// Ensure the 3.0 rendering rewrites 3.1's nullable notation, leaves names
// that look like keywords alone, does not change the document it renders,
// and refuses what 3.0 cannot say the same way, naming where it is.
func TestOpenAPI30Conversion(t *testing.T) {
	parse := func(s string) map[string]any {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(s), &m))
		return m
	}
	for _, tc := range []struct {
		name, in, want, err string
	}{
		{name: "type list", in: `{"openapi":"3.1.0","components":{"schemas":{"a":{"type":["string","null"],"enum":["x",null]}}}}`,
			want: `{"openapi":"3.0.3","components":{"schemas":{"a":{"type":"string","nullable":true,"enum":["x",null]}}}}`},
		{name: "type list of one", in: `{"components":{"schemas":{"a":{"type":["integer"]}}}}`,
			want: `{"openapi":"3.0.3","components":{"schemas":{"a":{"type":"integer"}}}}`},
		{name: "oneOf with null", in: `{"components":{"schemas":{"a":{"oneOf":[{"$ref":"#/components/schemas/b"},{"type":"null"}]}}}}`,
			want: `{"openapi":"3.0.3","components":{"schemas":{"a":{"allOf":[{"$ref":"#/components/schemas/b"}],"nullable":true}}}}`},
		{name: "anyOf of two with null", in: `{"components":{"schemas":{"a":{"anyOf":[{"type":"string"},{"type":["integer","null"]},{"type":"null"}]}}}}`,
			want: `{"openapi":"3.0.3","components":{"schemas":{"a":{"anyOf":[{"type":"string"},{"type":"integer","nullable":true}],"nullable":true}}}}`},
		{name: "names that look like keywords", in: `{"paths":{"/if":{"get":{"responses":{"200":{"content":{"application/json":{"schema":{"properties":{"const":{"type":"string"},"if":{"properties":{"then":{"type":["boolean","null"]}}}}}}}}}}}}}`,
			want: `{"openapi":"3.0.3","paths":{"/if":{"get":{"responses":{"200":{"content":{"application/json":{"schema":{"properties":{"const":{"type":"string"},"if":{"properties":{"then":{"type":"boolean","nullable":true}}}}}}}}}}}}}`},
		{name: "two types", in: `{"components":{"schemas":{"a":{"type":["string","integer"]}}}}`, err: "/components/schemas/a/type"},
		{name: "null type alone", in: `{"components":{"schemas":{"a":{"properties":{"b":{"type":"null"}}}}}}`,
			want: `{"openapi":"3.0.3","components":{"schemas":{"a":{"properties":{"b":{"type":"object","nullable":true,"enum":[null]}}}}}}`},
		{name: "null type with an enum", in: `{"components":{"schemas":{"a":{"properties":{"b":{"type":"null","enum":[null]}}}}}}`, err: "/components/schemas/a/properties/b is the null type with an enum"},
		{name: "const", in: `{"components":{"schemas":{"a":{"properties":{"x/y":{"const":"v"}}}}}}`, err: "/components/schemas/a/properties/x~1y/const is a 3.1 keyword"},
		{name: "examples list", in: `{"components":{"schemas":{"a":{"type":"string","examples":["x"]}}}}`, err: "/components/schemas/a/examples"},
		{name: "ref with siblings", in: `{"components":{"schemas":{"a":{"$ref":"#/components/schemas/b","description":"d"}}}}`, err: "/components/schemas/a/$ref has siblings"},
		{name: "webhooks", in: `{"webhooks":{}}`, err: "webhooks"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := parse(tc.in)
			got, err := openAPI30(in)
			require.Equal(t, parse(tc.in), in, "the document rendered is unchanged")
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, parse(tc.want), got)
		})
	}
}
