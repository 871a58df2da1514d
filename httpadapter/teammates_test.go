package httpadapter_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Project teammates (docs/resources.md "Teammates"): one record per (project,
// user), removed rather than deleted, restored by adding again or by the
// removed teammate's own edits.

// teammateFixture is a project of acme with two users who may be its
// teammates.
type teammateFixture struct {
	admin           string // token
	proj, client    string
	salesID, sales  string // a Sales user (visibility all) and its token
	engID, engToken string // an Engineer (visibility assigned)
}

func newTeammateFixture(e *testEnv) *teammateFixture {
	e.t.Helper()
	f := &teammateFixture{admin: e.admin()}
	f.salesID, f.sales = e.user("acme", "sales@acme.test", "Sales")
	f.engID, f.engToken = e.user("acme", "eng@acme.test", "Engineer")
	f.client = e.create("/v2/clients", f.admin, "clients", `{"name":"C"}`)
	f.proj = e.create("/v2/projects", f.admin, "projects", `{"project-name":"P"}`, "client", "clients", f.client)
	return f
}

func (f *teammateFixture) add(e *testEnv, userID string) *resp {
	e.t.Helper()
	return e.req(http.MethodPost, "/acme/v1/project-teammates", f.admin,
		doc("project-teammates", "", "", "project", "projects", f.proj, "user", "users", userID))
}

// Ensure adding a teammate is 201, adding the same user again is 200 with
// the same record, removing keeps the record with removed-at set, lists
// show removed teammates only with filter[removed]=true, and adding again
// restores the same record.
func TestTeammateLifecycle(t *testing.T) {
	e := mustEnv(t)
	f := newTeammateFixture(e)
	assert.Empty(t, e.get("/acme/v1/project-teammates", f.admin).list(), "creating a project adds no teammates")

	r := f.add(e, f.salesID)
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	tm := r.data()["id"].(string)
	assert.Nil(t, r.attr("removed-at"))
	assert.Equal(t, f.proj, r.rel("project"))
	assert.Equal(t, f.salesID, r.rel("user"))
	assert.Contains(t, r.Header.Get("Location"), "/acme/v1/project-teammates/"+tm)

	r = f.add(e, f.salesID)
	require.Equal(t, http.StatusOK, r.Status, "adding again is not a create: %s", r.Body)
	assert.Equal(t, tm, r.data()["id"])
	assert.Empty(t, r.Header.Get("Location"))
	assert.Len(t, e.get("/acme/v1/project-teammates?filter[project]="+f.proj, f.admin).list(), 1)

	other := f.add(e, f.engID)
	require.Equal(t, http.StatusCreated, other.Status, "%s", other.Body)
	eng := other.data()["id"].(string)

	del := e.req(http.MethodDelete, "/acme/v1/project-teammates/"+tm, f.admin, "")
	require.Equal(t, http.StatusNoContent, del.Status, "%s", del.Body)
	assert.Empty(t, del.Body)

	show := e.get("/acme/v1/project-teammates/"+tm, f.admin)
	require.Equal(t, http.StatusOK, show.Status, "the record stays: %s", show.Body)
	assert.NotEmpty(t, show.attr("removed-at"))

	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"?filter[removed]=true", []string{tm}},
		{"?filter[removed]=true&filter[project]=" + f.proj, []string{tm}},
		{"?filter[removed]=true&filter[user]=" + f.engID, nil},
		{"?filter[removed]=false", []string{eng}},
		{"?filter[removed]=false&filter[user]=" + f.salesID, nil},
	} {
		r := e.get("/acme/v1/project-teammates"+tc.query, f.admin)
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		assert.ElementsMatch(t, tc.want, r.ids(), "list%s", tc.query)
	}
	assert.Equal(t, []string{f.engID}, e.get("/acme/v1/projects/"+f.proj+"/teammates", f.admin).ids(), "teammates relationship")

	// removing twice is harmless and keeps the first time
	first := show.attr("removed-at")
	require.Equal(t, http.StatusNoContent, e.req(http.MethodDelete, "/acme/v1/project-teammates/"+tm, f.admin, "").Status)
	assert.Equal(t, first, e.get("/acme/v1/project-teammates/"+tm, f.admin).attr("removed-at"))

	r = f.add(e, f.salesID)
	require.Equal(t, http.StatusOK, r.Status, "restoring is 200: %s", r.Body)
	assert.Equal(t, tm, r.data()["id"])
	assert.Nil(t, r.attr("removed-at"))
	assert.ElementsMatch(t, []string{tm, eng}, e.get("/acme/v1/project-teammates?filter[removed]=false", f.admin).ids())
	assert.Empty(t, e.get("/acme/v1/project-teammates?filter[removed]=true", f.admin).list())
}

// Ensure lists of teammates (the collection and a project's related
// project-teammates) leave removed ones out unless filter[removed]=true.
func TestTeammateListsHideRemoved(t *testing.T) {
	e := mustEnv(t)
	f := newTeammateFixture(e)
	r := f.add(e, f.salesID)
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	tm := r.data()["id"].(string)
	r = f.add(e, f.engID)
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	eng := r.data()["id"].(string)
	require.Equal(t, http.StatusNoContent, e.req(http.MethodDelete, "/acme/v1/project-teammates/"+tm, f.admin, "").Status)

	for _, path := range []string{
		"/acme/v1/project-teammates",
		"/acme/v1/project-teammates?filter[project]=" + f.proj,
		"/acme/v1/project-teammates?page[size]=1",
		"/acme/v1/projects/" + f.proj + "/project-teammates",
	} {
		r := e.get(path, f.admin)
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		assert.Equal(t, []string{eng}, r.ids(), path)
		assert.EqualValues(t, 1, r.meta("record-count"), path)
	}
	assert.Empty(t, e.get("/acme/v1/project-teammates?filter[user]="+f.salesID, f.admin).list())
	r = e.get("/acme/v1/projects/"+f.proj+"?include=project-teammates", f.admin)
	assert.Equal(t, []string{eng}, includedIDs(r, "project-teammates"))
	assert.Equal(t, []string{tm}, e.get("/acme/v1/project-teammates?filter[removed]=true", f.admin).ids())
}

// Ensure removed teammates drop out of filter[teammate],
// filter[my-projects] and assigned visibility.
func TestRemovedTeammateIsExcluded(t *testing.T) {
	e := mustEnv(t)
	f := newTeammateFixture(e)
	r := f.add(e, f.salesID)
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	salesTM := r.data()["id"].(string)
	r = f.add(e, f.engID)
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	engTM := r.data()["id"].(string)

	assert.Equal(t, []string{f.proj}, e.get("/v2/projects?filter[teammate]="+f.salesID, f.admin).ids())
	assert.Equal(t, []string{f.proj}, e.get("/v2/projects?filter[my-projects]=true", f.sales).ids())
	assert.Equal(t, []string{f.proj}, e.get("/v2/projects", f.engToken).ids())

	for _, tm := range []string{salesTM, engTM} {
		require.Equal(t, http.StatusNoContent, e.req(http.MethodDelete, "/acme/v1/project-teammates/"+tm, f.admin, "").Status)
	}
	assert.Empty(t, e.get("/v2/projects?filter[teammate]="+f.salesID, f.admin).list())
	assert.Empty(t, e.get("/v2/projects?filter[teammate]="+f.salesID+","+f.engID, f.admin).list())
	assert.Empty(t, e.get("/v2/projects?filter[my-projects]=true", f.sales).list())
	assert.Empty(t, e.get("/v2/projects", f.engToken).list(), "no longer counts for assigned visibility")
	assertError(t, e.get("/v2/projects/"+f.proj, f.engToken), http.StatusNotFound, "")
	// a Sales user (visibility all) still sees the project itself
	assert.Equal(t, []string{f.proj}, e.get("/v2/projects", f.sales).ids())
}

// Ensure a removed teammate whose role's visibility is all is restored by
// its own successful writes to the project or its children, and not by
// anyone else's.
func TestRemovedTeammateRestoredByEditing(t *testing.T) {
	e := mustEnv(t)
	f := newTeammateFixture(e)
	r := f.add(e, f.salesID)
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	tm := r.data()["id"].(string)
	remove := func() {
		t.Helper()
		require.Equal(t, http.StatusNoContent, e.req(http.MethodDelete, "/acme/v1/project-teammates/"+tm, f.admin, "").Status)
		require.NotNil(t, e.get("/acme/v1/project-teammates/"+tm, f.admin).attr("removed-at"))
	}
	removedAt := func() any {
		t.Helper()
		r := e.get("/acme/v1/project-teammates/"+tm, f.admin)
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		return r.attr("removed-at")
	}

	remove()
	e.patch("/v2/projects/"+f.proj, f.admin, "projects", f.proj, `{"executive-summary":"by the admin"}`)
	assert.NotNil(t, removedAt(), "another user's edit does not restore")
	e.create("/acme/v1/project-locations", f.admin, "project-locations", `{"name":"Admin's"}`, "project", "projects", f.proj)
	assert.NotNil(t, removedAt())

	// a failed write does not restore
	assertError(t, e.req(http.MethodPatch, "/v2/projects/"+f.proj, f.sales, doc("projects", f.proj, `{"project-name":""}`)), http.StatusUnprocessableEntity, "/data/attributes/project-name")
	assert.NotNil(t, removedAt())

	e.patch("/v2/projects/"+f.proj, f.sales, "projects", f.proj, `{"executive-summary":"by sales"}`)
	assert.Nil(t, removedAt(), "patching the project restores")
	assert.Equal(t, []string{f.proj}, e.get("/v2/projects?filter[my-projects]=true", f.sales).ids())

	remove()
	e.create("/acme/v1/project-locations", f.sales, "project-locations", `{"name":"Branch"}`, "project", "projects", f.proj)
	assert.Nil(t, removedAt(), "creating a child restores")

	remove()
	loc := e.get("/acme/v1/project-locations", f.admin).ids()[0]
	e.patch("/acme/v1/project-locations/"+loc, f.sales, "project-locations", loc, `{"city":"Springfield"}`)
	assert.Nil(t, removedAt(), "updating a child restores")

	remove()
	require.Equal(t, http.StatusNoContent, e.req(http.MethodDelete, "/acme/v1/project-locations/"+loc, f.sales, "").Status)
	assert.Nil(t, removedAt(), "deleting a child restores")
	assert.Len(t, e.get("/acme/v1/project-teammates", f.admin).list(), 1)
}

// Ensure a teammate who removes itself stays removed: the removal is not
// an edit that restores it.
func TestTeammateRemovingItselfStaysRemoved(t *testing.T) {
	e := mustEnv(t)
	f := newTeammateFixture(e)
	r := f.add(e, f.salesID)
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	tm := r.data()["id"].(string)
	require.Equal(t, http.StatusNoContent, e.req(http.MethodDelete, "/acme/v1/project-teammates/"+tm, f.sales, "").Status)
	assert.NotNil(t, e.get("/acme/v1/project-teammates/"+tm, f.admin).attr("removed-at"))
	assert.Empty(t, e.get("/v2/projects?filter[my-projects]=true", f.sales).list())
}
