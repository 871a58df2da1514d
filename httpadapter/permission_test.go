package httpadapter_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Roles, permissions and project visibility (docs/resources.md "Accounts,
// users, roles"), and the separation of accounts.

// Ensure each built-in role, and a custom role naming only clients: view,
// gets exactly the access of the docs/resources.md tables: view allows reads,
// manage reads and writes, and an unnamed permission is none.
func TestRolePermissions(t *testing.T) {
	e := mustEnv(t)
	admin := e.admin()
	r := e.req(http.MethodPost, "/acme/v1/roles", admin, doc("roles", "", `{"name":"Client viewer","permissions":{"clients":"view"}}`))
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	assert.Equal(t, "all", r.attr("project-visibility"))

	client := e.create("/v2/clients", admin, "clients", `{"name":"Fixture"}`)
	proj := e.create("/v2/projects", admin, "projects", `{"project-name":"Fixture"}`, "client", "clients", client)
	svc := e.create("/v2/services", admin, "services", `{"name":"Fixture"}`)
	terms := e.create("/acme/v1/general-terms", admin, "general-terms", `{"name":"Warranty","body":"Fixture."}`)

	// each row: a request (%[1]s is a name unique to the role) and the
	// status per role, in the order of roles
	roles := []string{"Account Admin", "Sales", "Engineer", "Read Only", "Client viewer"}
	const ok, made, no = http.StatusOK, http.StatusCreated, http.StatusForbidden
	rows := []struct {
		name, method, path, body string
		want                     [5]int
	}{
		{"list clients", "GET", "/v2/clients", "", [5]int{ok, ok, ok, ok, ok}},
		{"show client", "GET", "/acme/v1/clients/" + client, "", [5]int{ok, ok, ok, ok, ok}},
		{"create client", "POST", "/v2/clients", doc("clients", "", `{"name":"C %[1]s"}`), [5]int{made, made, no, no, no}},
		{"update client", "PATCH", "/v2/clients/" + client, doc("clients", client, `{"domain":"%[1]s.test"}`), [5]int{ok, ok, no, no, no}},
		{"list projects", "GET", "/v2/projects", "", [5]int{ok, ok, ok, ok, no}},
		{"create project", "POST", "/v2/projects", doc("projects", "", `{"project-name":"P %[1]s"}`, "client", "clients", client), [5]int{made, made, made, no, no}},
		{"update project", "PATCH", "/v2/projects/" + proj, doc("projects", proj, `{"executive-summary":"%[1]s"}`), [5]int{ok, ok, http.StatusNotFound, no, no}},
		{"list services", "GET", "/v2/services", "", [5]int{ok, ok, ok, ok, no}},
		{"create service", "POST", "/v2/services", doc("services", "", `{"name":"S %[1]s"}`), [5]int{made, no, no, no, no}},
		{"update service", "PATCH", "/v2/services/" + svc, doc("services", svc, `{"sku":"%[1]s"}`), [5]int{ok, no, no, no, no}},
		{"list rate tables", "GET", "/v2/rate-tables", "", [5]int{ok, ok, ok, ok, no}},
		{"create rate table", "POST", "/v2/rate-tables", doc("rate-tables", "", `{"name":"RT %[1]s"}`), [5]int{made, no, no, no, no}},
		{"list governances", "GET", "/acme/v1/governances", "", [5]int{ok, ok, ok, ok, no}},
		{"create governance", "POST", "/acme/v1/governances", doc("governances", "", `{"name":"G %[1]s"}`), [5]int{made, no, no, no, no}},
		{"list users", "GET", "/acme/v1/users", "", [5]int{ok, ok, no, no, no}},
		{"create user", "POST", "/acme/v1/users", doc("users", "", `{"name":"U","email":"u-%[1]s@acme.test"}`), [5]int{made, no, no, no, no}},
		{"list roles", "GET", "/acme/v1/roles", "", [5]int{ok, ok, no, no, no}},
		{"list integrated products", "GET", "/acme/v1/integrated-products", "", [5]int{ok, ok, no, ok, no}},
		{"list general terms", "GET", "/acme/v1/general-terms", "", [5]int{ok, ok, no, ok, no}},
		{"create general terms", "POST", "/acme/v1/general-terms", doc("general-terms", "", `{"name":"T %[1]s","body":"Text."}`), [5]int{made, no, no, no, no}},
		{"update general terms", "PATCH", "/acme/v1/general-terms/" + terms, doc("general-terms", terms, `{"body":"By %[1]s."}`), [5]int{ok, no, no, no, no}},
		{"create user-defined field", "POST", "/acme/v1/user-defined-fields", doc("user-defined-fields", "", `{"name":"f_%[1]s","resource-type":"clients"}`), [5]int{made, no, no, no, no}},
		{"list project download types", "GET", "/acme/v1/project-download-types", "", [5]int{ok, ok, ok, ok, no}},
		{"read the account", "GET", "/acme/v1/account", "", [5]int{ok, ok, ok, ok, ok}},
		{"read me", "GET", "/v1/me", "", [5]int{ok, ok, ok, ok, ok}},
		{"set my preferences", "PATCH", "/v1/me", doc("me", "%[2]s", `{"settings-design":"modern"}`), [5]int{ok, ok, ok, no, no}},
	}
	for i, role := range roles {
		slug := strings.ToLower(strings.ReplaceAll(role, " ", "_"))
		uid, tok := e.user("acme", slug+"@acme.test", role)
		t.Run(role, func(t *testing.T) {
			for _, row := range rows {
				body := row.body
				if body != "" {
					body = fmt.Sprintf(body, slug, uid)
				}
				r := e.req(row.method, row.path, tok, body)
				want := row.want[i]
				if want == no || want == http.StatusNotFound {
					assertError(t, r, want, "")
					continue
				}
				assert.Equal(t, want, r.Status, "%s: %s", row.name, r.Body)
			}
		})
	}
	// the forbidden writes wrote nothing
	for _, tc := range []struct {
		path  string
		count int
	}{
		{"/v2/clients", 3}, {"/v2/projects", 4}, {"/v2/services", 2}, {"/v2/rate-tables", 1},
		{"/acme/v1/governances", 1}, {"/acme/v1/user-defined-fields", 1},
	} {
		assert.EqualValues(t, tc.count, e.get(tc.path, admin).meta("record-count"), tc.path)
	}
	assert.Equal(t, "sales.test", e.get("/v2/clients/"+client, admin).attr("domain"))
	assert.Equal(t, "account_admin", e.get("/v2/services/"+svc, admin).attr("sku"))
	assert.Equal(t, "sales", e.get("/v2/projects/"+proj, admin).attr("executive-summary"))
}

// Ensure /v1/me shows the privileges of the caller's role: a custom role's
// unnamed permissions are none.
func TestMePrivileges(t *testing.T) {
	e := mustEnv(t)
	admin := e.admin()
	roleID := e.create("/acme/v1/roles", admin, "roles", `{"name":"Client viewer","permissions":{"clients":"view"}}`)
	levels := func(tok string) map[string]string {
		r := e.get("/v1/me", tok)
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		got := map[string]string{}
		privs, _ := r.attr("privileges").([]any)
		assert.Len(t, privs, 12, "every permission is listed")
		for _, p := range privs {
			m := p.(map[string]any)
			got[m["privilege"].(string)] = m["access-level"].(string)
		}
		return got
	}
	for _, tc := range []struct {
		role string
		want map[string]string
	}{
		{"Account Admin", map[string]string{"projects": "manage", "merge_data": "view", "settings.webhooks": "manage"}},
		{"Engineer", map[string]string{"projects": "manage", "catalog": "view", "users": "none", "merge_data": "none"}},
		{"Read Only", map[string]string{"projects": "view", "users": "none", "user_preferences": "view"}},
		{"Client viewer", map[string]string{"clients": "view", "projects": "none", "user_preferences": "none"}},
	} {
		tok := e.token("acme", strings.ReplaceAll(tc.role, " ", "")+"@acme.test", tc.role)
		got := levels(tok)
		for k, v := range tc.want {
			assert.Equal(t, v, got[k], "%s: %s", tc.role, k)
		}
	}
	// a change of the role shows at the next request
	tok := e.token("acme", "Clientviewer@acme.test", "Client viewer")
	e.patch("/acme/v1/roles/"+roleID, admin, "roles", roleID, `{"permissions":{"clients":"manage","catalog":"view"}}`)
	got := levels(tok)
	assert.Equal(t, "manage", got["clients"])
	assert.Equal(t, "view", got["catalog"])
	assert.Equal(t, "none", got["projects"])
}

// Ensure a role with project-visibility assigned (Engineer) sees only the
// projects on which it is an active teammate, and their children:
// everything else is absent from lists and 404 on show.
func TestAssignedVisibility(t *testing.T) {
	e := mustEnv(t)
	admin := e.admin()
	engID, eng := e.user("acme", "eng@acme.test", "Engineer")
	client := e.create("/v2/clients", admin, "clients", `{"name":"C"}`)
	svc := e.create("/v2/services", admin, "services", `{"name":"S","hours":1}`)
	e.create("/v2/subservices", admin, "subservices", `{"name":"Sub","hours":1}`, "service", "services", svc)
	p1 := e.create("/v2/projects", admin, "projects", `{"project-name":"One"}`, "client", "clients", client)
	p2 := e.create("/v2/projects", admin, "projects", `{"project-name":"Two"}`, "client", "clients", client)
	ps1 := e.create("/v2/project-services", admin, "project-services", "", "project", "projects", p1, "service", "services", svc)
	ps2 := e.create("/v2/project-services", admin, "project-services", "", "project", "projects", p2, "service", "services", svc)
	sub1 := e.get("/v2/project-subservices?filter[project]="+p1, admin).ids()
	require.Len(t, sub1, 1)
	loc1 := e.create("/acme/v1/project-locations", admin, "project-locations", `{"name":"HQ"}`, "project", "projects", p1)

	hidden := func(t *testing.T, p, ps string) {
		t.Helper()
		assertError(t, e.get("/v2/projects/"+p, eng), http.StatusNotFound, "")
		assertError(t, e.get("/acme/v1/projects/"+p, eng), http.StatusNotFound, "")
		assertError(t, e.get("/v2/project-services/"+ps, eng), http.StatusNotFound, "")
		assertError(t, e.get("/acme/v1/projects/"+p+"/project-services", eng), http.StatusNotFound, "")
		assertError(t, e.req(http.MethodPatch, "/v2/projects/"+p, eng, doc("projects", p, `{"project-name":"x"}`)), http.StatusNotFound, "")
		assertError(t, e.req(http.MethodDelete, "/v2/project-services/"+ps, eng, ""), http.StatusNotFound, "")
	}
	lists := func(t *testing.T) (projects, services, subs, locs []string) {
		t.Helper()
		return e.get("/v2/projects", eng).ids(), e.get("/v2/project-services", eng).ids(),
			e.get("/v2/project-subservices", eng).ids(), e.get("/acme/v1/project-locations", eng).ids()
	}

	// not a teammate anywhere: nothing
	hidden(t, p1, ps1)
	hidden(t, p2, ps2)
	projects, services, subs, locs := lists(t)
	assert.Empty(t, projects)
	assert.Empty(t, services)
	assert.Empty(t, subs)
	assert.Empty(t, locs)
	assert.EqualValues(t, 0, e.get("/v2/projects", eng).meta("record-count"))

	// a teammate of p1: p1 and its children appear, p2 stays hidden
	tm := e.create("/acme/v1/project-teammates", admin, "project-teammates", "", "project", "projects", p1, "user", "users", engID)
	projects, services, subs, locs = lists(t)
	assert.Equal(t, []string{p1}, projects)
	assert.Equal(t, []string{ps1}, services)
	assert.Equal(t, sub1, subs)
	assert.Equal(t, []string{loc1}, locs)
	assert.Equal(t, http.StatusOK, e.get("/v2/projects/"+p1, eng).Status)
	assert.Equal(t, http.StatusOK, e.get("/v2/project-services/"+ps1, eng).Status)
	assert.Equal(t, []string{ps1}, e.get("/acme/v1/projects/"+p1+"/project-services", eng).ids())
	assert.Equal(t, []string{p1}, e.get("/v2/projects?filter[my-projects]=true", eng).ids())
	r := e.get("/v2/project-services?include=project", eng)
	assert.Equal(t, []string{p1}, includedIDs(r, "projects"))
	hidden(t, p2, ps2)
	e.patch("/v2/projects/"+p1, eng, "projects", p1, `{"executive-summary":"seen"}`)

	// removed again: hidden again
	require.Equal(t, http.StatusNoContent, e.req(http.MethodDelete, "/acme/v1/project-teammates/"+tm, admin, "").Status)
	hidden(t, p1, ps1)
	projects, services, subs, locs = lists(t)
	assert.Empty(t, projects)
	assert.Empty(t, services)
	assert.Empty(t, subs)
	assert.Empty(t, locs)

	// the admin (visibility all) sees everything throughout
	assert.ElementsMatch(t, []string{p1, p2}, e.get("/v2/projects", admin).ids())
}

// Ensure another account's token finds none of this account's records by
// id (404) and is refused this account's slug (403), on reads and writes.
func TestCrossAccountAccess(t *testing.T) {
	e := mustEnv(t)
	admin := e.admin()
	other := e.token("globex", "admin@globex.test", "Account Admin")
	client := e.create("/v2/clients", admin, "clients", `{"name":"Ours"}`)
	proj := e.create("/v2/projects", admin, "projects", `{"project-name":"Ours"}`, "client", "clients", client)
	svc := e.create("/v2/services", admin, "services", `{"name":"Ours"}`)
	ps := e.create("/v2/project-services", admin, "project-services", "", "project", "projects", proj, "service", "services", svc)

	for _, rec := range []struct{ typ, id string }{{"clients", client}, {"projects", proj}, {"services", svc}, {"project-services", ps}} {
		assertError(t, e.get("/v2/"+rec.typ+"/"+rec.id, other), http.StatusNotFound, "")
		assertError(t, e.get("/globex/v1/"+rec.typ+"/"+rec.id, other), http.StatusNotFound, "")
		assertError(t, e.req(http.MethodPatch, "/v2/"+rec.typ+"/"+rec.id, other, doc(rec.typ, rec.id, `{}`)), http.StatusNotFound, "")
		assertError(t, e.req(http.MethodDelete, "/globex/v1/"+rec.typ+"/"+rec.id, other, ""), http.StatusNotFound, "")
		assertError(t, e.get("/acme/v1/"+rec.typ+"/"+rec.id, other), http.StatusForbidden, "")
		assertError(t, e.get("/acme/v1/"+rec.typ, other), http.StatusForbidden, "")
		assertError(t, e.req(http.MethodDelete, "/acme/v1/"+rec.typ+"/"+rec.id, other, ""), http.StatusForbidden, "")
		assert.Empty(t, e.get("/v2/"+rec.typ, other).list())
	}
	assertError(t, e.get("/globex/v1/projects/"+proj+"/project-services", other), http.StatusNotFound, "")
	assertError(t, e.req(http.MethodPost, "/acme/v1/clients", other, doc("clients", "", `{"name":"Intruder"}`)), http.StatusForbidden, "")
	assertError(t, e.req(http.MethodPost, "/globex/v1/projects/"+proj+"/apply-blueprint", other, `{"data":{"type":"blueprints","id":"1"}}`), http.StatusNotFound, "")

	// all still there, unchanged
	assert.Len(t, e.get("/v2/clients", admin).list(), 1)
	assert.Equal(t, http.StatusOK, e.get("/v2/project-services/"+ps, admin).Status)
}
