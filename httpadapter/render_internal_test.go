package httpadapter

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/jsonapi"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Ensure the maps a written document gives back to the pools come back
// empty: a resource rendered after a larger one (another type, a sparse
// fieldset) shows its own members only.
func TestRenderedMapsReused(t *testing.T) {
	project := engine.NewRecord("projects", "1")
	project.ID = "5"
	project.Attrs["project-name"] = "Big"
	project.SetRel("client", "9")
	client := engine.NewRecord("clients", "1")
	client.ID = "9"
	client.Attrs["name"] = "Globex"
	write := func(v *view, rec *engine.Record) map[string]any {
		w := httptest.NewRecorder()
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		writeRendered(w, r, http.StatusOK, v.document(&engine.Result{Records: []*engine.Record{rec}, Single: true}, "http://x/self", nil, &jsonapi.Query{}))
		var doc struct{ Data map[string]any }
		require.NoError(t, json.Unmarshal(w.Body.Bytes(), &doc), w.Body.String())
		return doc.Data
	}
	for range 3 {
		p := write(&view{schema: scoping.DefaultSchema(), prefix: "http://x/v2", v2: true}, project)
		assert.Equal(t, "Big", p["attributes"].(map[string]any)["project-name"])
		c := write(&view{schema: scoping.DefaultSchema(), prefix: "http://x/v2", v2: true, fields: map[string][]string{"clients": {"name"}}}, client)
		assert.Equal(t, map[string]any{"name": "Globex"}, c["attributes"])
		assert.NotContains(t, c, "relationships")
	}
}
