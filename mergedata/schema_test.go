package mergedata_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/scopekit/scopekit/mergedata"
	"github.com/stretchr/testify/require"
)

// Ensure docs/mergedata-v2.schema.json is what SchemaV2 generates (run
// go test ./mergedata -run Schema -update after changing a type).
func TestSchemaV2Fresh(t *testing.T) {
	file := filepath.Join("..", "docs", "mergedata-v2.schema.json")
	got := mergedata.SchemaV2()
	if *update {
		require.NoError(t, os.WriteFile(file, got, 0o644))
	}
	want, err := os.ReadFile(file)
	require.NoError(t, err)
	require.Equal(t, string(want), string(got), "docs/mergedata-v2.schema.json is stale: go test ./mergedata -run Schema -update")
}

// Ensure the demo project's v2 tree has exactly the fields the schema
// describes, at every level.
func TestSchemaV2DescribesTree(t *testing.T) {
	e := mustEnv(t)
	b, err := json.Marshal(mergedata.BuildV2(e.snapshot(e.seedDemo().ProjectID), now))
	require.NoError(t, err)
	var tree, schema any
	require.NoError(t, json.Unmarshal(b, &tree))
	require.NoError(t, json.Unmarshal(mergedata.SchemaV2(), &schema))
	conforms(t, "", schema.(map[string]any), tree)
}

func conforms(t *testing.T, at string, s map[string]any, v any) {
	t.Helper()
	switch x := v.(type) {
	case map[string]any:
		props, _ := s["properties"].(map[string]any)
		if props == nil {
			return // a map of any keys (user_defined_fields)
		}
		for k, fv := range x {
			ps, ok := props[k].(map[string]any)
			require.True(t, ok, "%s.%s is not in the schema", at, k)
			conforms(t, at+"."+k, ps, fv)
		}
		if req, ok := s["required"].([]any); ok {
			for _, k := range req {
				require.Contains(t, x, k, "%s lacks %s", at, k)
			}
		}
	case []any:
		items, ok := s["items"].(map[string]any)
		require.True(t, ok, "%s is a list the schema does not describe", at)
		for _, it := range x {
			conforms(t, at+"[]", items, it)
		}
	}
}
