package httpadapter

import (
	"encoding/json"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/scopekit/scopekit/scoping"
)

// The API reference: an OpenAPI 3.0 document generated from the same type
// declarations that drive the engine, so it cannot drift from what the
// routes do. /docs/v2/swagger serves the curated v2 set; / and /docs/v1
// serve every type under the account slug. The documents are public.

type openAPIDocs struct {
	once   sync.Once
	v1, v2 []byte
}

func (s *Server) serveReference(v2 bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.docs.once.Do(func() {
			s.docs.v1, _ = json.MarshalIndent(OpenAPI(false), "", "  ")
			s.docs.v2, _ = json.MarshalIndent(OpenAPI(true), "", "  ")
		})
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "public, max-age=300")
		if v2 {
			_, _ = w.Write(s.docs.v2)
		} else {
			_, _ = w.Write(s.docs.v1)
		}
	})
}

type obj = map[string]any

// OpenAPI returns the OpenAPI 3.0 reference of the v2 curated set (v2
// true) or of every type under /{slug}/v1.
func OpenAPI(v2 bool) map[string]any {
	prefix, title := "/{slug}/v1", "ScopeKit API v1"
	if v2 {
		prefix, title = "/v2", "ScopeKit API v2 (curated for integrations)"
	}
	paths, schemas := obj{}, obj{
		"Error":    obj{"type": "object", "properties": obj{"errors": obj{"type": "array", "items": errorObjectSchema()}}},
		"ListMeta": obj{"type": "object", "properties": obj{"record-count": obj{"type": "integer"}, "page-count": obj{"type": "integer"}}},
	}
	for _, def := range scoping.Types() {
		if !def.Served() || (v2 && !def.V2) {
			continue
		}
		schemas[schemaName(def.Name)] = resourceSchema(def)
		addTypePaths(paths, prefix, def, v2)
	}
	if !v2 {
		str := obj{"type": "string"}
		schemas["me"] = obj{"type": "object", "properties": obj{"type": obj{"type": "string", "enum": []any{"me"}}, "id": str,
			"attributes": obj{"type": "object", "properties": obj{"name": str, "email": str, "title": str, "user-type": str,
				"account-id": str, "account-slug": str, "account-name": str, "settings-design": obj{"type": "string", "enum": []any{"classic", "modern"}},
				"privileges": obj{"type": "array", "items": obj{"type": "object", "properties": obj{"privilege": str, "access-level": str}}}}}}}
		if acct, ok := scoping.Lookup("accounts"); ok {
			schemas["accounts"] = resourceSchema(acct)
		}
		paths["/v1/me"] = obj{"get": op("me", "The token's user in the token's account, with its privileges", nil, singleDoc("me"))}
		paths[prefix+"/account"] = obj{"get": op("accounts", "The account addressed", []any{pathParam("slug")}, singleDoc("accounts"))}
	}
	return obj{
		"openapi": "3.0.3",
		"info": obj{"title": title, "version": strings.TrimPrefix(prefix[strings.LastIndex(prefix, "/"):], "/"),
			"description": "JSON:API 1.0 over HTTP; requests and responses use application/vnd.api+json. " +
				"Decimal attributes (money, hours, quantities, rates) are strings on output and accept strings or numbers on input."},
		"servers":    []any{obj{"url": "/"}},
		"security":   []any{obj{"oauth2": []any{}}},
		"paths":      paths,
		"components": obj{"schemas": schemas, "securitySchemes": securitySchemes()},
	}
}

func schemaName(typ string) string { return strings.ReplaceAll(typ, "-", "_") }

func securitySchemes() obj {
	return obj{"oauth2": obj{"type": "oauth2", "flows": obj{
		"clientCredentials": obj{"tokenUrl": "/oauth/token", "scopes": obj{}},
		"password":          obj{"tokenUrl": "/oauth/token", "refreshUrl": "/oauth/token", "scopes": obj{}},
		"authorizationCode": obj{"authorizationUrl": "/oauth/authorize", "tokenUrl": "/oauth/token", "scopes": obj{}},
	}}}
}

func errorObjectSchema() obj {
	return obj{"type": "object", "properties": obj{
		"status": obj{"type": "string"}, "title": obj{"type": "string"}, "detail": obj{"type": "string"}, "code": obj{"type": "string"},
		"source": obj{"type": "object", "properties": obj{"pointer": obj{"type": "string"}, "parameter": obj{"type": "string"}}},
	}}
}

// attrSchema describes one attribute by its kind.
func attrSchema(a *scoping.AttrDef) obj {
	var s obj
	switch a.Kind {
	case scoping.KindEnum:
		s = obj{"type": "string", "enum": slices.Clone(a.Enum)}
	case scoping.KindDecimal:
		s = obj{"type": "string", "pattern": `^-?[0-9]+(\.[0-9]+)?$`, "description": "a decimal; numbers are accepted on input"}
	case scoping.KindInt:
		s = obj{"type": "integer"}
	case scoping.KindBool:
		s = obj{"type": "boolean"}
	case scoping.KindDate:
		s = obj{"type": "string", "format": "date"}
	case scoping.KindTime:
		s = obj{"type": "string", "format": "date-time"}
	case scoping.KindObject:
		s = obj{"type": "object"}
	case scoping.KindList:
		s = obj{"type": "array", "items": obj{"type": "string"}}
	case scoping.KindAny:
		s = obj{}
	default:
		s = obj{"type": "string"}
	}
	if a.Computed {
		s["readOnly"] = true
	}
	s["nullable"] = true
	return s
}

func resourceSchema(def *scoping.TypeDef) obj {
	attrs, required := obj{}, []any{}
	for i := range def.Attrs {
		a := &def.Attrs[i]
		attrs[a.Name] = attrSchema(a)
		if a.Required {
			required = append(required, a.Name)
		}
	}
	attrObj := obj{"type": "object", "properties": attrs}
	if len(required) > 0 {
		attrObj["description"] = "required on create: " + strings.Join(anyStrings(required), ", ")
	}
	rels := obj{}
	for _, r := range def.Rels {
		linkage := obj{"type": "object", "properties": obj{"type": obj{"type": "string", "enum": []any{r.Type}}, "id": obj{"type": "string"}}}
		data := obj{"allOf": []any{linkage}, "nullable": true}
		if r.ToMany {
			data = obj{"type": "array", "items": linkage}
		}
		rel := obj{"type": "object", "properties": obj{"data": data,
			"links": obj{"type": "object", "properties": obj{"related": obj{"type": "string"}}}}}
		if !r.Stored() || r.ReadOnly {
			rel["readOnly"] = true
		}
		rels[r.Name] = rel
	}
	return obj{"type": "object", "required": []any{"type", "id"}, "properties": obj{
		"type": obj{"type": "string", "enum": []any{def.Name}}, "id": obj{"type": "string"},
		"attributes": attrObj, "relationships": obj{"type": "object", "properties": rels},
		"links": obj{"type": "object", "properties": obj{"self": obj{"type": "string"}}},
	}}
}

func anyStrings(xs []any) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i], _ = x.(string)
	}
	return out
}

func ref(typ string) obj { return obj{"$ref": "#/components/schemas/" + schemaName(typ)} }

func singleDoc(typ string) obj {
	return obj{"type": "object", "properties": obj{"data": ref(typ)}}
}

func listDoc(typ string) obj {
	return obj{"type": "object", "properties": obj{"data": obj{"type": "array", "items": ref(typ)},
		"meta": obj{"$ref": "#/components/schemas/ListMeta"}, "links": obj{"type": "object"}}}
}

func op(tag, summary string, params []any, body obj) obj {
	o := obj{"tags": []any{tag}, "summary": summary, "responses": obj{
		"200":     obj{"description": "OK", "content": obj{"application/vnd.api+json": obj{"schema": body}}},
		"default": obj{"description": "a JSON:API error document", "content": obj{"application/vnd.api+json": obj{"schema": obj{"$ref": "#/components/schemas/Error"}}}},
	}}
	if len(params) > 0 {
		o["parameters"] = params
	}
	return o
}

func queryParam(name, desc string, schema obj) obj {
	return obj{"name": name, "in": "query", "required": false, "description": desc, "schema": schema}
}

func pathParam(name string) obj {
	return obj{"name": name, "in": "path", "required": true, "schema": obj{"type": "string"}}
}

// listParams are the query parameters a collection of def accepts.
func listParams(def *scoping.TypeDef) []any {
	ps := []any{
		queryParam("page[number]", "page number, from 1", obj{"type": "integer", "minimum": 1}),
		queryParam("page[size]", "page size, default 250", obj{"type": "integer", "minimum": 1, "maximum": 1000}),
		queryParam("filter[ids]", "comma-separated ids", obj{"type": "string"}),
	}
	if def.Archives {
		ps = append(ps, queryParam("filter[active]", "true (default), false or true,false", obj{"type": "string", "enum": []any{"true", "false", "true,false"}}))
	}
	names := make([]string, 0, len(def.Filters))
	for n := range def.Filters {
		if n != "active" && n != "ids" {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		ps = append(ps, queryParam("filter["+n+"]", "", obj{"type": "string"}))
	}
	return append(ps, includeParam(def), sortParam(def))
}

func includeParam(def *scoping.TypeDef) obj {
	var rels []string
	for _, r := range def.Rels {
		rels = append(rels, r.Name)
	}
	return queryParam("include", "comma-separated relationships: "+strings.Join(rels, ", "), obj{"type": "string"})
}

func sortParam(def *scoping.TypeDef) obj {
	keys := []string{"created-at", "updated-at"}
	for _, a := range def.Attrs {
		if _, ok := def.Sortable(a.Name); ok && !slices.Contains(keys, a.Name) {
			keys = append(keys, a.Name)
		}
	}
	return queryParam("sort", "comma-separated, - for descending: "+strings.Join(keys, ", "), obj{"type": "string"})
}

func addTypePaths(paths obj, prefix string, def *scoping.TypeDef, v2 bool) {
	var slug []any
	if !v2 {
		slug = []any{pathParam("slug")}
	}
	body := obj{"required": true, "content": obj{"application/vnd.api+json": obj{"schema": singleDoc(def.Name)}}}
	coll := obj{"get": op(def.Name, "List "+def.Name+" (guarded by "+def.Guard+")", append(slices.Clone(slug), listParams(def)...), listDoc(def.Name))}
	one := obj{"get": op(def.Name, "Show one", append(slices.Clone(slug), pathParam("id"), includeParam(def)), singleDoc(def.Name))}
	if !def.ReadOnly || def.Hooks.Create != nil {
		post := op(def.Name, "Create (201 with Location)", slug, singleDoc(def.Name))
		post["requestBody"] = body
		coll["post"] = post
	}
	if !def.ReadOnly {
		patch := op(def.Name, "Update", append(slices.Clone(slug), pathParam("id")), singleDoc(def.Name))
		patch["requestBody"] = body
		one["patch"] = patch
		del := op(def.Name, "Delete (204)", append(slices.Clone(slug), pathParam("id")), obj{})
		one["delete"] = del
	}
	paths[prefix+"/"+def.Name] = coll
	paths[prefix+"/"+def.Name+"/{id}"] = one
	for _, r := range def.Rels {
		target, ok := scoping.Lookup(r.Type)
		if !ok || !target.Served() || (v2 && !target.V2) {
			continue
		}
		resp := singleDoc(r.Type)
		params := append(slices.Clone(slug), pathParam("id"))
		if r.ToMany {
			resp = listDoc(r.Type)
			params = append(params, listParams(target)...)
		}
		paths[prefix+"/"+def.Name+"/{id}/"+r.Name] = obj{"get": op(def.Name, "Related "+r.Name, params, resp)}
	}
}
