package httpadapter

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/jsonapi"
	"github.com/scopekit/scopekit/scoping/views"
)

// view says how records are rendered for one request: the URL prefix of
// their links (".../acme/v1" or ".../v2") and the sparse fieldsets.
type view struct {
	schema *engine.Schema
	prefix string
	v2     bool
	fields map[string][]string
	// cache, when set, serves records rendered before (rendercache.go).
	cache *renderCache

	// urls holds the links of the resources rendered so far: each link is
	// a substring of one growing buffer rather than an allocation of its
	// own (earlier substrings stay valid when the buffer grows).
	urls strings.Builder
	// ids is scratch for the linkage of the relationship being written.
	ids []jsonapi.Identifier
}

// join returns base and names joined with "/", as a substring of v.urls.
func (v *view) join(base string, names ...string) string {
	start := v.urls.Len()
	v.urls.WriteString(base)
	for _, n := range names {
		v.urls.WriteByte('/')
		v.urls.WriteString(n)
	}
	return v.urls.String()[start:]
}

// resource renders one record as a JSON:API resource object into res,
// with fields as the source of its attributes and relationships (see
// recordFields) and a self link.
func (v *view) resource(rec *engine.Record, res *jsonapi.Resource, fields *recordFields) {
	def, _ := v.schema.Lookup(rec.Type)
	// room for the self link and the related links: the buffer grows once
	// for a single record, and by doubling along a list
	n := len(v.prefix) + len(rec.Type) + len(rec.ID) + 2
	v.urls.Grow((len(def.Rels) + 1) * (n + 24))
	var self string
	if rec.Type == views.TypeAccounts { // not a collection: served at {prefix}/account alone
		self = v.join(v.prefix, "account")
	} else {
		self = v.join(v.prefix, rec.Type, rec.ID)
	}
	*fields = recordFields{v: v, def: def, rec: rec, self: self}
	*res = jsonapi.Resource{Type: rec.Type, ID: rec.ID, Links: linkMaps.Get().(jsonapi.Links), Fields: fields}
	res.Links["self"] = self
}

// recordFields writes the fields of a rendered record straight from it, in
// the name order of its type, rather than through two maps per resource:
// every declared attribute (null when unset) and every relationship, with
// linkage for stored ones and a related link where the target is served.
type recordFields struct {
	v    *view
	def  *engine.TypeDef
	rec  *engine.Record
	self string // the record's URL
}

// WriteAttributes implements jsonapi.FieldSource.
func (f *recordFields) WriteAttributes(m *jsonapi.Members) {
	only, sparse := f.v.fields[f.rec.Type]
	for _, a := range f.def.AttrsByName() {
		if sparse && !slices.Contains(only, a.Name) {
			continue
		}
		switch a.Name {
		case "created-at":
			m.String(a.Name, f.rec.CreatedAt)
		case "updated-at":
			m.String(a.Name, f.rec.UpdatedAt)
		default:
			v := f.rec.Attrs[a.Name]
			if p, ok := v.(string); ok && a.Link && p != "" {
				m.String(a.Name, f.v.join(f.self, p))
				continue
			}
			m.Value(a.Name, v)
		}
	}
}

// WriteRelationships implements jsonapi.FieldSource.
func (f *recordFields) WriteRelationships(m *jsonapi.Members) {
	only, sparse := f.v.fields[f.rec.Type]
	for _, rd := range f.def.RelsByName() {
		if sparse && !slices.Contains(only, rd.Name) {
			continue
		}
		rel := jsonapi.Relationship{ToMany: rd.ToMany}
		if target, ok := f.v.schema.Lookup(rd.Type); ok && (!f.v.v2 || target.V2) {
			rel.Related = f.v.join(f.self, rd.Name)
		}
		if rd.Stored() {
			rel.HasData = true
			ids := f.v.ids[:0]
			for _, id := range f.rec.Rels[rd.Name] {
				ids = append(ids, jsonapi.Identifier{Type: rd.Type, ID: id})
			}
			f.v.ids = ids
			if rd.ToMany {
				rel.Many = ids
			} else if len(ids) > 0 {
				rel.One = &ids[0]
			}
		}
		if rel.HasData || rel.Related != "" {
			m.Relationship(rd.Name, &rel)
		}
	}
}

// The link maps of rendered resources go back to this pool once their
// document is written (writeRendered): a list page renders hundreds.
var linkMaps = sync.Pool{New: func() any { return make(jsonapi.Links, 1) }}

// writeRendered writes a document made by view.document and gives its
// resources' link maps back to the pool: nothing refers to them afterwards.
func writeRendered(w http.ResponseWriter, r *http.Request, status int, doc *jsonapi.Document) {
	writeDoc(w, r, status, doc)
	release := func(res *jsonapi.Resource) {
		if res == nil || res.Links == nil { // a rendered one has none
			return
		}
		clear(res.Links)
		linkMaps.Put(res.Links)
		res.Links = nil
	}
	release(doc.Data)
	for _, res := range doc.DataList {
		release(res)
	}
	for _, res := range doc.Included {
		release(res)
	}
}

// resources renders records, with one allocation for all their resource
// objects and one for their field sources.
func (v *view) resources(recs []*engine.Record) []*jsonapi.Resource {
	if len(recs) == 0 {
		return nil
	}
	out := make([]*jsonapi.Resource, len(recs))
	objs := make([]jsonapi.Resource, len(recs))
	fields := make([]recordFields, len(recs))
	for i, rec := range recs {
		out[i] = &objs[i]
		if v.cached(rec, &objs[i]) {
			continue
		}
		v.resource(rec, &objs[i], &fields[i])
		v.keep(rec, &objs[i])
	}
	return out
}

// cached sets res to the JSON of rec rendered before, when the cache has
// it as rec now is (and the request asks for all its fields).
func (v *view) cached(rec *engine.Record, res *jsonapi.Resource) bool {
	if v.cache == nil || v.fields[rec.Type] != nil {
		return false
	}
	def, ok := v.schema.Lookup(rec.Type)
	if !ok {
		return false
	}
	b, ok := v.cache.get(v.prefix, def, rec)
	if ok {
		*res = jsonapi.Resource{Type: rec.Type, ID: rec.ID, Rendered: b}
	}
	return ok
}

// keep renders res, made by resource from rec, once, for this answer and
// for the cache.
func (v *view) keep(rec *engine.Record, res *jsonapi.Resource) {
	if v.cache == nil || v.fields[rec.Type] != nil {
		return
	}
	def, ok := v.schema.Lookup(rec.Type)
	if !ok {
		return
	}
	b, err := jsonapi.EncodeResource(res)
	if err != nil {
		return // the document's encoding reports it
	}
	v.cache.put(v.prefix, def, rec, b)
	clear(res.Links)
	linkMaps.Put(res.Links)
	*res = jsonapi.Resource{Type: rec.Type, ID: rec.ID, Rendered: b}
}

// document renders a read result: a single resource (or null), or a list
// with meta and paging links.
func (v *view) document(res *engine.Result, self string, raw url.Values, q *jsonapi.Query) *jsonapi.Document {
	doc := &jsonapi.Document{Meta: res.Meta}
	if res.Single {
		if len(res.Records) > 0 {
			doc.Data = v.resources(res.Records[:1])[0]
		}
		doc.Links = jsonapi.Links{"self": withQuery(self, raw)}
	} else {
		doc.List = true
		doc.DataList = v.resources(res.Records)
		size := q.PageSize
		pages := (res.Total + size - 1) / size
		if doc.Meta == nil {
			doc.Meta = map[string]any{}
		}
		doc.Meta["record-count"] = res.Total
		doc.Meta["page-count"] = pages
		doc.Links = jsonapi.PageLinks(self, raw, q.PageNumber, size, pages)
	}
	doc.Included = v.resources(res.Included)
	return doc
}

func withQuery(u string, raw url.Values) string {
	if len(raw) == 0 {
		return u
	}
	return u + "?" + raw.Encode()
}
