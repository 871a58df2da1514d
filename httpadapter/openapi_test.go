package httpadapter_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/scopekit/scopekit/httpadapter"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// loadReference GETs a reference URL with the Accept header given and
// returns it loaded and validated by kin-openapi.
func loadReference(t *testing.T, url, accept string) *openapi3.T {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	require.NoError(t, err)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	r, err := http.DefaultClient.Do(req) // public: no token
	require.NoError(t, err)
	defer r.Body.Close()
	require.Equal(t, http.StatusOK, r.StatusCode)
	require.Equal(t, "application/json", r.Header.Get("Content-Type"))
	var raw json.RawMessage
	require.NoError(t, json.NewDecoder(r.Body).Decode(&raw))
	doc, err := openapi3.NewLoader().LoadFromData(raw)
	require.NoError(t, err)
	require.True(t, doc.IsOpenAPI31OrLater(), doc.OpenAPI)
	require.NoError(t, doc.Validate(context.Background()))
	return doc
}

// Ensure the references are valid OpenAPI 3.1 documents that mirror the
// type declarations (every served type with its paths, read-only types
// without writes, computed attributes read-only, v2 only the curated set),
// describe the actions, reads and the token endpoint, and are served at
// their JSON URLs and, to a client asking for JSON, at the page URLs.
func TestOpenAPIReference(t *testing.T) {
	e := mustEnv(t)
	for _, tc := range []struct {
		path, accept string
		v2           bool
		prefix       string
	}{
		{"/docs/v2/openapi.json", "", true, "/v2"},
		{"/docs/v2/swagger", "application/json", true, "/v2"},
		{"/docs/v1/openapi.json", "", false, "/{slug}/v1"},
		{"/docs/v1", "application/json", false, "/{slug}/v1"},
		{"/", "application/json", false, "/{slug}/v1"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			doc := loadReference(t, e.srv.URL+tc.path, tc.accept)
			for _, def := range scoping.DefaultSchema().Types() {
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
			assert.Equal(t, []any{"draft", "pending_approval", "approved", "won", "lost", "canceled", nil}, projects["status"].Value.Enum)
			assert.NotContains(t, doc.Components.Schemas["projects_write"].Value.Properties["attributes"].Value.Properties, "contract-revenue",
				"computed attributes are not part of write bodies")

			token := doc.Paths.Find("/oauth/token")
			require.NotNil(t, token, "the token endpoint is described")
			require.NotNil(t, token.Post)
			assert.NotNil(t, token.Post.RequestBody.Value.Content.Get("application/x-www-form-urlencoded"))
			assert.NotNil(t, token.Post.Security, "the token endpoint needs no bearer token")
			assert.Contains(t, doc.Components.SecuritySchemes, "oauth2")
			submit := doc.Paths.Find(tc.prefix + "/projects/{id}/submit")
			require.NotNil(t, submit)
			assert.NotNil(t, submit.Post)
			assert.NotNil(t, submit.Post.Responses.Value("422"), "errors are described")
			queue := doc.Paths.Find(tc.prefix + "/project-documents")
			require.NotNil(t, queue)
			assert.NotNil(t, queue.Post.Responses.Value("429"), "generation is throttled")
			download := doc.Paths.Find(tc.prefix + "/project-documents/{id}/download")
			require.NotNil(t, download)
			for _, code := range []string{"400", "401", "403", "404", "409"} {
				assert.NotNil(t, download.Get.Responses.Value(code), "a download's failures are JSON:API errors: %s", code)
			}
			if !tc.v2 {
				file := doc.Paths.Find("/{slug}/v1/document-templates/{id}/file")
				require.NotNil(t, file)
				assert.NotNil(t, file.Get.Responses.Value("404"), "no file yet")
				for _, code := range []string{"413", "415", "422"} {
					assert.NotNil(t, file.Put.Responses.Value(code), "an upload's failures: %s", code)
				}
				md := doc.Paths.Find("/{slug}/v1/projects/{id}/merge-data")
				require.NotNil(t, md, "merge data is described")
				assert.NotNil(t, md.Get.Parameters.GetByInAndName("query", "version"))
				require.NotNil(t, doc.Paths.Find("/{slug}/v1/projects/{id}/pricing"))
				require.NotNil(t, doc.Paths.Find("/{slug}/v1/users/{id}/credentials"))
				require.NotNil(t, doc.Paths.Find("/oauth/invitations/{token}/accept"))
			}
		})
	}
}

// Ensure every route the server answers is in the reference: the test
// walks the routes the routers were given and expands the generic ones
// (/:type, /:rel) from the type declarations and the action and read
// tables. A failure names the route and where to describe it.
func TestEveryRouteIsDescribed(t *testing.T) {
	e := mustEnv(t)
	v1 := loadReference(t, e.srv.URL+"/docs/v1/openapi.json", "")
	v2 := loadReference(t, e.srv.URL+"/docs/v2/openapi.json", "")
	s := &httpadapter.Server{}
	s.Handler()
	served := s.ServedRoutes()
	require.Greater(t, len(served), 20)
	actions, reads := s.ExtraRoutes()
	param := regexp.MustCompile(`[:*][a-z]+`)

	described := func(doc *openapi3.T, method, path string) bool {
		item := doc.Paths.Find(path)
		return item != nil && item.GetOperation(method) != nil
	}
	for _, route := range served {
		method, pattern, _ := strings.Cut(route, " ")
		if !strings.Contains(pattern, ":type") {
			ok, omit := httpadapter.RouteDescribed(route)
			if omit != "" {
				continue
			}
			path := param.ReplaceAllStringFunc(pattern, func(p string) string { return "{" + p[1:] + "}" })
			doc := v1
			if strings.HasPrefix(pattern, "/v2/") {
				doc = v2
			}
			assert.True(t, ok && described(doc, method, path),
				"%s is served but not in the reference: describe it in routeDocs (httpadapter/openapi_routes.go) under the key %q", route, route)
			continue
		}
		isV2 := strings.HasPrefix(pattern, "/v2/")
		doc, prefix := v1, "/{slug}/v1"
		if isV2 {
			doc, prefix = v2, "/v2"
		}
		for _, def := range scoping.DefaultSchema().Types() {
			if !def.Served() || (isV2 && !def.V2) {
				continue
			}
			rest := strings.TrimPrefix(strings.TrimPrefix(pattern, "/:slug/v1"), "/v2")
			var paths []string
			switch rest {
			case "/:type", "/:type/:id":
				if (method == http.MethodPost && def.ReadOnly && def.Hooks.Create == nil) ||
					((method == http.MethodPatch || method == http.MethodDelete) && def.ReadOnly) {
					continue // answered 405 by the engine
				}
				paths = []string{prefix + strings.ReplaceAll(strings.ReplaceAll(rest, ":type", def.Name), ":id", "{id}")}
			case "/:type/:id/:rel":
				if method == http.MethodGet {
					for _, r := range def.Rels {
						if target, ok := scoping.DefaultSchema().Lookup(r.Type); ok && target.Served() && (!isV2 || target.V2) {
							paths = append(paths, prefix+"/"+def.Name+"/{id}/"+r.Name)
						}
					}
					for _, k := range reads {
						if typ, name, _ := strings.Cut(k, "/"); typ == def.Name && (!isV2 || httpadapter.V2Read(k)) {
							path := prefix + "/" + def.Name + "/{id}/" + name
							assert.True(t, described(doc, method, path),
								"GET %s is served but not in the reference: describe it in readDocs (httpadapter/actions.go) under %q", path, k)
						}
					}
				} else if method == http.MethodPut {
					for _, k := range s.UploadRoutes() {
						if typ, name, _ := strings.Cut(k, "/"); typ == def.Name && !isV2 {
							path := prefix + "/" + def.Name + "/{id}/" + name
							assert.True(t, described(doc, method, path),
								"PUT %s is served but not in the reference: describe it in uploadDocs (httpadapter/documents.go) under %q", path, k)
						}
					}
				} else if method == http.MethodPost {
					for _, k := range actions {
						if typ, name, _ := strings.Cut(k, "/"); typ == def.Name && !(isV2 && httpadapter.V1OnlyAction(k)) {
							path := prefix + "/" + def.Name + "/{id}/" + name
							assert.True(t, described(doc, method, path),
								"POST %s is served but not in the reference: describe it in actionDocs (httpadapter/actions.go) under %q", path, k)
						}
					}
				} else {
					t.Errorf("route %s: the test expands /:rel for GET (reads), POST (actions) and PUT (uploads) only; teach it (and the generator, openapi.go) which names this method serves", route)
				}
			case "/:type/:id/:rel/:relid":
				for _, r := range def.Rels {
					if target, ok := scoping.DefaultSchema().Lookup(r.Type); ok && r.ToMany && target.Served() && (!isV2 || target.V2) {
						paths = append(paths, prefix+"/"+def.Name+"/{id}/"+r.Name+"/{relid}")
					}
				}
			case "/:type/:id/:rel/:relid/:sub/:subid":
				for k, p := range s.DeepReads() {
					if typ, _, _ := strings.Cut(k, "/"); typ == def.Name {
						require.NotEmpty(t, p, "deep read %s: describe it in deepReadDocs (httpadapter/lifecycle.go)", k)
						paths = append(paths, prefix+"/"+def.Name+p)
					}
				}
			default:
				t.Errorf("route %s: the test cannot expand this generic pattern; teach TestEveryRouteIsDescribed and the generator (openapi.go) about it", route)
			}
			for _, p := range paths {
				assert.True(t, described(doc, method, p), "%s %s (route %s) is served but not in the reference", method, p, route)
			}
		}
	}
	require.NotNil(t, v1.Paths.Find("/{slug}/v1/account"), "GET /{slug}/v1/account shares the collection route")
}

// Ensure the pages are HTML that loads only local assets, every one of
// which is served; a browser's Accept gets the page on each page URL.
func TestReferencePagesUseLocalAssets(t *testing.T) {
	e := mustEnv(t)
	for _, path := range []string{"/", "/docs/v1", "/docs/v2/swagger"} {
		t.Run(path, func(t *testing.T) {
			for _, accept := range []string{"text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", "", "*/*"} {
				req, _ := http.NewRequest(http.MethodGet, e.srv.URL+path, nil)
				if accept != "" {
					req.Header.Set("Accept", accept)
				}
				r, err := http.DefaultClient.Do(req)
				require.NoError(t, err)
				body, _ := io.ReadAll(r.Body)
				r.Body.Close()
				require.Equal(t, http.StatusOK, r.StatusCode)
				require.Equal(t, "text/html", r.Header.Get("Content-Type"))
				page := string(body)
				require.Contains(t, page, `id="swagger-ui"`)
				want := "/docs/v1/openapi-3.0.json" // the pages show the 3.0.3 rendering
				if path == "/docs/v2/swagger" {
					want = "/docs/v2/openapi-3.0.json"
				}
				require.Contains(t, page, want)
				refs := regexp.MustCompile(`(?:src|href)="([^"]+)"`).FindAllStringSubmatch(page, -1)
				require.GreaterOrEqual(t, len(refs), 4)
				for _, m := range refs {
					require.True(t, strings.HasPrefix(m[1], "/docs/assets/"), "the page loads %s, which is not a local asset", m[1])
					a, err := http.Get(e.srv.URL + m[1])
					require.NoError(t, err)
					n, _ := io.Copy(io.Discard, a.Body)
					a.Body.Close()
					require.Equal(t, http.StatusOK, a.StatusCode, m[1])
					require.Greater(t, n, int64(100), m[1])
				}
				require.NotRegexp(t, `https?://[A-Za-z0-9]`, page, "nothing is fetched from elsewhere")
			}
		})
	}
}

// Ensure the handlers a program mounts on the API host are in the v1
// reference: described when known (mountDocs), listed when not.
func TestReferenceListsMounts(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})
	s := &httpadapter.Server{Mounts: map[string]http.Handler{"/mcp": h, "/custom-hook": h}}
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	v1 := loadReference(t, srv.URL+"/docs/v1/openapi.json", "")
	mcp := v1.Paths.Find("/mcp")
	require.NotNil(t, mcp)
	require.NotNil(t, mcp.Post)
	assert.Contains(t, mcp.Post.Description, "Model Context Protocol")
	require.NotNil(t, v1.Paths.Find("/custom-hook"), "an unknown mount is listed")
	assert.Nil(t, v1.Paths.Find("/.well-known/oauth-protected-resource"), "what is not mounted is not listed")
	v2 := loadReference(t, srv.URL+"/docs/v2/openapi.json", "")
	assert.Nil(t, v2.Paths.Find("/mcp"))
}
