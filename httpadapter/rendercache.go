package httpadapter

import (
	"encoding/json"

	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/internal/bounded"
	"github.com/scopekit/scopekit/jsonapi"
)

// The rendered JSON of records, kept to serve again: a list page renders
// hundreds of records whose JSON rarely changes between two reads, and
// encoding them was most of the page's cost. An entry holds the values
// it was rendered from (every attribute and stored relationship the JSON
// shows, and the record's times) and serves only a record that has
// exactly those values, under the same URL prefix: a record changed in
// any way, by anyone, renders anew. Nothing is trusted but the values
// themselves, so the cache cannot serve what a record no longer says;
// except that the very record an entry was rendered from serves at once:
// a record a store shares between readers (engine.Query.Shared) is never
// changed, and comparing its values was most of what the cache cost.

// renderCacheSize bounds the records kept (a few pages of the largest
// size); a full shard starts over.
const renderCacheSize = 4096

type renderKey struct{ prefix, typ, id string }

// rendered is one record's JSON and what it was rendered from.
type rendered struct {
	rec              *engine.Record // the record itself
	attrs            []any          // by def.AttrsByName, created-at and updated-at as nil
	rels             [][]string     // by def.RelsByName, nil for relationships without linkage
	created, updated string
	json             jsonapi.Raw
}

type renderCache struct {
	m *bounded.Sharded[renderKey, *rendered]
}

func newRenderCache() *renderCache {
	return &renderCache{m: bounded.NewSharded[renderKey, *rendered](renderCacheSize)}
}

// get returns the JSON of rec as rendered under prefix before, if rec
// still has the values it was rendered from.
func (c *renderCache) get(prefix string, def *engine.TypeDef, rec *engine.Record) (jsonapi.Raw, bool) {
	e, ok := c.m.Get(renderKey{prefix, rec.Type, rec.ID})
	switch {
	case !ok:
		return nil, false
	case e.rec == rec:
		return e.json, true
	case e.created != rec.CreatedAt || e.updated != rec.UpdatedAt:
		return nil, false
	}
	for i, a := range def.AttrsByName() {
		if a.Name != "created-at" && a.Name != "updated-at" && !sameValue(e.attrs[i], rec.Attrs[a.Name]) {
			return nil, false
		}
	}
	for i, rd := range def.RelsByName() {
		if rd.Stored() && !sameIDs(e.rels[i], rec.Rels[rd.Name]) {
			return nil, false
		}
	}
	// the same values: the entry serves rec at once from now on (a store
	// that shares records may have kept another copy of the same row)
	next := *e
	next.rec = rec
	c.m.Put(renderKey{prefix, rec.Type, rec.ID}, &next)
	return e.json, true
}

// put keeps the JSON of rec rendered under prefix, unless a value of rec
// is of a kind get cannot compare.
func (c *renderCache) put(prefix string, def *engine.TypeDef, rec *engine.Record, b jsonapi.Raw) {
	e := &rendered{rec: rec, attrs: make([]any, len(def.AttrsByName())), rels: make([][]string, len(def.RelsByName())),
		created: rec.CreatedAt, updated: rec.UpdatedAt, json: b}
	for i, a := range def.AttrsByName() {
		if a.Name == "created-at" || a.Name == "updated-at" {
			continue
		}
		v := rec.Attrs[a.Name]
		if !cacheable(v) {
			return
		}
		e.attrs[i] = v
	}
	for i, rd := range def.RelsByName() {
		if rd.Stored() {
			e.rels[i] = append([]string{}, rec.Rels[rd.Name]...) // the record's slice may change in place
		}
	}
	c.m.Put(renderKey{prefix, rec.Type, rec.ID}, e)
}

// cacheable reports whether sameValue can compare v: the values a
// decoded or computed attribute holds.
func cacheable(v any) bool {
	switch v := v.(type) {
	case nil, string, bool, json.Number, int64, int, float64:
		return true
	case []any:
		for _, x := range v {
			if !cacheable(x) {
				return false
			}
		}
		return true
	case map[string]any:
		for _, x := range v {
			if !cacheable(x) {
				return false
			}
		}
		return true
	}
	return false
}

// sameValue reports whether a and b are the same value of the kinds
// cacheable admits: the same JSON, and the same Go type (which the JSON
// follows).
func sameValue(a, b any) bool {
	switch a := a.(type) {
	case nil:
		return b == nil
	case string:
		bs, ok := b.(string)
		return ok && a == bs
	case bool:
		bb, ok := b.(bool)
		return ok && a == bb
	case json.Number:
		bn, ok := b.(json.Number)
		return ok && a == bn
	case int64:
		bi, ok := b.(int64)
		return ok && a == bi
	case int:
		bi, ok := b.(int)
		return ok && a == bi
	case float64:
		bf, ok := b.(float64)
		return ok && a == bf
	case []any:
		bl, ok := b.([]any)
		if !ok || len(a) != len(bl) || (a == nil) != (bl == nil) {
			return false
		}
		for i := range a {
			if !sameValue(a[i], bl[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok || len(a) != len(bm) || (a == nil) != (bm == nil) {
			return false
		}
		for k, v := range a {
			w, ok := bm[k]
			if !ok || !sameValue(v, w) {
				return false
			}
		}
		return true
	}
	return false
}

func sameIDs(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
