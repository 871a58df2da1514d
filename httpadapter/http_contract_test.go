package httpadapter_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/scopekit/scopekit/httpadapter"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The wire rules of docs/http.md: media types, statuses, error documents,
// authentication failures, limits and robustness.

const mediaType = "application/vnd.api+json"

// Ensure GET negotiates Accept: JSON:API without parameters or */* (or no
// Accept at all) is served, anything else is 406.
func TestAcceptNegotiation(t *testing.T) {
	e := mustEnv(t)
	tok := e.admin()
	for _, tc := range []struct {
		name   string
		accept string // "" removes the header
		want   int
	}{
		{"json:api", mediaType, http.StatusOK},
		{"missing is */*", "", http.StatusOK},
		{"any", "*/*", http.StatusOK},
		{"json:api among others", "text/html, " + mediaType, http.StatusOK},
		{"html", "text/html", http.StatusNotAcceptable},
		{"json:api with a parameter only", mediaType + "; charset=utf-8", http.StatusNotAcceptable},
		{"plain json", "application/json", http.StatusNotAcceptable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.req(http.MethodGet, "/v2/clients", tok, "", "Accept", tc.accept)
			if tc.want == http.StatusOK {
				require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
			} else {
				assert.Equal(t, "not_acceptable", assertError(t, r, tc.want, "")["code"])
			}
			assert.Equal(t, mediaType, r.Header.Get("Content-Type"))
		})
	}
}

// Ensure a missing Accept does not hide the real answer (here a 404 and a 401).
func TestMissingAcceptIsLenient(t *testing.T) {
	e := mustEnv(t)
	assertError(t, e.req(http.MethodGet, "/v2/clients/999", e.admin(), "", "Accept", ""), http.StatusNotFound, "")
	assertError(t, e.req(http.MethodGet, "/v2/clients", "", "", "Accept", ""), http.StatusUnauthorized, "")
}

// Ensure writes need Content-Type application/vnd.api+json (in any case):
// missing is 400 naming Content-Type, another type or parameters are 415,
// and nothing is written.
func TestWriteContentType(t *testing.T) {
	e := mustEnv(t)
	tok := e.admin()
	id := e.create("/v2/clients", tok, "clients", `{"name":"Kept"}`)
	for _, tc := range []struct {
		name        string
		contentType string // "" removes the header
		want        int
	}{
		{"missing", "", http.StatusBadRequest},
		{"plain json", "application/json", http.StatusUnsupportedMediaType},
		{"ext parameter", mediaType + "; ext=x", http.StatusUnsupportedMediaType},
		{"charset parameter", mediaType + "; charset=utf-8", http.StatusUnsupportedMediaType},
		{"text", "text/plain", http.StatusUnsupportedMediaType},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, w := range []struct{ method, path, body string }{
				{http.MethodPost, "/v2/clients", doc("clients", "", `{"name":"New"}`)},
				{http.MethodPatch, "/v2/clients/" + id, doc("clients", id, `{"name":"Changed"}`)},
			} {
				r := e.req(w.method, w.path, tok, w.body, "Content-Type", tc.contentType)
				first := assertError(t, r, tc.want, "")
				if tc.want == http.StatusBadRequest {
					assert.Contains(t, first["detail"], "Content-Type", "%s %s", w.method, r.Body)
				}
			}
		})
	}
	assert.Equal(t, "Kept", e.get("/v2/clients/"+id, tok).attr("name"))
	assert.EqualValues(t, 1, e.get("/v2/clients", tok).meta("record-count"))

	// a media type's case does not matter (RFC 9110)
	r := e.req(http.MethodPatch, "/v2/clients/"+id, tok, doc("clients", id, `{"name":"Cased"}`), "Content-Type", "Application/VND.API+JSON")
	assert.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
}

// Ensure a create answers 201 with a Location that serves the record, a
// DELETE answers 204 with no body, and the record is then gone.
func TestCreateLocationAndDelete(t *testing.T) {
	e := mustEnv(t)
	tok := e.admin()
	for _, prefix := range []string{"/v2", "/acme/v1"} {
		t.Run(prefix, func(t *testing.T) {
			r := e.req(http.MethodPost, prefix+"/clients", tok, doc("clients", "", `{"name":"Located `+prefix+`"}`))
			require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
			assert.Equal(t, mediaType, r.Header.Get("Content-Type"))
			id := r.data()["id"].(string)
			loc, err := url.Parse(r.Header.Get("Location"))
			require.NoError(t, err)
			assert.Equal(t, prefix+"/clients/"+id, loc.Path)

			show := e.get(loc.Path, tok)
			require.Equal(t, http.StatusOK, show.Status, "%s", show.Body)
			assert.Equal(t, id, show.data()["id"])
			assert.Equal(t, "Located "+prefix, show.attr("name"))

			del := e.req(http.MethodDelete, loc.Path, tok, "")
			assert.Equal(t, http.StatusNoContent, del.Status, "%s", del.Body)
			assert.Empty(t, del.Body)
			assertError(t, e.req(http.MethodGet, loc.Path+"?filter[active]=true,false", tok, ""), http.StatusNotFound, "")
		})
	}
}

// Ensure unknown routes are a 404 JSON:API error and a wrong method on a
// known route is 405 with Allow.
func TestUnknownRouteAndMethod(t *testing.T) {
	e := mustEnv(t)
	tok := e.admin()
	for _, path := range []string{"/nowhere", "/v2", "/v2/clients/1/name/extra", "/acme/v2/clients", "/v1/me/extra"} {
		assertError(t, e.req(http.MethodGet, path, tok, ""), http.StatusNotFound, "")
	}
	for _, tc := range []struct {
		method, path string
		allow        []string
	}{
		{http.MethodPut, "/v2/projects", []string{"GET", "POST"}},
		{http.MethodDelete, "/v2/projects", []string{"GET", "POST"}},
		{http.MethodPut, "/acme/v1/clients/1", []string{"GET", "PATCH", "DELETE"}},
		{http.MethodPost, "/v1/me", []string{"GET", "PATCH"}},
	} {
		r := e.req(tc.method, tc.path, tok, "")
		assert.Equal(t, "method_not_allowed", assertError(t, r, http.StatusMethodNotAllowed, "")["code"])
		for _, m := range tc.allow {
			assert.Contains(t, r.Header.Get("Allow"), m, "%s %s", tc.method, tc.path)
		}
	}
}

// Ensure request bodies above 1 MiB are refused with 413, whether the
// length is declared or the body is streamed, and nothing is stored.
func TestBodyLimit(t *testing.T) {
	e := mustEnv(t)
	tok := e.admin()
	big := doc("clients", "", `{"name":"Big","domain":"`+strings.Repeat("x", httpadapter.MaxBodyBytes)+`"}`)
	assertError(t, e.req(http.MethodPost, "/v2/clients", tok, big), http.StatusRequestEntityTooLarge, "")

	r := e.newRequest(e.srv.URL, http.MethodPost, "/v2/clients", tok, big)
	r.Body = io.NopCloser(io.MultiReader(strings.NewReader(big))) // no length: chunked
	r.ContentLength = 0
	assertError(t, e.send(r), http.StatusRequestEntityTooLarge, "")

	// just under the limit is fine (the padding is in meta: attribute
	// values have smaller limits of their own)
	ok := `{"data":{"type":"clients","attributes":{"name":"Small"}},"meta":{"pad":"` + strings.Repeat("x", httpadapter.MaxBodyBytes-200) + `"}}`
	require.Equal(t, http.StatusCreated, e.req(http.MethodPost, "/v2/clients", tok, ok).Status)
	assert.EqualValues(t, 1, e.get("/v2/clients", tok).meta("record-count"))
}

// Ensure every response carries an X-Request-Id: the client's when sane,
// a generated one when absent or not sane.
func TestRequestID(t *testing.T) {
	e := mustEnv(t)
	tok := e.admin()
	for _, tc := range []struct {
		name, sent string
		echoed     bool
	}{
		{"absent", "", false},
		{"sane", "req-42.abc_DEF", true},
		{"128 characters", strings.Repeat("b", 128), true},
		{"129 characters", strings.Repeat("b", 129), false},
		{"too long", strings.Repeat("a", 300), false},
		{"spaces", "has spaces in it", false},
		{"other punctuation", "id%01<x>", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.req(http.MethodGet, "/v2/clients", tok, "", "X-Request-Id", tc.sent)
			require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
			got := r.Header.Get("X-Request-Id")
			require.NotEmpty(t, got)
			if tc.echoed {
				assert.Equal(t, tc.sent, got)
				return
			}
			assert.NotEqual(t, tc.sent, got)
			assert.LessOrEqual(t, len(got), 128)
			assert.NotContains(t, got, " ")
		})
	}
	a := e.get("/v2/clients", tok).Header.Get("X-Request-Id")
	b := e.get("/v2/clients", tok).Header.Get("X-Request-Id")
	assert.NotEqual(t, a, b, "generated ids are unique")
	// errors carry one too
	assert.NotEmpty(t, e.get("/nowhere", tok).Header.Get("X-Request-Id"))
}

// Ensure malformed write documents answer 400, 403 or 409 with the pointer
// of the offending member, and nothing is written.
func TestWriteDocumentErrors(t *testing.T) {
	e := mustEnv(t)
	tok := e.admin()
	client := e.create("/v2/clients", tok, "clients", `{"name":"Original"}`)
	res := e.create("/v2/resources", tok, "resources", `{"name":"Engineer"}`)
	for _, tc := range []struct {
		name, method, path, body string
		status                   int
		pointer                  string
	}{
		{"type mismatch on create", http.MethodPost, "/v2/clients", doc("projects", "", `{"name":"x"}`), http.StatusConflict, "/data/type"},
		{"type mismatch on update", http.MethodPatch, "/v2/clients/" + client, doc("projects", client, `{"name":"x"}`), http.StatusConflict, "/data/type"},
		{"id mismatch on update", http.MethodPatch, "/v2/clients/" + client, doc("clients", client+"0", `{"name":"x"}`), http.StatusConflict, "/data/id"},
		{"id in create", http.MethodPost, "/v2/clients", doc("clients", "77", `{"name":"x"}`), http.StatusForbidden, "/data/id"},
		{"malformed json", http.MethodPost, "/v2/clients", `{"data":{"type":"clients",`, http.StatusBadRequest, ""},
		{"malformed json on update", http.MethodPatch, "/v2/clients/" + client, `{"data":`, http.StatusBadRequest, ""},
		{"no data", http.MethodPost, "/v2/clients", `{"meta":{}}`, http.StatusBadRequest, "/data"},
		{"unknown attribute", http.MethodPost, "/v2/clients", doc("clients", "", `{"name":"x","colour":"red"}`), http.StatusBadRequest, "/data/attributes/colour"},
		{"unknown attribute on update", http.MethodPatch, "/v2/clients/" + client, doc("clients", client, `{"colour":"red"}`), http.StatusBadRequest, "/data/attributes/colour"},
		{"unknown relationship", http.MethodPost, "/v2/clients", doc("clients", "", `{"name":"x"}`, "owner", "users", "1"), http.StatusBadRequest, "/data/relationships/owner"},
		{"string for a boolean", http.MethodPatch, "/v2/clients/" + client, doc("clients", client, `{"active":"yes"}`), http.StatusBadRequest, "/data/attributes/active"},
		{"object for a decimal", http.MethodPatch, "/v2/resources/" + res, doc("resources", res, `{"hourly-rate":{"amount":1}}`), http.StatusBadRequest, "/data/attributes/hourly-rate"},
		{"boolean for a decimal", http.MethodPatch, "/v2/resources/" + res, doc("resources", res, `{"hourly-cost":true}`), http.StatusBadRequest, "/data/attributes/hourly-cost"},
		{"number for a string", http.MethodPatch, "/v2/clients/" + client, doc("clients", client, `{"name":5}`), http.StatusBadRequest, "/data/attributes/name"},
		{"array for an object", http.MethodPatch, "/v2/clients/" + client, doc("clients", client, `{"user-defined-fields":[]}`), http.StatusBadRequest, "/data/attributes/user-defined-fields"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			first := assertError(t, e.req(tc.method, tc.path, tok, tc.body), tc.status, tc.pointer)
			assert.NotEmpty(t, first["detail"])
		})
	}
	assert.Equal(t, "Original", e.get("/v2/clients/"+client, tok).attr("name"))
	assert.EqualValues(t, 1, e.get("/v2/clients", tok).meta("record-count"))
	assert.Nil(t, e.get("/v2/resources/"+res, tok).attr("hourly-rate"))
}

// Ensure every validation failure of one request comes back, one error
// object each.
func TestAllValidationErrorsTogether(t *testing.T) {
	e := mustEnv(t)
	tok := e.admin()
	client := e.create("/v2/clients", tok, "clients", `{"name":"Acme Corp"}`)
	proj := e.create("/v2/projects", tok, "projects", `{"project-name":"P"}`, "client", "clients", client)

	r := e.req(http.MethodPost, "/acme/v1/project-governances", tok, doc("project-governances", "",
		`{"name":"PM","rate":12,"allocation-method":"assign_to_category"}`, "project", "projects", proj))
	assertError(t, r, http.StatusUnprocessableEntity, "/data/attributes/rate")
	assertError(t, r, http.StatusUnprocessableEntity, "/data/relationships/service-category")
	assert.Len(t, r.errors(), 2, "%s", r.Body)

	r = e.req(http.MethodPost, "/v2/projects", tok, doc("projects", "", `{"project-name":"  "}`))
	assertError(t, r, http.StatusUnprocessableEntity, "/data/attributes/project-name")
	assertError(t, r, http.StatusUnprocessableEntity, "/data/relationships/client")
	assert.Len(t, r.errors(), 2, "%s", r.Body)
}

// Ensure a request without a token, with a garbage token or with a
// malformed Authorization header answers 401 (never 500) on every route
// family, with no detail in the body.
func TestUnauthorized(t *testing.T) {
	e := mustEnv(t)
	tok := e.admin()
	client := e.create("/v2/clients", tok, "clients", `{"name":"C"}`)
	routes := []struct{ method, path, body string }{
		{http.MethodGet, "/v2/projects", ""},
		{http.MethodGet, "/v2/clients/" + client, ""},
		{http.MethodGet, "/acme/v1/projects", ""},
		{http.MethodGet, "/acme/v1/clients/" + client, ""},
		{http.MethodGet, "/acme/v1/account", ""},
		{http.MethodGet, "/v1/me", ""},
		{http.MethodPatch, "/v1/me", doc("me", "1", `{"settings-design":"modern"}`)},
		{http.MethodGet, "/acme/v1/project-download-types", ""},
		{http.MethodGet, "/acme/v1/integrated-products", ""},
		{http.MethodGet, "/nosuchaccount/v1/projects", ""},
		{http.MethodPost, "/v2/clients", doc("clients", "", `{"name":"x"}`)},
		{http.MethodPatch, "/v2/clients/" + client, doc("clients", client, `{"name":"x"}`)},
		{http.MethodDelete, "/v2/clients/" + client, ""},
		{http.MethodPost, "/acme/v1/projects/1/apply-blueprint", `{"data":{"type":"blueprints","id":"1"}}`},
	}
	for _, auth := range []struct{ name, header string }{
		{"no token", ""},
		{"garbage token", "Bearer garbage"},
		{"long garbage token", "Bearer " + strings.Repeat("Zz9", 100)},
		{"not bearer", "Basic YWRtaW46c2VjcmV0"},
		{"token of the wrong scheme", "Token " + tok},
	} {
		t.Run(auth.name, func(t *testing.T) {
			for _, rt := range routes {
				r := e.req(rt.method, rt.path, "", rt.body, "Authorization", auth.header)
				first := assertError(t, r, http.StatusUnauthorized, "")
				_, hasDetail := first["detail"]
				assert.False(t, hasDetail, "%s %s: %s", rt.method, rt.path, r.Body)
			}
		})
	}
	assert.Equal(t, "C", e.get("/v2/clients/"+client, tok).attr("name"))
}

// Ensure account slugs: unknown is 404, another account's is 403, v1
// without a slug is 404, and types outside v2's curated set are 404 on v2
// but served on v1.
func TestAccountSlugsAndVersions(t *testing.T) {
	e := mustEnv(t)
	tok := e.admin()
	assertError(t, e.get("/nosuchaccount/v1/clients", tok), http.StatusNotFound, "")
	assertError(t, e.get("/globex/v1/clients", tok), http.StatusForbidden, "")
	assertError(t, e.get("/globex/v1/account", tok), http.StatusForbidden, "")
	assertError(t, e.get("/v1/projects", tok), http.StatusNotFound, "")
	assertError(t, e.get("/v1/clients", tok), http.StatusNotFound, "")
	assertError(t, e.get("/v2/roles", tok), http.StatusNotFound, "")
	assertError(t, e.get("/v2/blueprints", tok), http.StatusNotFound, "")
	assertError(t, e.req(http.MethodPost, "/v2/roles", tok, doc("roles", "", `{"name":"x"}`)), http.StatusNotFound, "")
	assertError(t, e.get("/acme/v1/no-such-type", tok), http.StatusNotFound, "")
	assertError(t, e.get("/acme/v1/accounts", tok), http.StatusNotFound, "")
	r := e.get("/acme/v1/roles", tok)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.EqualValues(t, 4, r.meta("record-count"))
	for _, typ := range []string{"projects", "project-services", "project-subservices", "clients", "services", "subservices",
		"approved-services", "approved-subservices", "lines-of-business", "phases", "service-categories", "resources", "rate-tables"} {
		if _, ok := scoping.DefaultSchema().Lookup(typ); !ok {
			continue // declared by a later issue
		}
		assert.Equal(t, http.StatusOK, e.get("/v2/"+typ, tok).Status, typ)
	}
}

// quietServer serves srv's handler with a discarded log.
func quietServer(t *testing.T, s *httpadapter.Server) *httptest.Server {
	s.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	return ts
}

// Ensure a panicking handler answers 500 "Internal error" and the server
// keeps serving. The handler is made to panic by a Service without a store.
func TestPanicAnswers500(t *testing.T) {
	e := mustEnv(t)
	tok := e.admin()
	ts := quietServer(t, &httpadapter.Server{Svc: &scoping.Service{}, Auth: e.auth})
	for range 3 {
		r := e.send(e.newRequest(ts.URL, http.MethodGet, "/v2/clients", tok, ""))
		first := assertError(t, r, http.StatusInternalServerError, "")
		assert.Equal(t, "Internal error", first["detail"])
		assert.NotEmpty(t, r.Header.Get("X-Request-Id"))
	}
	// still serving what does not need the store
	assertError(t, e.send(e.newRequest(ts.URL, http.MethodGet, "/v2/clients", "", "")), http.StatusUnauthorized, "")
	assertError(t, e.send(e.newRequest(ts.URL, http.MethodGet, "/nowhere", tok, "")), http.StatusNotFound, "")
}

// Ensure a request that outlives the server's timeout answers 504 with a
// JSON:API error instead of hanging.
func TestTimeoutAnswers504(t *testing.T) {
	e := mustEnv(t)
	tok := e.admin()
	ts := quietServer(t, &httpadapter.Server{Svc: e.svc, Auth: e.auth, Timeout: time.Nanosecond})
	for _, path := range []string{"/v2/clients", "/acme/v1/projects", "/v1/me"} {
		r := e.send(e.newRequest(ts.URL, http.MethodGet, path, tok, ""))
		assertError(t, r, http.StatusGatewayTimeout, "")
		assert.NotEmpty(t, r.Header.Get("X-Request-Id"))
	}
	// the normal server is unaffected
	assert.Equal(t, http.StatusOK, e.get("/v2/clients", tok).Status)
}

// Ensure a token whose membership was deactivated answers 401 on every
// route, while the user's membership elsewhere keeps working.
func TestDeactivatedMemberIsUnauthorized(t *testing.T) {
	e := mustEnv(t)
	admin := e.admin()
	uid, tok := e.user("acme", "leaver@acme.test", "Sales")
	elsewhere := e.token("globex", "leaver@acme.test", "Sales")
	require.Equal(t, http.StatusOK, e.get("/v2/clients", tok).Status)

	e.patch("/acme/v1/users/"+uid, admin, "users", uid, `{"active":false}`)
	for _, path := range []string{"/v2/clients", "/acme/v1/clients", "/v1/me", "/acme/v1/account"} {
		first := assertError(t, e.get(path, tok), http.StatusUnauthorized, "")
		assert.NotContains(t, first, "detail", path)
	}
	assert.Equal(t, http.StatusOK, e.get("/v2/clients", elsewhere).Status, "the globex membership is untouched")
	assertError(t, e.get("/acme/v1/clients", elsewhere), http.StatusForbidden, "")
}

// Ensure a query parameter given twice or a malformed query string is 400.
func TestAmbiguousQuery(t *testing.T) {
	e := mustEnv(t)
	tok := e.admin()
	assertError(t, e.get("/v2/clients?sort=name&sort=-name", tok), http.StatusBadRequest, "sort")
	assertError(t, e.get("/v2/clients?page[size]=1&page[size]=2", tok), http.StatusBadRequest, "page[size]")
	assertError(t, e.get("/v2/clients?filter[name]=a&filter[name]=b", tok), http.StatusBadRequest, "filter[name]")
	assertError(t, e.get("/v2/clients?filter[name]=%zz", tok), http.StatusBadRequest, "")
	assertError(t, e.get("/v2/clients?filter[name=x", tok), http.StatusBadRequest, "filter[name")
}
