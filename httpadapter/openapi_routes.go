package httpadapter

import (
	"strings"

	"github.com/scopekit/scopekit/catalogimport"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/scoping/views"
)

// routeDocs describes the fixed routes, keyed by "METHOD pattern" exactly
// as the route is added to its router (server.go). A route under /v2/ goes
// into the v2 reference, every other one into the v1 reference (the token
// endpoint into both). Add an entry here with each new fixed route;
// TestEveryRouteIsDescribed names any route without one.
var routeDocs = map[string]routeDoc{
	"GET /v1/me": {Tag: "me", Summary: "The token's user in the token's account, with its privileges",
		Description: "Which account a token is for, and what its role may do.", Response: obj{"type": "object", "properties": obj{"data": ref("me")}}},
	"PATCH /v1/me": {Tag: "me", Summary: "Change the token user's own preferences (settings-design)",
		Description: "Needs `user_preferences` manage. Only `settings-design` (`classic` or `modern`) may be set.",
		Body: obj{"required": true, "content": obj{"application/vnd.api+json": obj{"schema": obj{"type": "object", "properties": obj{"data": obj{
			"type": "object", "properties": obj{"type": obj{"type": "string", "enum": []any{"me"}},
				"attributes": obj{"type": "object", "properties": obj{"settings-design": obj{"type": "string", "enum": []any{"classic", "modern"}}}}}}}}}}},
		Response: obj{"type": "object", "properties": obj{"data": ref("me")}}},

	"PATCH /:slug/v1/account": {Tag: views.TypeAccounts, Summary: "Change the account's settings (mfa-required, locale, watermark-drafts)",
		Description: "Needs `settings` manage. Only `mfa-required`, `locale` and `watermark-drafts` may be set (`watermark-drafts` true marks documents of projects not approved yet DRAFT on every page, docs/lifecycle.md). `mfa-required` true makes every user signing in to the account give a second factor " +
			"(docs/auth.md \"Two-step verification\"). `locale` is a BCP 47 language tag (`en-US`, `de-DE`), stored in its canonical form: " +
			"the locale documents format money, numbers and percentages in (422 naming `locale` for another value; `null` sets it back to `en-US`).",
		Body: obj{"required": true, "content": obj{"application/vnd.api+json": obj{"schema": obj{"type": "object", "properties": obj{"data": obj{
			"type": "object", "properties": obj{"type": obj{"type": "string", "enum": []any{views.TypeAccounts}}, "id": str(),
				"attributes": obj{"type": "object", "properties": obj{"mfa-required": obj{"type": "boolean"},
					"locale": obj{"type": "string", "example": "de-DE"}, "watermark-drafts": obj{"type": "boolean"}}}}}}}}}},
		Response: singleDoc(views.TypeAccounts)},
	"POST " + importPath: {Tag: "catalog import", Summary: "Import phases, resources, services, subservices, rate tables and rates from a file",
		Description: "The body is the file (at most 10 MiB; 413 above): an XLSX workbook with one sheet per kind, one CSV file " +
			"(`sheet` names its kind) or a zip of CSV files named after their sheets (docs/import.md lists the columns). " +
			"Rows are matched to records by name: a new name is created, a changed row updates its record, an unchanged one is left alone. " +
			"Every refused row is reported with its sheet, row, column and cell; with any, nothing is written (422, one error per cell, " +
			"each with a `meta` of `sheet`, `row`, `column`, `cell`). `dry-run=true` checks everything and writes nothing: 200 with the " +
			"counts and `row-errors` in `meta`. Formulas, zip bombs and files that unzip past 32 MiB are refused. " +
			"Needs manage on `catalog` and `rate_tables` for the sheets given.",
		Params: []any{queryParam("dry-run", "true: check and report, write nothing", obj{"type": "string", "enum": []any{"true", "false"}}),
			queryParam("sheet", "with a CSV body: the sheet it holds (phases, resources, services, subservices, rate-tables, rates)", str())},
		Body: obj{"required": true, "content": obj{
			catalogimport.MediaXLSX: obj{"schema": obj{"type": "string", "format": "binary"}},
			catalogimport.MediaCSV:  obj{"schema": obj{"type": "string"}},
			catalogimport.MediaZip:  obj{"schema": obj{"type": "string", "format": "binary"}}}},
		Response: obj{"type": "object", "properties": obj{"data": obj{"type": "null"}, "meta": obj{"type": "object",
			"properties": obj{"dry-run": obj{"type": "boolean"}, "written": obj{"type": "boolean"}, "sheets": obj{"type": "object"},
				"row-errors": objects(), "more-row-errors": obj{"type": "integer"}}}}},
		MoreErrors: []string{"413", "415"}},
	"POST " + questionnaireImportPath: questionnaireImportDoc,
	"GET " + templatePath: {Tag: "catalog import", Summary: "The template workbook of the import",
		Description: "Every sheet with its columns and one example row. `format=zip` gives a zip of CSV files.",
		Params:      []any{downloadFormat()}, Response: obj{"type": "string", "format": "binary"}, ResponseType: catalogimport.MediaXLSX, APIErrors: true},
	"GET " + exportPath: {Tag: "catalog import", Summary: "The account's catalog in the import's format",
		Description: "The active phases, resources, services, subservices, rate tables and rates; importing it into another account " +
			"reproduces the catalog, into the same one changes nothing. `format=zip` gives a zip of CSV files. Needs view on `catalog` and `rate_tables`.",
		Params: []any{downloadFormat()}, Response: obj{"type": "string", "format": "binary"}, ResponseType: catalogimport.MediaXLSX, APIErrors: true},

	"POST /oauth/token": {Tag: "oauth", Public: true, Summary: "Get a token (client_credentials, password, refresh_token, authorization_code)",
		Description: "A form (`application/x-www-form-urlencoded`); client id and secret in the form or with HTTP Basic. " +
			"Errors are `{\"error\", \"error_description\"}`: 400 (401 for `invalid_client`); 429 `slow_down` with `Retry-After` " +
			"(whole seconds) when throttled; 403 `access_denied` for an address blocked after a sustained loop (docs/auth.md). " +
			"A token acts in the account of the client that issued it only; a refresh answers `invalid_grant` once the account's " +
			"sign-in policy asks for more than the refresh token's sign-in gave (a second factor, or no password at all).",
		Body:     obj{"required": true, "content": obj{"application/x-www-form-urlencoded": obj{"schema": ref("TokenRequest")}}},
		Response: ref("TokenResponse"), ResponseType: "application/json"},
	"GET /oauth/token":    {Omit: "answers 405 in OAuth's error format"},
	"PUT /oauth/token":    {Omit: "answers 405 in OAuth's error format"},
	"PATCH /oauth/token":  {Omit: "answers 405 in OAuth's error format"},
	"DELETE /oauth/token": {Omit: "answers 405 in OAuth's error format"},
	"GET /.well-known/oauth-authorization-server": {Tag: "oauth", Public: true,
		Summary: "The auth host's authorization server metadata (RFC 8414)",
		Description: "Issuer, authorization and token endpoints, grant types, PKCE `S256`, token endpoint authentication " +
			"methods and scopes (none: a token grants what its user's role allows). MCP clients find it from " +
			"/.well-known/oauth-protected-resource (docs/auth.md).",
		Response: obj{"type": "object"}, ResponseType: "application/json"},
	"GET /.well-known/openid-configuration": {Tag: "oauth", Public: true,
		Summary:     "The same authorization server metadata, where OpenID Connect Discovery looks for it",
		Description: "The document of /.well-known/oauth-authorization-server (RFC 8414 section 3); ScopeKit issues no ID tokens.",
		Response:    obj{"type": "object"}, ResponseType: "application/json"},
	"GET /oauth/authorize": {Tag: "oauth", Public: true, Summary: "The login page of the authorization code flow (HTML)",
		Description: "Shows a sign-in form; on success redirects (302) to `redirect_uri?code=...&state=...`. The code is single-use and lives 10 minutes.",
		Params: []any{queryParam("response_type", "code", obj{"type": "string", "enum": []any{"code"}}),
			queryParam("client_id", "the OAuth application", str()),
			queryParam("redirect_uri", "one of the application's registered URIs, character for character", str()),
			queryParam("state", "echoed to the redirect URI", str()),
			queryParam("code_challenge", "PKCE (recommended)", str()),
			queryParam("code_challenge_method", "S256", obj{"type": "string", "enum": []any{"S256"}})},
		Response: obj{"type": "string"}, ResponseType: "text/html"},
	"POST /oauth/authorize": {Tag: "oauth", Public: true, Summary: "Sign in on the login page (the form's POST)",
		Description: "The form of GET /oauth/authorize with `email`, `password` and its CSRF token (and `mfa_setup` to set up two-step verification); " +
			"redirects (302) to the application with a code, or shows the second step's page when the user has a second factor or sets one up.",
		Status: "302", ResponseType: "text/html"},
	"POST /oauth/authorize/mfa": {Tag: "oauth", Public: true, Summary: "The second step of the login page (the code form's POST)",
		Description: "The second step's form: the request's fields, its CSRF token, the sign-in's `mfa_ticket` and `mfa_code` " +
			"(the authenticator's code, or a recovery code unless setting up); redirects (302) to the application with a code. " +
			"A wrong code shows the form again (400); throttled like the login form.",
		Status: "302", ResponseType: "text/html"},
	"GET /oauth/sso/callback": {Tag: "oauth", Public: true, Summary: "Where an account's identity provider sends the browser back (single sign-on)",
		Description: "The redirect URI to register at the identity provider. Checks the sign-in's `state` against the browser's cookie, exchanges the `code` (PKCE), verifies the ID token and its nonce, then redirects (302) to the application with a code as after a password; an HTML error page otherwise.",
		Params: []any{queryParam("state", "the sign-in's state", str()), queryParam("code", "the provider's authorization code", str()),
			queryParam("error", "the provider's refusal", str())},
		Status: "302", ResponseType: "text/html"},
	"POST /oauth/invitations/:token/accept": {Tag: "oauth", Public: true, Summary: "Accept an invitation by choosing a password",
		Description: "The password (at least 12 characters) as a form or as JSON `{\"password\": \"...\"}`. 404 for an unknown or used token, 422 for a short password.",
		Body: obj{"required": true, "content": obj{
			"application/x-www-form-urlencoded": obj{"schema": obj{"type": "object", "properties": obj{"password": str()}}},
			"application/json":                  obj{"schema": obj{"type": "object", "properties": obj{"password": str()}}}}},
		Status: "204", ResponseType: "application/json"},
	"GET /oauth/invitations/:token/accept":    {Omit: "answers 405 in OAuth's error format"},
	"PUT /oauth/invitations/:token/accept":    {Omit: "answers 405 in OAuth's error format"},
	"PATCH /oauth/invitations/:token/accept":  {Omit: "answers 405 in OAuth's error format"},
	"DELETE /oauth/invitations/:token/accept": {Omit: "answers 405 in OAuth's error format"},

	"GET /": {Tag: "reference", Public: true, Summary: "This reference (v1) as a Swagger UI page; its JSON with Accept: application/json",
		Response: obj{"type": "string"}, ResponseType: "text/html"},
	"GET /docs/v1": {Tag: "reference", Public: true, Summary: "The v1 reference as a Swagger UI page; its JSON with Accept: application/json",
		Response: obj{"type": "string"}, ResponseType: "text/html"},
	"GET /docs/v2/swagger": {Tag: "reference", Public: true, Summary: "The v2 reference as a Swagger UI page; its JSON with Accept: application/json",
		Response: obj{"type": "string"}, ResponseType: "text/html"},
	"GET /docs/v1/openapi.json": {Tag: "reference", Public: true, Summary: "The v1 reference (OpenAPI 3.1)",
		Response: obj{"type": "object"}, ResponseType: "application/json"},
	"GET /docs/v2/openapi.json": {Tag: "reference", Public: true, Summary: "The v2 reference (OpenAPI 3.1)",
		Response: obj{"type": "object"}, ResponseType: "application/json"},
	"GET /docs/v1/openapi-3.0.json": {Tag: "reference", Public: true, Summary: "The v1 reference in OpenAPI 3.0.3, which the page shows",
		Description: "The same document as /docs/v1/openapi.json in 3.0's notation (a nullable type is `nullable: true`), for tools that read OpenAPI 3.0.",
		Response:    obj{"type": "object"}, ResponseType: "application/json"},
	"GET /docs/v2/openapi-3.0.json": {Tag: "reference", Public: true, Summary: "The v2 reference in OpenAPI 3.0.3, which the page shows",
		Description: "The same document as /docs/v2/openapi.json in 3.0's notation (a nullable type is `nullable: true`), for tools that read OpenAPI 3.0.",
		Response:    obj{"type": "object"}, ResponseType: "application/json"},
	"GET /v1/merge-data/schema": {Tag: "reference", Public: true, Summary: "The JSON Schema of v2 merge data (docs/mergedata-v2.schema.json)",
		Description: "Generated from the merge-data builder's types; template uploads check every tag's path against it (docs/templates.md).",
		Response:    obj{"type": "object"}, ResponseType: "application/schema+json"},
	"GET /docs/assets/*file": {Omit: "the reference page's scripts and styles"},
}

// mountDocs describes the handlers a program may mount on the API host
// (Server.Mounts), keyed by path and then by method. A mounted path
// without an entry is still listed, as "mounted by the program"; add an
// entry here when a composition root mounts something new.
var mountDocs = map[string]map[string]routeDoc{
	"/mcp": {"POST": {Tag: "mcp", Summary: "The MCP endpoint for AI assistants (streamable HTTP, JSON-RPC)",
		Description: "Model Context Protocol over streamable HTTP, stateless, JSON answers (docs/mcp.md). Needs a bearer token the API accepts; " +
			"without one 401 with a WWW-Authenticate header pointing at /.well-known/oauth-protected-resource. Every refusal is a " +
			"JSON-RPC error object; a batch holds at most 20 messages; each token may send 10 messages per second (429 with Retry-After beyond).",
		Body:     obj{"required": true, "content": obj{"application/json": obj{"schema": obj{"type": "object", "description": "a JSON-RPC 2.0 request"}}}},
		Response: obj{"type": "object", "description": "a JSON-RPC 2.0 response"}, ResponseType: "application/json"}},
	"/.well-known/oauth-protected-resource": {"GET": {Tag: "mcp", Public: true,
		Summary:  "OAuth 2.0 protected resource metadata of the MCP endpoint (RFC 9728)",
		Response: obj{"type": "object"}, ResponseType: "application/json"}},
	"/app/": {"GET": {Omit: "the workspace's web pages for people (docs/workspace.md), not part of the API"}},
	BackupPath: {"GET": {Tag: "admin", Summary: "A consistent copy of the whole database file (operators only)",
		Description: "Needs the server's operator token (`-admin-token`) as the bearer token, never an account's: 401 without a token, " +
			"403 with another one. Streams the bbolt file (docs/operations.md, \"Backups\"); a transfer cut short is not a backup.",
		Response: obj{"type": "string", "format": "binary"}, ResponseType: "application/octet-stream", APIErrors: true}},
}

// schema returns the types the server serves: its service's, or
// scoping.DefaultSchema() for a server without one (which still serves its
// reference pages).
func (s *Server) schema() *engine.Schema {
	if s.Svc == nil {
		return scoping.DefaultSchema()
	}
	return s.Svc.Schema()
}

// openAPI is the reference of this server: OpenAPI(v2) plus, in v1, the
// handlers mounted on it.
func (s *Server) openAPI(v2 bool) map[string]any {
	doc := OpenAPI(s.schema(), v2)
	if v2 {
		return doc
	}
	paths := doc["paths"].(obj)
	for _, path := range sortedKeys(s.Mounts) {
		if mountDocs[path]["GET"].Omit != "" {
			continue
		}
		item := obj{}
		for method, d := range mountDocs[path] {
			item[strings.ToLower(method)] = op(d, nil)
		}
		if len(item) == 0 {
			item["post"] = op(routeDoc{Tag: "mounted", Summary: "A handler mounted by the program (any method)"}, nil)
		}
		paths[path] = item
	}
	doc["tags"] = tags(paths)
	return doc
}

// downloadFormat is the format parameter of the catalog downloads.
func downloadFormat() obj {
	return queryParam("format", "xlsx (default) or zip (of CSV files)", obj{"type": "string", "enum": []any{"xlsx", "zip"}})
}
