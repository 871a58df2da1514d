package httpadapter_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/require"
)

// Ensure the 3.0.3 renderings are valid OpenAPI 3.0 documents (kin-openapi
// loads and validates them as 3.0) and say the same as the 3.1 documents:
// written back in 3.1's notation (nullable: true as a type list with
// "null", an allOf of one branch beside nullable as a oneOf with the null
// type, a nullable object whose one value is null as the null type), each
// is its 3.1 document exactly.
func TestOpenAPI30Rendering(t *testing.T) {
	e := mustEnv(t)
	getJSON := func(path string) map[string]any {
		t.Helper()
		res, err := http.Get(e.srv.URL + path)
		require.NoError(t, err)
		defer res.Body.Close()
		require.Equal(t, http.StatusOK, res.StatusCode)
		require.Equal(t, "application/json", res.Header.Get("Content-Type"))
		var doc map[string]any
		require.NoError(t, json.NewDecoder(res.Body).Decode(&doc))
		return doc
	}
	for _, v := range []string{"v1", "v2"} {
		t.Run(v, func(t *testing.T) {
			doc31 := getJSON("/docs/" + v + "/openapi.json")
			doc30 := getJSON("/docs/" + v + "/openapi-3.0.json")

			raw, err := json.Marshal(doc30)
			require.NoError(t, err)
			loaded, err := openapi3.NewLoader().LoadFromData(raw)
			require.NoError(t, err)
			require.Equal(t, "3.0.3", loaded.OpenAPI)
			require.False(t, loaded.IsOpenAPI31OrLater())
			require.NoError(t, loaded.Validate(context.Background()))
			status := loaded.Components.Schemas["projects"].Value.Properties["attributes"].Value.Properties["status"].Value
			require.True(t, status.Nullable, "a nullable attribute is nullable: true")
			require.Equal(t, "string", status.Type.Slice()[0])
			require.Len(t, status.Type.Slice(), 1)
			require.Contains(t, status.Enum, nil)

			nulls := 0
			back := to31(t, doc30, &nulls)
			require.Greater(t, nulls, 100, "the documents have nullable attributes to rewrite")
			back.(map[string]any)["openapi"] = doc31["openapi"]
			require.Equal(t, doc31, back, "the rendering says what the 3.1 document says")
		})
	}
}

// to31 writes a 3.0 rendering back in 3.1's notation, counting the
// nullable schemas it rewrites.
func to31(t *testing.T, v any, nulls *int) any {
	switch v := v.(type) {
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = to31(t, e, nulls)
		}
		return out
	case map[string]any:
		out := map[string]any{}
		for k, e := range v {
			out[k] = to31(t, e, nulls)
		}
		if out["nullable"] != true {
			return out
		}
		*nulls++
		delete(out, "nullable")
		if e, ok := out["enum"].([]any); ok && len(e) == 1 && e[0] == nil && out["type"] == "object" {
			delete(out, "enum")
			out["type"] = "null" // the null type alone
			return out
		}
		if typ, ok := out["type"].(string); ok {
			out["type"] = []any{typ, "null"}
			return out
		}
		branches, ok := out["allOf"].([]any)
		require.True(t, ok && len(branches) == 1, "nullable beside a type or an allOf of one: %v", v)
		delete(out, "allOf")
		out["oneOf"] = []any{branches[0], map[string]any{"type": "null"}}
		return out
	}
	return v
}
