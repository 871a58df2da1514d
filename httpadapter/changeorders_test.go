package httpadapter_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// Ensure change orders over HTTP: a won project's line edit is 409 (the
// detail points at change orders), a change order's copy is listed with
// filter[change-order] and edited with the same routes, its deltas read
// and its figures agree, and submit, accept, the 409 for a change order
// on an older base, and rebase; a Read Only user reads but cannot act.
func TestChangeOrdersHTTP(t *testing.T) {
	e := mustEnv(t)
	tok := e.admin()
	pid := e.demoProject()
	for _, st := range []string{"approved", "won"} {
		e.patch("/acme/v1/projects/"+pid, tok, "projects", pid, `{"status":"`+st+`"}`)
	}
	own := e.get("/acme/v1/project-services?filter[project]="+pid, tok).list()
	r := e.req(http.MethodPatch, "/acme/v1/project-services/"+own[0]["id"].(string), tok, doc("project-services", own[0]["id"].(string), `{"quantity":"9"}`))
	require.Equal(t, http.StatusConflict, r.Status)
	require.Contains(t, r.firstError()["detail"], "change order")

	r = e.req(http.MethodPost, "/acme/v1/change-orders", tok, doc("change-orders", "", `{"title":"Second site","reason":"The client adds a site."}`, "project", "projects", pid))
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	co := r.data()["id"].(string)
	other := e.create("/acme/v1/change-orders", tok, "change-orders", `{"title":"Parallel"}`, "project", "projects", pid)
	lines := e.get("/acme/v1/project-services?filter[change-order]="+co, tok).list()
	require.Len(t, lines, len(own))
	line := lines[0]["id"].(string)
	r = e.patch("/acme/v1/project-services/"+line, tok, "project-services", line, `{"quantity":"4"}`)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Len(t, e.get("/acme/v1/change-orders/"+co+"/project-services", tok).list(), len(own))

	d := e.get("/acme/v1/change-orders/"+co+"/deltas", tok)
	require.Equal(t, http.StatusOK, d.Status, "%s", d.Body)
	require.Equal(t, "change-order-deltas", d.data()["type"])
	cor := e.get("/acme/v1/change-orders/"+co, tok)
	delta := d.attr("total").(map[string]any)["delta"].(map[string]any)
	require.Equal(t, cor.attr("delta-revenue"), delta["revenue"])
	require.Equal(t, cor.attr("delta-cost"), delta["cost"])

	readOnly := e.token("acme", "ro@acme.test", "Read Only")
	require.Equal(t, http.StatusOK, e.get("/acme/v1/change-orders/"+co+"/deltas", readOnly).Status)
	require.Equal(t, http.StatusForbidden, e.req(http.MethodPost, "/acme/v1/change-orders/"+co+"/submit", readOnly, "").Status)

	for _, id := range []string{co, other} {
		r = e.req(http.MethodPost, "/acme/v1/change-orders/"+id+"/submit", tok, "")
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		require.Equal(t, "approved", r.attr("status"))
	}
	r = e.req(http.MethodPost, "/acme/v1/change-orders/"+co+"/accept", tok, "")
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Equal(t, "accepted", r.attr("status"))
	require.NotEmpty(t, r.rel("accepted-version"))
	require.Equal(t, cor.attr("contract-revenue"), e.get("/acme/v1/projects/"+pid, tok).attr("contract-revenue"))

	r = e.req(http.MethodPost, "/acme/v1/change-orders/"+other+"/accept", tok, "")
	require.Equal(t, http.StatusConflict, r.Status)
	require.Contains(t, r.firstError()["detail"], "rebase")
	r = e.req(http.MethodPost, "/acme/v1/change-orders/"+other+"/rebase", tok, "")
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Equal(t, "draft", r.attr("status"))
	require.Equal(t, http.StatusConflict, e.req(http.MethodDelete, "/acme/v1/change-orders/"+co, tok, "").Status, "an accepted change order stays")
	require.Equal(t, http.StatusNoContent, e.req(http.MethodDelete, "/acme/v1/change-orders/"+other, tok, "").Status)
	require.Empty(t, e.get("/acme/v1/project-services?filter[change-order]="+other, tok).list(), "its copy goes with it")
}
