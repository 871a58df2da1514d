package httpadapter_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Ensure the references are valid OpenAPI 3 documents that mirror the type
// declarations: every served type with its paths, read-only types without
// writes, computed attributes read-only, v2 only the curated set.
func TestOpenAPIReference(t *testing.T) {
	e := mustEnv(t)
	for _, tc := range []struct {
		path   string
		v2     bool
		prefix string
	}{{"/docs/v2/swagger", true, "/v2"}, {"/docs/v1", false, "/{slug}/v1"}, {"/", false, "/{slug}/v1"}} {
		t.Run(tc.path, func(t *testing.T) {
			r, err := http.Get(e.srv.URL + tc.path) // public: no token
			require.NoError(t, err)
			defer r.Body.Close()
			require.Equal(t, http.StatusOK, r.StatusCode)
			assert.Equal(t, "application/json", r.Header.Get("Content-Type"))
			var raw json.RawMessage
			require.NoError(t, json.NewDecoder(r.Body).Decode(&raw))
			doc, err := openapi3.NewLoader().LoadFromData(raw)
			require.NoError(t, err)
			require.NoError(t, doc.Validate(context.Background()))

			for _, def := range scoping.Types() {
				coll := doc.Paths.Find(tc.prefix + "/" + def.Name)
				if !def.Served() || (tc.v2 && !def.V2) {
					assert.Nil(t, coll, def.Name)
					continue
				}
				require.NotNil(t, coll, def.Name)
				assert.NotNil(t, coll.Get, def.Name)
				assert.Equal(t, !def.ReadOnly || def.Hooks.Create != nil, coll.Post != nil, def.Name)
				one := doc.Paths.Find(tc.prefix + "/" + def.Name + "/{id}")
				require.NotNil(t, one, def.Name)
				assert.Equal(t, !def.ReadOnly, one.Patch != nil, def.Name)
			}
			projects := doc.Components.Schemas["projects"].Value.Properties["attributes"].Value.Properties
			assert.True(t, projects["contract-revenue"].Value.ReadOnly)
			assert.False(t, projects["project-name"].Value.ReadOnly)
			assert.Equal(t, []any{"draft", "pending_approval", "approved", "won", "lost", "canceled"}, projects["status"].Value.Enum)
		})
	}
}
