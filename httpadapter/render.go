package httpadapter

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/scopekit/scopekit/jsonapi"
	"github.com/scopekit/scopekit/scoping"
)

// view says how records are rendered for one request: the URL prefix of
// their links (".../acme/v1" or ".../v2") and the sparse fieldsets.
type view struct {
	schema *scoping.Schema
	prefix string
	v2     bool
	fields map[string][]string
}

// resource renders one record as a JSON:API resource object: every
// declared attribute (null when unset), every relationship with linkage
// for stored ones and a related link where the target is served, and a
// self link.
func (v *view) resource(rec *scoping.Record) *jsonapi.Resource {
	def, _ := v.schema.Lookup(rec.Type)
	self := v.prefix + "/" + rec.Type + "/" + rec.ID
	res := &jsonapi.Resource{Type: rec.Type, ID: rec.ID, Links: linkMaps.Get().(jsonapi.Links),
		Attributes: attrMaps.Get().(map[string]any)}
	res.Links["self"] = self
	only, sparse := v.fields[rec.Type]
	for _, a := range def.Attrs {
		if sparse && !slices.Contains(only, a.Name) {
			continue
		}
		switch a.Name {
		case "created-at":
			res.Attributes[a.Name] = rec.CreatedAt
		case "updated-at":
			res.Attributes[a.Name] = rec.UpdatedAt
		default:
			v := rec.Attrs[a.Name]
			if p, ok := v.(string); ok && a.Link && p != "" {
				v = self + "/" + p
			}
			res.Attributes[a.Name] = v
		}
	}
	if len(def.Rels) > 0 {
		res.Relationships = relMaps.Get().(map[string]*jsonapi.Relationship)
	}
	// one allocation each for the relationship objects, their linkage and
	// their related links (substrings of one string)
	rels := make([]jsonapi.Relationship, len(def.Rels))
	nids := 0
	var links strings.Builder
	links.Grow(len(def.Rels) * (len(self) + 24))
	var endsBuf [32]int // on the stack for the types there are
	ends := endsBuf[:0]
	if len(def.Rels) > len(endsBuf) {
		ends = make([]int, 0, len(def.Rels))
	}
	ends = ends[:len(def.Rels)]
	for i := range def.Rels {
		rd := &def.Rels[i]
		if rd.Stored() {
			nids += len(rec.Rels[rd.Name])
		}
		if target, ok := v.schema.Lookup(rd.Type); ok && (!v.v2 || target.V2) {
			links.WriteString(self)
			links.WriteByte('/')
			links.WriteString(rd.Name)
		}
		ends[i] = links.Len()
	}
	related := links.String()
	ids := make([]jsonapi.Identifier, 0, nids)
	for i := range def.Rels {
		rd := &def.Rels[i]
		if sparse && !slices.Contains(only, rd.Name) {
			continue
		}
		rel := &rels[i]
		rel.ToMany = rd.ToMany
		if start := prevEnd(ends, i); ends[i] > start {
			rel.Related = related[start:ends[i]]
		}
		if rd.Stored() {
			rel.HasData = true
			start := len(ids)
			for _, id := range rec.Rels[rd.Name] {
				ids = append(ids, jsonapi.Identifier{Type: rd.Type, ID: id})
			}
			if rd.ToMany {
				rel.Many = ids[start:len(ids):len(ids)]
			} else if len(ids) > start {
				rel.One = &ids[start]
			}
		}
		if rel.HasData || rel.Related != "" {
			res.Relationships[rd.Name] = rel
		}
	}
	return res
}

// The attribute, relationship and link maps of rendered resources go back to
// these pools once their document is written (writeRendered): a list page
// renders hundreds, and allocating them was a third of its bytes.
var (
	attrMaps = sync.Pool{New: func() any { return make(map[string]any, 32) }}
	relMaps  = sync.Pool{New: func() any { return make(map[string]*jsonapi.Relationship, 16) }}
	linkMaps = sync.Pool{New: func() any { return make(jsonapi.Links, 1) }}
)

// writeRendered writes a document made by view.document and gives its
// resources' maps back to the pools: nothing refers to them afterwards.
func writeRendered(w http.ResponseWriter, r *http.Request, status int, doc *jsonapi.Document) {
	writeDoc(w, r, status, doc)
	release := func(res *jsonapi.Resource) {
		if res == nil {
			return
		}
		clear(res.Attributes)
		attrMaps.Put(res.Attributes)
		clear(res.Links)
		linkMaps.Put(res.Links)
		res.Attributes, res.Links = nil, nil
		if res.Relationships != nil {
			clear(res.Relationships)
			relMaps.Put(res.Relationships)
			res.Relationships = nil
		}
	}
	release(doc.Data)
	for _, res := range doc.DataList {
		release(res)
	}
	for _, res := range doc.Included {
		release(res)
	}
}

func prevEnd(ends []int, i int) int {
	if i == 0 {
		return 0
	}
	return ends[i-1]
}

// document renders a read result: a single resource (or null), or a list
// with meta and paging links.
func (v *view) document(res *scoping.Result, self string, raw url.Values, q *jsonapi.Query) *jsonapi.Document {
	doc := &jsonapi.Document{Meta: res.Meta}
	if res.Single {
		if len(res.Records) > 0 {
			doc.Data = v.resource(res.Records[0])
		}
		doc.Links = jsonapi.Links{"self": withQuery(self, raw)}
	} else {
		doc.List = true
		doc.DataList = make([]*jsonapi.Resource, len(res.Records))
		for i, r := range res.Records {
			doc.DataList[i] = v.resource(r)
		}
		size := q.PageSize
		pages := (res.Total + size - 1) / size
		if doc.Meta == nil {
			doc.Meta = map[string]any{}
		}
		doc.Meta["record-count"] = res.Total
		doc.Meta["page-count"] = pages
		doc.Links = jsonapi.PageLinks(self, raw, q.PageNumber, size, pages)
	}
	for _, r := range res.Included {
		doc.Included = append(doc.Included, v.resource(r))
	}
	return doc
}

func withQuery(u string, raw url.Values) string {
	if len(raw) == 0 {
		return u
	}
	return u + "?" + raw.Encode()
}
