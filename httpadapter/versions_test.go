package httpadapter_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/internal/demodata"
	"github.com/stretchr/testify/require"
)

// demoProject seeds the worked example into acme and returns its id.
func (e *testEnv) demoProject() string {
	e.t.Helper()
	sys, err := e.svc.SystemActor(context.Background(), e.accts["acme"])
	require.NoError(e.t, err)
	seeded, err := demodata.Seed(context.Background(), e.svc, sys, "")
	require.NoError(e.t, err)
	// the demo is seeded in one transaction, so its creation version
	// holds it all: a change of scope after it, as a real project has
	_, err = e.svc.Update(context.Background(), sys, "projects", seeded.ProjectID,
		&engine.Input{Attrs: map[string]json.RawMessage{"out-of-scope": json.RawMessage(`"Cabling."`)}}, engine.Options{})
	require.NoError(e.t, err)
	return seeded.ProjectID
}

// Ensure versions over HTTP: the list, taking one (201, then 200 for the
// same scope), the diff between two and with the current scope, 404 for a
// version the project does not have, and the guards (a Read Only user
// reads but cannot take one).
func TestVersionsHTTP(t *testing.T) {
	e := mustEnv(t)
	tok := e.admin()
	pid := e.demoProject()
	base := "/acme/v1/projects/" + pid

	r := e.get(base+"/versions", tok)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Len(t, r.list(), 1)
	require.Equal(t, "created", r.list()[0]["attributes"].(map[string]any)["reason"])

	r = e.req(http.MethodPost, base+"/versions", tok, `{"meta":{"name":"Quote sent","comment":"as mailed"}}`)
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	require.Equal(t, "Quote sent", r.attr("name"))
	require.EqualValues(t, 2, r.attr("number"))
	require.NotEmpty(t, r.Header.Get("Location"))
	r = e.req(http.MethodPost, base+"/versions", tok, "")
	require.Equal(t, http.StatusOK, r.Status, "the same scope: the latest version")
	require.EqualValues(t, 2, r.attr("number"))
	r = e.req(http.MethodPost, base+"/versions", tok, `{"meta":{"name":7}}`)
	assertError(t, r, http.StatusBadRequest, "/meta/name")
	for _, member := range []string{"name", "comment"} {
		r = e.req(http.MethodPost, base+"/versions", tok, `{"meta":{"`+member+`":"`+strings.Repeat("x", 100_000)+`"}}`)
		assertError(t, r, http.StatusUnprocessableEntity, "/meta/"+member) // the member sent, not an attribute
	}

	svcs := e.get("/acme/v1/project-services?filter[project]="+pid, tok).list()
	e.patch("/acme/v1/project-services/"+svcs[0]["id"].(string), tok, "project-services", svcs[0]["id"].(string), `{"quantity":"5"}`)
	r = e.get(base+"/versions/2/diff/current", tok)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Equal(t, "project-version-diffs", r.data()["type"])
	changed := r.attr("changed").([]any)
	require.Len(t, changed, 4, "the service, the governance item that follows it, and their two resources: %s", r.Body)
	total := r.attr("total").(map[string]any)
	require.NotEqual(t, "0.00", total["delta"].(map[string]any)["revenue"])

	r = e.req(http.MethodPost, base+"/versions", tok, "")
	require.Equal(t, http.StatusCreated, r.Status)
	diff := e.get(base+"/versions/2/diff/3", tok)
	require.Equal(t, http.StatusOK, diff.Status)
	require.Equal(t, total["delta"], diff.attr("total").(map[string]any)["delta"], "the version holds what the current scope was")

	require.Equal(t, http.StatusNotFound, e.get(base+"/versions/9/diff/current", tok).Status)
	require.Equal(t, http.StatusNotFound, e.get("/acme/v1/projects/999/versions/1/diff/current", tok).Status)
	require.Equal(t, http.StatusNotFound, e.get("/acme/v1/projects/"+pid+"/other/1/diff/2", tok).Status)
	require.Equal(t, http.StatusNotFound, e.get("/v2/projects/"+pid+"/versions/1/diff/2", tok).Status)

	readOnly := e.token("acme", "ro@acme.test", "Read Only")
	require.Equal(t, http.StatusOK, e.get(base+"/versions/1/diff/2", readOnly).Status)
	require.Equal(t, http.StatusForbidden, e.req(http.MethodPost, base+"/versions", readOnly, "").Status)
	v1 := e.get(base+"/versions", tok).list()[0]["id"].(string)
	r = e.req(http.MethodDelete, "/acme/v1/project-versions/"+v1, tok, "")
	require.Equal(t, http.StatusConflict, r.Status, "versions are never deleted: %s", r.Body)
}

// standardSOW returns the id of acme's built-in Standard SOW template.
func (e *testEnv) standardSOW(tok string) string {
	e.t.Helper()
	return e.standardSOWOf("acme", tok)
}

// standardSOWOf is the id of the account's built-in Standard SOW.
func (e *testEnv) standardSOWOf(slug, tok string) string {
	e.t.Helper()
	r := e.get("/"+slug+"/v1/document-templates?filter[name]=Standard%20SOW", tok)
	require.Len(e.t, r.list(), 1)
	return r.list()[0]["id"].(string)
}

// Ensure a generated document records the version it was made from (a
// scope no version held gets one) and its digest, and that merge data
// names the version that holds the current scope, and none once the
// scope has changed.
func TestDocumentRecordsItsVersion(t *testing.T) {
	e := mustEnv(t)
	tok := e.admin()
	pid := e.demoProject()
	id := e.generate("/acme/v1", tok, `{"document-type":"sow"}`, "project", "projects", pid, "document-template", "document-templates", e.standardSOW(tok))
	r := e.await("/acme/v1", tok, id)
	require.Equal(t, "finished", r.attr("status"), "%s", r.Body)
	vid := r.rel("project-version")
	require.NotEmpty(t, vid)
	v := e.get("/acme/v1/project-versions/"+vid, tok)
	require.Equal(t, v.attr("digest"), r.attr("version-digest"))
	require.EqualValues(t, 2, v.attr("number"), "the seed changed the scope after its creation version")
	require.Equal(t, "manual", v.attr("reason"))

	md := e.get("/acme/v1/projects/"+pid+"/merge-data?version=2", tok)
	pv := md.attr("merge-data").(map[string]any)["project"].(map[string]any)["project_version"].(map[string]any)
	require.EqualValues(t, 2, pv["number"])
	require.Equal(t, v.attr("digest"), pv["digest"])

	svcs := e.get("/acme/v1/project-services?filter[project]="+pid, tok).list()
	e.patch("/acme/v1/project-services/"+svcs[0]["id"].(string), tok, "project-services", svcs[0]["id"].(string), `{"quantity":"3"}`)
	md = e.get("/acme/v1/projects/"+pid+"/merge-data?version=2", tok)
	pv = md.attr("merge-data").(map[string]any)["project"].(map[string]any)["project_version"].(map[string]any)
	require.Nil(t, pv["number"], "no version holds the changed scope")
}

// Ensure POST /projects/{id}/revert: the scope of the version again (200
// with the project), 422 for another project's version, 400 for a body
// that names no version, 409 once the project is not a draft, 403 for a
// role that cannot manage projects.
func TestRevertHTTP(t *testing.T) {
	e := mustEnv(t)
	tok := e.admin()
	pid := e.demoProject()
	base := "/acme/v1/projects/" + pid
	r := e.req(http.MethodPost, base+"/versions", tok, "")
	require.Equal(t, http.StatusCreated, r.Status)
	vid := r.data()["id"].(string)
	revenue := e.get(base, tok).attr("contract-revenue")
	e.patch(base, tok, "projects", pid, `{"revenue-adjustment":"500"}`)
	require.NotEqual(t, revenue, e.get(base, tok).attr("contract-revenue"))
	require.Equal(t, http.StatusCreated, e.req(http.MethodPost, base+"/versions", tok, "").Status)

	body := `{"data":{"type":"project-versions","id":"` + vid + `"}}`
	require.Equal(t, http.StatusForbidden, e.req(http.MethodPost, base+"/revert", e.token("acme", "ro@acme.test", "Read Only"), body).Status)
	r = e.req(http.MethodPost, base+"/revert", tok, body)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Equal(t, "projects", r.data()["type"])
	require.Equal(t, revenue, r.attr("contract-revenue"))
	versions := e.get(base+"/versions", tok).list()
	last := versions[len(versions)-1]["attributes"].(map[string]any)
	require.Equal(t, "reverted", last["reason"])
	require.Equal(t, e.get("/acme/v1/project-versions/"+vid, tok).attr("digest"), last["digest"], "the scope of the version again")

	assertError(t, e.req(http.MethodPost, base+"/revert", tok, `{"data":{"type":"project-versions","id":"999"}}`), http.StatusUnprocessableEntity, "/data/id")
	require.Equal(t, http.StatusBadRequest, e.req(http.MethodPost, base+"/revert", tok, `{"meta":{}}`).Status)
	require.Equal(t, http.StatusOK, e.req(http.MethodPost, base+"/submit", tok, "").Status)
	require.Equal(t, http.StatusConflict, e.req(http.MethodPost, base+"/revert", tok, body).Status)
}
