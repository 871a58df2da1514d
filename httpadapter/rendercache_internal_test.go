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

// renderWith renders rec alone through a view of the cache c (nil: none)
// and returns the document's bytes.
func renderWith(t *testing.T, c *renderCache, prefix string, fields map[string][]string, recs ...*engine.Record) string {
	t.Helper()
	v := &view{schema: scoping.DefaultSchema(), prefix: prefix, v2: true, fields: fields, cache: c}
	w := httptest.NewRecorder()
	writeRendered(w, httptest.NewRequest(http.MethodGet, "/", nil), http.StatusOK,
		v.document(&engine.Result{Records: recs, Total: len(recs)}, prefix+"/projects", nil, &jsonapi.Query{PageNumber: 1, PageSize: 250}))
	return w.Body.String()
}

func cacheProject() *engine.Record {
	p := engine.NewRecord("projects", "1")
	p.ID, p.CreatedAt, p.UpdatedAt = "5", "2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z"
	p.Attrs["project-name"], p.Attrs["active"], p.Attrs["mrr-terms"] = "Firewalls", true, json.Number("12")
	p.Attrs["tag-list"] = []any{"network"}
	p.Attrs["user-defined-fields"] = map[string]any{"region": "EMEA"}
	p.Attrs["contract-revenue"] = "100.00"
	p.SetRel("client", "9")
	return p
}

// Ensure a cached rendering is served exactly as a fresh one would be,
// only while the record has every value it was rendered from, under the
// same prefix and without a sparse fieldset; and that the record an entry
// was rendered from serves from then on at once.
func TestRenderCache(t *testing.T) {
	c := newRenderCache()
	const prefix = "http://x/v2"
	p := cacheProject()
	fresh := renderWith(t, nil, prefix, nil, p)
	assert.Equal(t, fresh, renderWith(t, c, prefix, nil, p), "the first rendering")
	e, ok := c.m.Get(renderKey{prefix, "projects", "5"})
	require.True(t, ok)
	assert.Same(t, p, e.rec)
	assert.Equal(t, fresh, renderWith(t, c, prefix, nil, p), "served from the cache")

	// every change of a value renders anew: a copy changed, so the
	// pointer does not match, and the values are compared
	for name, change := range map[string]func(r *engine.Record){
		"attribute":          func(r *engine.Record) { r.Attrs["project-name"] = "Routers" },
		"attribute removed":  func(r *engine.Record) { delete(r.Attrs, "contract-revenue") },
		"number":             func(r *engine.Record) { r.Attrs["mrr-terms"] = json.Number("24") },
		"list":               func(r *engine.Record) { r.Attrs["tag-list"] = []any{"network", "security"} },
		"object":             func(r *engine.Record) { r.Attrs["user-defined-fields"] = map[string]any{"region": "APAC"} },
		"relationship":       func(r *engine.Record) { r.SetRel("client", "10") },
		"relationship added": func(r *engine.Record) { r.SetRel("line-of-business", "3") },
		"updated-at":         func(r *engine.Record) { r.UpdatedAt = "2026-01-03T00:00:00Z" },
	} {
		changed := p.Clone()
		change(changed)
		want := renderWith(t, nil, prefix, nil, changed)
		require.NotEqual(t, fresh, want, name)
		assert.Equal(t, want, renderWith(t, c, prefix, nil, changed), name)
		assert.Equal(t, fresh, renderWith(t, c, prefix, nil, p), "%s: and back", name)
	}

	// the same values in another copy: served, and that copy serves at once
	same := p.Clone()
	assert.Equal(t, fresh, renderWith(t, c, prefix, nil, same))
	e, _ = c.m.Get(renderKey{prefix, "projects", "5"})
	assert.Same(t, same, e.rec)

	assert.Equal(t, renderWith(t, nil, "http://y/v2", nil, p), renderWith(t, c, "http://y/v2", nil, p), "another prefix")
	sparse := map[string][]string{"projects": {"project-name"}}
	assert.Equal(t, renderWith(t, nil, prefix, sparse, p), renderWith(t, c, prefix, sparse, p), "a sparse fieldset")

	// a value sameValue cannot compare is never cached
	odd := cacheProject()
	odd.ID = "6"
	odd.Attrs["executive-summary"] = struct{ X int }{1}
	renderWith(t, c, prefix, nil, odd)
	_, ok = c.m.Get(renderKey{prefix, "projects", "6"})
	assert.False(t, ok)
}
