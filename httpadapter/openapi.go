package httpadapter

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping/views"
)

// The API reference: an OpenAPI 3.1 document generated from the same type
// declarations that drive the engine, plus the descriptions of the routes
// beyond plain CRUD (routeDocs, actionDocs, readDocs), so it cannot drift
// from what the routes do. TestEveryRouteIsDescribed walks the routers and
// fails on a route the document leaves out. The pages and documents are
// public (reference.go serves them).

type obj = map[string]any

// routeDoc describes one route for the reference.
type routeDoc struct {
	Tag, Summary, Description string
	Params                    []any // beyond the path parameters of the pattern
	Body                      obj   // the request body object, nil for none
	Status                    string
	Response                  obj // the success response's schema; nil for none (204)
	ResponseType              string
	Public                    bool // no token needed
	// APIErrors says a route whose success is not a JSON:API document (a
	// file) still answers its failures as JSON:API errors.
	APIErrors bool
	// MoreErrors are statuses beyond the shared ones (413, 415, 429).
	MoreErrors []string
	// Omit says why the route is left out of the document (a method that
	// only answers 405, the reference page's static assets); empty means
	// it is described.
	Omit string
}

// OpenAPI returns the OpenAPI 3.1 reference of the v2 curated set (v2
// true) or of every type under /{slug}/v1 with the account context, the
// auth host and the reference pages, for the types of schema.
func OpenAPI(schema *engine.Schema, v2 bool) map[string]any {
	prefix, title := "/{slug}/v1", "ScopeKit API v1"
	if v2 {
		prefix, title = "/v2", "ScopeKit API v2 (curated for integrations)"
	}
	paths, schemas := obj{}, baseSchemas()
	for _, def := range schema.Types() {
		if !def.Served() || (v2 && !def.V2) {
			continue
		}
		schemas[schemaName(def.Name)] = resourceSchema(def, false)
		schemas[schemaName(def.Name)+"_write"] = resourceSchema(def, true)
		addTypePaths(schema, paths, prefix, def, v2)
	}
	if !v2 {
		if acct, ok := schema.Lookup(views.TypeAccounts); ok {
			schemas[schemaName(acct.Name)] = resourceSchema(acct, false)
		}
		paths[prefix+"/account"] = obj{"get": op(routeDoc{Tag: views.TypeAccounts, Summary: "The account addressed",
			Description: "The account whose slug is in the path; this path is also its `self` link (accounts are no collection).", Response: singleDoc(views.TypeAccounts)},
			[]any{pathParam("slug")})}
	}
	for _, key := range sortedKeys(routeDocs) {
		d := routeDocs[key]
		method, pattern, _ := strings.Cut(key, " ")
		if d.Omit != "" || strings.HasPrefix(pattern, "/v2/") != v2 && !(v2 && pattern == "/oauth/token") {
			continue
		}
		path := openAPIPath(pattern)
		item, _ := paths[path].(obj)
		if item == nil {
			item = obj{}
			paths[path] = item
		}
		item[strings.ToLower(method)] = op(d, pathParams(pattern))
	}
	desc := "JSON:API 1.0 over HTTP; requests and responses use `application/vnd.api+json` " +
		"(docs/http.md in the repository). Decimal attributes (money, hours, quantities, rates) are strings on output " +
		"and accept strings or numbers on input. Get a token at `POST /oauth/token` (docs/auth.md) and send it as " +
		"`Authorization: Bearer <token>`; the Authorize button takes client credentials."
	gen := "v1"
	if v2 {
		gen = "v2"
	}
	desc += fmt.Sprintf(" This document in OpenAPI 3.1: [/docs/%[1]s/openapi.json](/docs/%[1]s/openapi.json); in OpenAPI 3.0.3, which the reference page shows: "+
		"[/docs/%[1]s/openapi-3.0.json](/docs/%[1]s/openapi-3.0.json).", gen)
	if v2 {
		desc += " The v2 paths serve the curated set of types; the account is the token's."
	} else {
		desc += " The v1 paths carry the account slug (`demo` in the demo) and serve every type; the curated v2 set is at [/docs/v2/swagger](/docs/v2/swagger)."
	}
	return obj{
		"openapi": "3.1.0",
		"info": obj{"title": title, "version": strings.TrimPrefix(prefix[strings.LastIndex(prefix, "/"):], "/"),
			"description": desc},
		"servers":  []any{obj{"url": "/"}},
		"security": []any{obj{"oauth2": []any{}}},
		"tags":     tags(paths),
		"paths":    paths,
		"components": obj{"schemas": schemas, "securitySchemes": securitySchemes(),
			"responses": errorResponses()},
	}
}

// openAPIPath turns an httprouter pattern into an OpenAPI path:
// :name becomes {name}.
func openAPIPath(pattern string) string {
	parts := strings.Split(pattern, "/")
	for i, p := range parts {
		if strings.HasPrefix(p, ":") || strings.HasPrefix(p, "*") {
			parts[i] = "{" + p[1:] + "}"
		}
	}
	return strings.Join(parts, "/")
}

func pathParams(pattern string) []any {
	var ps []any
	for _, p := range strings.Split(pattern, "/") {
		if strings.HasPrefix(p, ":") {
			ps = append(ps, pathParam(p[1:]))
		}
	}
	return ps
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// tags lists the operations' tags in order, the auth host and the account
// context first.
func tags(paths obj) []any {
	seen := map[string]bool{}
	for _, item := range paths {
		for _, o := range item.(obj) {
			for _, t := range o.(obj)["tags"].([]any) {
				seen[t.(string)] = true
			}
		}
	}
	first := []string{"oauth", "me", "accounts", "projects", "project-services", "approval-steps", "mcp", "reference"}
	var out []any
	for _, t := range first {
		if seen[t] {
			out = append(out, obj{"name": t})
			delete(seen, t)
		}
	}
	for _, t := range sortedKeys(seen) {
		out = append(out, obj{"name": t})
	}
	return out
}

func schemaName(typ string) string { return strings.ReplaceAll(typ, "-", "_") }

func securitySchemes() obj {
	return obj{"oauth2": obj{"type": "oauth2", "description": "Tokens from POST /oauth/token (docs/auth.md); they last 86400 s.",
		"flows": obj{
			"clientCredentials": obj{"tokenUrl": "/oauth/token", "scopes": obj{}},
			"password":          obj{"tokenUrl": "/oauth/token", "refreshUrl": "/oauth/token", "scopes": obj{}},
			"authorizationCode": obj{"authorizationUrl": "/oauth/authorize", "tokenUrl": "/oauth/token", "scopes": obj{}},
		}}}
}

func str() obj { return obj{"type": "string"} }

// objects is a list of objects (3.0 needs an array's items).
func objects() obj { return obj{"type": "array", "items": obj{"type": "object"}} }

func nullable(s obj) obj {
	if t, ok := s["type"].(string); ok {
		s["type"] = []any{t, "null"}
		if e, ok := s["enum"].([]any); ok {
			s["enum"] = append(e, nil)
		}
		return s
	}
	return obj{"oneOf": []any{s, obj{"type": "null"}}}
}

func baseSchemas() obj {
	errObj := obj{"type": "object", "properties": obj{
		"status": str(), "title": str(), "detail": str(), "code": str(),
		"source": obj{"type": "object", "properties": obj{"pointer": str(), "parameter": str()}},
	}}
	str := str()
	return obj{
		"Error": obj{"type": "object", "description": "A JSON:API error document: one entry per problem (docs/http.md).",
			"properties": obj{"errors": obj{"type": "array", "items": errObj}}},
		"OAuthError": obj{"type": "object", "required": []any{"error"}, "properties": obj{
			"error": obj{"type": "string", "enum": []any{"invalid_request", "invalid_client", "invalid_grant", "invalid_resource_owner",
				"unsupported_grant_type", "unauthorized_client", "mfa_required", "slow_down", "access_denied", "not_found", "invalid_password"}},
			"error_description": str}},
		"ListMeta": obj{"type": "object", "properties": obj{"record-count": obj{"type": "integer"}, "page-count": obj{"type": "integer"}}},
		"TokenRequest": obj{"type": "object", "required": []any{"grant_type"}, "properties": obj{
			"grant_type":    obj{"type": "string", "enum": []any{"client_credentials", "password", "refresh_token", "authorization_code"}},
			"client_id":     obj{"type": "string", "description": "or HTTP Basic"},
			"client_secret": obj{"type": "string", "description": "or HTTP Basic"},
			"username":      obj{"type": "string", "description": "password grant: the user's email"},
			"password":      obj{"type": "string", "description": "password grant"},
			"refresh_token": obj{"type": "string", "description": "refresh_token grant"},
			"code":          obj{"type": "string", "description": "authorization_code grant"},
			"redirect_uri":  obj{"type": "string", "description": "authorization_code grant: the one of the authorize request"},
			"code_verifier": obj{"type": "string", "description": "authorization_code grant with PKCE"},
			"mfa_code":      obj{"type": "string", "description": "password grant, after an mfa_required answer: the authenticator's code or a recovery code"},
		}},
		"TokenResponse": obj{"type": "object", "required": []any{"access_token", "token_type", "expires_in"}, "properties": obj{
			"access_token": str, "token_type": obj{"type": "string", "enum": []any{"Bearer"}},
			"expires_in": obj{"type": "integer"}, "created_at": obj{"type": "integer"},
			"refresh_token": obj{"type": "string", "description": "password and refresh_token grants only; rotates on each refresh"},
		}},
		"me": obj{"type": "object", "properties": obj{"type": obj{"type": "string", "enum": []any{"me"}}, "id": str,
			"attributes": obj{"type": "object", "properties": obj{"name": str, "email": str, "title": str, "user-type": str,
				"account-id": str, "account-slug": str, "account-name": str, "settings-design": obj{"type": "string", "enum": []any{"classic", "modern"}},
				"privileges": obj{"type": "array", "items": obj{"type": "object", "properties": obj{"privilege": str, "access-level": str}}}}}}},
		"ActionMeta": obj{"type": "object", "description": "An optional body of an action.",
			"properties": obj{"meta": obj{"type": "object", "properties": obj{"comment": obj{"type": "string", "description": "decline and rescope: the reason"}}}}},
		"project_pricings": obj{"type": "object", "properties": obj{"type": obj{"type": "string", "enum": []any{"project-pricings"}}, "id": str,
			"attributes": obj{"type": "object", "description": "The pricing breakdown (docs/pricing.md), the members of merge data v2's project_pricing.",
				"properties": obj{"currency": str, "professional_services": obj{"type": "object"}, "project_governance": obj{"type": "object"},
					"travel_and_expense": obj{"type": "object"}, "materials": obj{"type": "object"}, "managed_services": obj{"type": "object"},
					"resources": objects(), "phases": objects(), "locations": objects(),
					"total_contract_value": obj{"type": "object"}, "warnings": objects()}}}},
		"merge_data": obj{"type": "object", "properties": obj{"type": obj{"type": "string", "enum": []any{"merge-data"}}, "id": str,
			"attributes": obj{"type": "object", "properties": obj{"version": obj{"type": "integer", "enum": []any{1, 2}},
				"merge-data": obj{"type": "object", "description": "The tree SOW templates are filled from (docs/mergedata.md)."}}}}},
		"service_account_credentials": obj{"type": "object", "properties": obj{
			"type": obj{"type": "string", "enum": []any{"service-account-credentials"}}, "id": str,
			"attributes": obj{"type": "object", "properties": obj{"client-id": str,
				"client-secret": obj{"type": "string", "description": "shown this once"}, "created-at": obj{"type": "string", "format": "date-time"}}}}},
	}
}

// errorResponses are the shared error answers of API operations.
func errorResponses() obj {
	out := obj{}
	for code, desc := range map[string]string{
		"400": "malformed request: bad JSON:API, unknown attribute, filter, include or sort, page[size] above 1000 (detail and source name it)",
		"401": "no token, or an expired, revoked or unknown one: get a new token",
		"403": "the token's role lacks the permission, the write would grant more than the caller holds, or the slug names another account than the token's (a token acts in one account)",
		"404": "no such record for this caller (another account's records look the same)",
		"409": "the current state forbids it (type or id mismatch, an action on a record in the wrong state, a change to a person who is a member of another account too)",
		"422": "validation failed: one error per field, with source.pointer",
		"413": "the body is larger than the route takes",
		"415": "the body's Content-Type is not the one the route takes",
		"429": "throttled: wait the Retry-After seconds",
	} {
		out[code] = obj{"description": desc, "content": obj{"application/vnd.api+json": obj{"schema": obj{"$ref": "#/components/schemas/Error"}}}}
	}
	return out
}

// attrSchema describes one attribute by its kind.
func attrSchema(a *engine.AttrDef) obj {
	var s obj
	switch a.Kind {
	case engine.KindEnum:
		e := make([]any, len(a.Enum))
		for i, v := range a.Enum {
			e[i] = v
		}
		s = obj{"type": "string", "enum": e}
	case engine.KindDecimal:
		s = obj{"type": "string", "pattern": `^-?[0-9]+(\.[0-9]+)?$`, "description": "a decimal; numbers are accepted on input"}
		if limit, places, ok := a.Bound(); ok && !a.Computed {
			lo := "0"
			if a.Signed {
				lo = "-" + limit.String()
			}
			s["description"] = fmt.Sprintf("a decimal from %s to %s with at most %d digits after the point (422 past them); numbers are accepted on input",
				lo, limit.String(), places)
		}
	case engine.KindInt:
		s = obj{"type": "integer"}
		if limit, _, ok := a.Bound(); ok && !a.Computed {
			s["maximum"], s["minimum"] = limit.IntPart(), int64(0)
			if a.Signed {
				s["minimum"] = -limit.IntPart()
			}
		}
	case engine.KindBool:
		s = obj{"type": "boolean"}
	case engine.KindDate:
		s = obj{"type": "string", "format": "date"}
	case engine.KindTime:
		s = obj{"type": "string", "format": "date-time"}
	case engine.KindObject:
		s = obj{"type": "object"}
	case engine.KindList:
		s = obj{"type": "array", "items": obj{"type": "string"}}
	case engine.KindAny:
		return obj{}
	default:
		s = obj{"type": "string"}
	}
	s = nullable(s)
	if a.Computed {
		s["readOnly"] = true
	}
	return s
}

// resourceSchema is the resource object of def; write is the variant of
// request bodies (no id needed, computed attributes left out).
func resourceSchema(def *engine.TypeDef, write bool) obj {
	attrs, required := obj{}, []string{}
	for i := range def.Attrs {
		a := &def.Attrs[i]
		if write && a.Computed {
			continue
		}
		attrs[a.Name] = attrSchema(a)
		if a.Required {
			required = append(required, a.Name)
		}
	}
	attrObj := obj{"type": "object", "properties": attrs}
	if len(required) > 0 {
		attrObj["description"] = "required on create: " + strings.Join(required, ", ")
	}
	rels := obj{}
	for _, r := range def.Rels {
		if write && !r.Writable() {
			continue
		}
		linkage := obj{"type": "object", "properties": obj{"type": obj{"type": "string", "enum": []any{r.Type}}, "id": str()}}
		data := nullable(linkage)
		if r.ToMany {
			data = obj{"type": "array", "items": linkage}
		}
		rel := obj{"type": "object", "properties": obj{"data": data,
			"links": obj{"type": "object", "properties": obj{"related": str()}}}}
		if !r.Writable() {
			rel["readOnly"] = true
		}
		rels[r.Name] = rel
	}
	s := obj{"type": "object", "required": []any{"type", "id"}, "properties": obj{
		"type": obj{"type": "string", "enum": []any{def.Name}}, "id": str(),
		"attributes": attrObj, "relationships": obj{"type": "object", "properties": rels},
		"links": obj{"type": "object", "properties": obj{"self": str()}},
	}}
	if write {
		s["required"] = []any{"type"}
		s["description"] = "id only on update (it must equal the path's)"
	}
	return s
}

func ref(name string) obj { return obj{"$ref": "#/components/schemas/" + schemaName(name)} }

func singleDoc(typ string) obj {
	return obj{"type": "object", "properties": obj{"data": ref(typ), "included": obj{"type": "array", "items": obj{"type": "object"}}}}
}

func writeDoc1(typ string) obj {
	return obj{"required": true, "content": obj{"application/vnd.api+json": obj{"schema": obj{"type": "object", "required": []any{"data"},
		"properties": obj{"data": ref(typ + "_write"), "meta": obj{"type": "object"}}}}}}
}

func listDoc(typ string) obj {
	return obj{"type": "object", "properties": obj{"data": obj{"type": "array", "items": ref(typ)},
		"included": obj{"type": "array", "items": obj{"type": "object"}},
		"meta":     obj{"$ref": "#/components/schemas/ListMeta"}, "links": obj{"type": "object"}}}
}

// op builds one operation from its description.
func op(d routeDoc, params []any) obj {
	status, media := d.Status, d.ResponseType
	if status == "" {
		status = "200"
	}
	if media == "" {
		media = "application/vnd.api+json"
	}
	ok := obj{"description": "OK"}
	if d.Response != nil {
		ok["content"] = obj{media: obj{"schema": d.Response}}
	}
	responses := obj{status: ok}
	if strings.HasPrefix(media, "application/vnd.api+json") || d.APIErrors {
		for _, code := range append([]string{"400", "401", "403", "404", "409", "422"}, d.MoreErrors...) {
			if d.Public && (code == "401" || code == "403") {
				continue
			}
			responses[code] = obj{"$ref": "#/components/responses/" + code}
		}
	}
	o := obj{"tags": []any{d.Tag}, "summary": d.Summary, "responses": responses}
	if d.Description != "" {
		o["description"] = d.Description
	}
	if d.Public {
		o["security"] = []any{}
	}
	if all := append(slices.Clone(params), d.Params...); len(all) > 0 {
		o["parameters"] = all
	}
	if d.Body != nil {
		o["requestBody"] = d.Body
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
func listParams(def *engine.TypeDef) []any {
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
	return append(ps, includeParam(def), sortParam(def), fieldsParam(def))
}

func fieldsParam(def *engine.TypeDef) obj {
	return queryParam("fields["+def.Name+"]", "sparse fieldset: comma-separated attributes and relationships", obj{"type": "string"})
}

func includeParam(def *engine.TypeDef) obj {
	var rels []string
	for _, r := range def.Rels {
		rels = append(rels, r.Name)
	}
	return queryParam("include", "comma-separated relationships: "+strings.Join(rels, ", "), obj{"type": "string"})
}

func sortParam(def *engine.TypeDef) obj {
	keys := []string{views.NameCreatedAt, views.NameUpdatedAt}
	for _, a := range def.Attrs {
		if _, ok := def.Sortable(a.Name); ok && !slices.Contains(keys, a.Name) {
			keys = append(keys, a.Name)
		}
	}
	return queryParam("sort", "comma-separated, - for descending: "+strings.Join(keys, ", "), obj{"type": "string"})
}

// manageNeeds names the permissions a write of def needs, at manage level.
func manageNeeds(def *engine.TypeDef) string {
	needs := "`" + def.Guard + "`"
	for _, g := range def.WriteGuards {
		needs += " and `" + g + "`"
	}
	return needs + " manage"
}

func addTypePaths(schema *engine.Schema, paths obj, prefix string, def *engine.TypeDef, v2 bool) {
	var slug []any
	if !v2 {
		slug = []any{pathParam("slug")}
	}
	withID := append(slices.Clone(slug), pathParam("id"))
	t := def.Name
	coll := obj{"get": op(routeDoc{Tag: t, Summary: "List " + t, Description: "Needs `" + def.Guard + "` view.", Response: listDoc(t)},
		append(slices.Clone(slug), listParams(def)...))}
	one := obj{"get": op(routeDoc{Tag: t, Summary: "Show a record of type " + t, Response: singleDoc(t)}, append(slices.Clone(withID), includeParam(def), fieldsParam(def)))}
	if def.Async {
		coll["post"] = op(routeDoc{Tag: t, Summary: "Queue a record of type " + t, Description: "Answers 202 with the record (status queued) and a Location header to poll; " +
			"the work happens in the background. Needs " + manageNeeds(def) + "; throttled per IP and per account (429 with Retry-After).",
			Status: "202", Body: writeDoc1(t), Response: singleDoc(t), MoreErrors: []string{"429"}}, slug)
	} else if !def.ReadOnly || def.Hooks.Create != nil {
		coll["post"] = op(routeDoc{Tag: t, Summary: "Create a record of type " + t, Description: "Answers 201 with a Location header. Needs " + manageNeeds(def) + ".",
			Status: "201", Body: writeDoc1(t), Response: singleDoc(t)}, slug)
	}
	if !def.ReadOnly {
		one["patch"] = op(routeDoc{Tag: t, Summary: "Update a record of type " + t, Body: writeDoc1(t), Response: singleDoc(t)}, withID)
		one["delete"] = op(routeDoc{Tag: t, Summary: "Delete a record of type " + t, Status: "204"}, withID)
	}
	paths[prefix+"/"+t] = coll
	paths[prefix+"/"+t+"/{id}"] = one
	for _, r := range def.Rels {
		target, ok := schema.Lookup(r.Type)
		if !ok || !target.Served() || (v2 && !target.V2) {
			continue
		}
		if !r.ToMany {
			paths[prefix+"/"+t+"/{id}/"+r.Name] = obj{"get": op(routeDoc{Tag: t, Summary: "The related " + r.Name, Response: singleDoc(r.Type)}, withID)}
			continue
		}
		paths[prefix+"/"+t+"/{id}/"+r.Name] = obj{"get": op(routeDoc{Tag: t, Summary: "The related " + r.Name, Response: listDoc(r.Type)},
			append(slices.Clone(withID), listParams(target)...))}
		paths[prefix+"/"+t+"/{id}/"+r.Name+"/{relid}"] = obj{"get": op(routeDoc{Tag: t, Summary: "One of the related " + r.Name + " (404 unless it belongs to this record)",
			Response: singleDoc(r.Type)}, append(slices.Clone(withID), pathParam("relid"), includeParam(target)))}
	}
	for _, key := range sortedKeys(deepReadDocs) {
		if typ, _, _ := strings.Cut(key, "/"); typ == t && !v2 {
			d := deepReadDocs[key]
			d.Doc.Tag = t
			paths[prefix+"/"+t+d.Path] = obj{"get": op(d.Doc, append(slices.Clone(withID), pathParam("relid"), pathParam("subid")))}
		}
	}
	for _, kind := range []struct {
		method string
		docs   map[string]routeDoc
	}{{"post", actionDocs}, {"get", readDocs}, {"put", uploadDocs}} {
		for _, key := range sortedKeys(kind.docs) {
			typ, name, _ := strings.Cut(key, "/")
			if typ != t || (v2 && kind.method != "post" && !v2Reads[key]) || (v2 && v1Only(key)) { // reads and uploads are v1 only unless v2Reads says
				continue
			}
			d := kind.docs[key]
			if d.Tag == "" {
				d.Tag = t
			}
			item, _ := paths[prefix+"/"+t+"/{id}/"+name].(obj)
			if item == nil {
				item = obj{}
				paths[prefix+"/"+t+"/{id}/"+name] = item
			}
			item[kind.method] = op(d, withID)
		}
	}
}
