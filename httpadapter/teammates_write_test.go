package httpadapter_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The teammates relationship of a project written with the project, and
// the teammate a creator with "assigned" visibility becomes
// (docs/resources.md "Teammates").

// teammatesDoc is a PATCH (id set) or POST of a project's teammates.
func teammatesDoc(id, attrs string, users ...string) string {
	data := `[`
	for i, u := range users {
		if i > 0 {
			data += ","
		}
		data += `{"type":"users","id":"` + u + `"}`
	}
	idPart := ""
	if id != "" {
		idPart = `"id":"` + id + `",`
	}
	return `{"data":{"type":"projects",` + idPart + `"attributes":` + attrs + `,"relationships":{"teammates":{"data":` + data + `]}}}}`
}

// Ensure a PATCH of a project's teammates makes them exactly the users
// given: a new user is added, one left out is removed (its record stays,
// removed-at set), one given again is restored (the same record); a POST
// adds them; bad linkage is refused naming the relationship and changes
// nothing; a role that cannot write projects cannot write them.
func TestPatchProjectTeammates(t *testing.T) {
	e := mustEnv(t)
	f := newTeammateFixture(e)
	active := func() []string {
		t.Helper()
		r := e.get("/v2/projects/"+f.proj+"/teammates", f.admin)
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		return r.ids()
	}
	patch := func(path string, users ...string) *resp {
		t.Helper()
		return e.req(http.MethodPatch, path+f.proj, f.admin, teammatesDoc(f.proj, `{}`, users...))
	}

	r := patch("/v2/projects/", f.salesID, f.engID)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.ElementsMatch(t, []string{f.salesID, f.engID}, active())
	salesTM := e.get("/acme/v1/project-teammates?filter[user]="+f.salesID, f.admin).ids()
	require.Len(t, salesTM, 1)
	assert.Equal(t, []string{f.proj}, e.get("/v2/projects", f.engToken).ids(), "the Engineer sees it now")

	r = patch("/acme/v1/projects/", f.engID) // v1 alike
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Equal(t, []string{f.engID}, active())
	assert.Equal(t, salesTM, e.get("/acme/v1/project-teammates?filter[removed]=true", f.admin).ids(), "removed, kept")

	r = patch("/v2/projects/", f.salesID, f.engID, f.salesID) // a repeated id counts once
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.ElementsMatch(t, []string{f.salesID, f.engID}, active())
	assert.Equal(t, salesTM, e.get("/acme/v1/project-teammates?filter[user]="+f.salesID, f.admin).ids(), "restored: the same record")
	assert.Len(t, e.get("/acme/v1/project-teammates?filter[removed]=true,false", f.admin).list(), 2)

	// a PATCH without the relationship leaves the team alone
	e.patch("/v2/projects/"+f.proj, f.admin, "projects", f.proj, `{"executive-summary":"x"}`)
	assert.ElementsMatch(t, []string{f.salesID, f.engID}, active())

	// refused whole, the team unchanged
	otherID, _ := e.user("globex", "other@globex.test", "Account Admin")
	for _, tc := range []struct {
		body, source string
		status       int
	}{
		{teammatesDoc(f.proj, `{"project-name":"Renamed"}`, f.engID, "999999"), "/data/relationships/teammates", http.StatusUnprocessableEntity},
		{teammatesDoc(f.proj, `{"project-name":"Renamed"}`, otherID), "/data/relationships/teammates", http.StatusUnprocessableEntity},
		{`{"data":{"type":"projects","id":"` + f.proj + `","relationships":{"teammates":{"data":{"type":"users","id":"` + f.engID + `"}}}}}`,
			"/data/relationships/teammates", http.StatusBadRequest},
		{`{"data":{"type":"projects","id":"` + f.proj + `","relationships":{"teammates":{"data":[{"type":"clients","id":"` + f.client + `"}]}}}}`,
			"/data/relationships/teammates", http.StatusBadRequest},
	} {
		assertError(t, e.req(http.MethodPatch, "/v2/projects/"+f.proj, f.admin, tc.body), tc.status, tc.source)
	}
	ro := e.token("acme", "ro@acme.test", "Read Only")
	assertError(t, e.req(http.MethodPatch, "/v2/projects/"+f.proj, ro, teammatesDoc(f.proj, `{}`)), http.StatusForbidden, "")
	assert.ElementsMatch(t, []string{f.salesID, f.engID}, active())
	assert.Equal(t, "P", e.get("/v2/projects/"+f.proj, f.admin).attr("project-name"))

	r = patch("/v2/projects/")
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Empty(t, active())
	assert.Empty(t, e.get("/v2/projects", f.engToken).list())

	r = e.req(http.MethodPost, "/v2/projects", f.admin, `{"data":{"type":"projects","attributes":{"project-name":"With a team"},"relationships":{
		"client":{"data":{"type":"clients","id":"`+f.client+`"}},"teammates":{"data":[{"type":"users","id":"`+f.salesID+`"}]}}}}`)
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	p2 := r.data()["id"].(string)
	assert.Equal(t, []string{f.salesID}, e.get("/v2/projects/"+p2+"/teammates", f.admin).ids())
}

// Ensure a person whose role sees only the projects they are a teammate of
// becomes a teammate of the project they create, and sees it; a role that
// sees every project adds no one.
func TestAssignedCreatorBecomesTeammate(t *testing.T) {
	e := mustEnv(t)
	f := newTeammateFixture(e)
	r := e.req(http.MethodPost, "/v2/projects", f.engToken, doc("projects", "", `{"project-name":"Mine"}`, "client", "clients", f.client))
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	mine := r.data()["id"].(string)
	assert.Equal(t, http.StatusOK, e.get("/v2/projects/"+mine, f.engToken).Status)
	assert.Equal(t, []string{mine}, e.get("/v2/projects", f.engToken).ids())
	assert.Equal(t, []string{f.engID}, e.get("/v2/projects/"+mine+"/teammates", f.admin).ids())
	assert.Equal(t, []string{mine}, e.get("/v2/projects?filter[my-projects]=true", f.engToken).ids())

	// a child of it, written by its creator at once
	e.create("/acme/v1/project-locations", f.engToken, "project-locations", `{"name":"Site"}`, "project", "projects", mine)

	r = e.req(http.MethodPost, "/v2/projects", f.sales, doc("projects", "", `{"project-name":"Theirs"}`, "client", "clients", f.client))
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	assert.Empty(t, e.get("/v2/projects/"+r.data()["id"].(string)+"/teammates", f.admin).list(), "visibility all: no teammate added")
	assert.Empty(t, e.get("/v2/projects/"+f.proj+"/teammates", f.admin).list())
}
